import ForecastModel
import Foundation

/// What the user asked to be notified about: `[notifications]` of the settings, as plain values.
public struct NotificationPreferences: Sendable, Hashable {
    /// `minimum_severity`: warnings at or above it are notified.
    public var minimumSeverity: WarningSeverity
    /// `rain_soon`: notify when rain is about to start, once per episode.
    public var rainSoon: Bool
    /// `rain_soon_minutes`: how long before the start that happens.
    public var rainLead: TimeInterval
    /// `morning_summary`: when the day's summary goes out, on the machine's clock; nil for none.
    public var morningSummary: TimeOfDay?
    /// `quiet_hours`: when only extreme warnings are notified; nil for none.
    public var quietHours: DailyPeriod?
    /// `actions`: offer "Open warning" on warnings with a web page.
    public var actions: Bool

    public init(
        minimumSeverity: WarningSeverity = .moderate, rainSoon: Bool = true, rainLead: TimeInterval = 30 * 60,
        morningSummary: TimeOfDay? = nil, quietHours: DailyPeriod? = nil, actions: Bool = true
    ) {
        self.minimumSeverity = minimumSeverity
        self.rainSoon = rainSoon
        self.rainLead = rainLead
        self.morningSummary = morningSummary
        self.quietHours = quietHours
        self.actions = actions
    }
}
