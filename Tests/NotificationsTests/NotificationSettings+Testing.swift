import ForecastModel
import Settings

extension Settings.Notifications {
    /// `[notifications]` switched on, with the keys a test sets and the others at their defaults.
    static func testing(
        minimumSeverity: WarningSeverity = .moderate, rainSoon: Bool = true, rainSoonMinutes: Int = 30,
        morningSummary: TimeOfDay? = nil, quietHours: DailyPeriod? = nil, actions: Bool = true
    ) -> Settings.Notifications {
        var notifications = Settings.Notifications()
        notifications.enabled = true
        notifications.minimumSeverity = minimumSeverity
        notifications.rainSoon = rainSoon
        notifications.rainSoonMinutes = rainSoonMinutes
        notifications.morningSummary = morningSummary
        notifications.quietHours = quietHours
        notifications.actions = actions
        return notifications
    }
}
