import ForecastModel
import Foundation

// `[notifications]`: the values, each field's initial value being its key's default, and the keys' rows.

extension Settings {
    /// `[notifications]`: desktop notifications (docs/notifications.md); off unless the user turns them on.
    public struct Notifications: Sendable, Hashable {
        /// `enabled`: opt-in.
        public var enabled = false
        /// `minimum_severity`: warnings at or above it are notified.
        public var minimumSeverity: WarningSeverity = .moderate
        /// `rain_soon`: a notification when rain is about to start, once per rain episode.
        public var rainSoon = true
        /// `rain_soon_minutes`: how long before the rain starts that notification goes out.
        public var rainSoonMinutes = 30
        /// `morning_summary`: the time of the day's summary; nil (the key is `""`) for none.
        public var morningSummary: TimeOfDay?
        /// `quiet_hours`: when only extreme warnings are notified; nil (the key is `""`) for none.
        public var quietHours: DailyPeriod?
        /// `actions`: offer "Open warning" on warnings that have a page, where the server shows actions.
        public var actions = true

        /// Every key at its default.
        public init() {}
    }

    static let notificationsTable = SettingsTable.Table(
        ["notifications"], \Settings.notifications,
        documentation: """
            Desktop notifications through your desktop's notification server (org.freedesktop.Notifications
            on the session bus): new and upgraded warnings, rain about to start, and a morning summary.
            Never twice for the same warning or rain, across restarts too. A system service has no session
            bus and cannot notify: run forecastd as a user service for them.
            """,
        [
            .key("enabled", \.enabled, .boolean, .live, "Whether to send notifications at all (off by default)."),
            .key(
                "minimum_severity", \.minimumSeverity, .choice(WarningSeverity.self, noun: "a warning severity"),
                .live,
                """
                The least severe warning notified: {allowed}.
                MeteoAlarm's and MET Norway's yellow is "moderate", orange "severe", red "extreme". An upgrade
                is notified again; a downgrade below it takes the notification away.
                """),
            .key(
                "rain_soon", \.rainSoon, .boolean, .live,
                "Whether to notify when rain (snow, sleet) is about to start, once per episode."),
            .key(
                "rain_soon_minutes", \.rainSoonMinutes, .integer(5...180), .live,
                """
                How many minutes before it starts ({allowed}); at most [nowcast] horizon_minutes counts.
                """),
            .key(
                "morning_summary", \.morningSummary, .timeOfDay.emptyMeansNone, .live,
                """
                A summary of the day at this time, such as "07:30" (your clock's time zone), sent within
                three hours of it when the machine was asleep; "" for none.
                """),
            .key(
                "quiet_hours", \.quietHours, .dailyPeriod.emptyMeansNone, .live,
                """
                A span of the day, such as "22:00-07:00", in which only extreme warnings are notified; the
                others wait for its end if they are still in force. "" for none.
                """),
            .key(
                "actions", \.actions, .boolean, .live,
                """
                Whether a warning with a web page offers "Open warning" (opened through the desktop portal),
                where the notification server shows actions.
                """),
        ])
}
