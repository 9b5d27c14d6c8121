import DesktopNotifications
import ForecastModel
import Foundation

/// What each notification says, in the given phrases, and how it asks to be shown.
///
/// Icons are names of the freedesktop Icon Naming Specification (`weather-severe-alert`,
/// `weather-showers`), which every icon theme has. Categories are forecastd's own (`x-forecastd.warning`),
/// as the specification asks for kinds it does not list.
public enum NotificationContent {
    /// The action key of "Open warning"; a click on the notification (the `default` action) does the same.
    public static let openAction = "open"

    /// A warning: `Frost (minor)`, or `Frost, now severe` for an upgrade; the body gives when (local times of
    /// the position), the headline and what to do. Urgency follows severity: minor low, moderate normal,
    /// severe and extreme critical (which servers keep until dismissed).
    public static func warning(
        _ warning: WeatherWarning, upgrade: Bool, report: Report, now: Date, actions: Bool, phrases: Phrases
    ) -> DesktopNotification {
        let severity = phrases.severity(warning.severity)
        let summary =
            upgrade ? phrases.warningUpgraded(warning.heading, severity) : phrases.warning(warning.heading, severity)
        var spans: [NotificationBody.Span] = []
        if let times = warning.times(now: now, utcOffsetSeconds: report.utcOffsetSeconds, phrases: phrases) {
            spans.append(.bold(capitalized(times)))
        }
        for text in [warning.headline, warning.area, warning.instruction] {
            guard let text = text.map(oneLine), !text.isEmpty, text != warning.event else { continue }
            spans.append(.text((spans.isEmpty ? "" : "\n") + clipped(text)))
        }
        var offered: [NotificationAction] = []
        if actions, pageURL(warning) != nil {
            offered = [
                NotificationAction(key: NotificationAction.defaultKey, label: phrases.openWarning),
                NotificationAction(key: openAction, label: phrases.openWarning),
            ]
        }
        return DesktopNotification(
            summary: summary, body: NotificationBody(spans), icon: "weather-severe-alert",
            urgency: urgency(warning.severity), category: "x-forecastd.warning", actions: offered)
    }

    /// The new warnings beyond those shown one by one, in one notification: `9,990 more warnings`, then the
    /// most severe few of them by title and where to see them all. `count` may be more than `warnings` (those
    /// beyond the ones followed are counted, not listed). Normal urgency: the most severe were shown alone.
    public static func moreWarnings(
        _ warnings: [WeatherWarning], counting count: Int, report: Report, now: Date, phrases: Phrases
    ) -> DesktopNotification {
        var lines = warnings.prefix(3).map { "⚠ " + $0.title(phrases: phrases) }
        lines.append(phrases.allWarningsListed)
        return DesktopNotification(
            summary: phrases.moreWarningsNotified(count), body: .text(lines.joined(separator: "\n")),
            icon: "weather-severe-alert", urgency: .normal, category: "x-forecastd.warning")
    }

    /// Rain about to start: the nowcast's sentence (`Rain in 20 min (moderate), until about 14:30`) and the
    /// place with the chance; transient (not kept in the server's history) and gone 15 minutes after the
    /// rain was due, when it says nothing any more.
    public static func rain(_ nowcast: ReportNowcast, report: Report, now: Date, phrases: Phrases)
        -> DesktopNotification
    {
        let body = [report.place?.name, nowcast.probability.map { phrases.chance(Int($0.rounded())) }]
            .compactMap { $0 }
        let judged = Timestamps.parseUTC(report.updatedAt) ?? now
        let start = Timestamps.parseUTC(nowcast.startsAt) ?? now
        let lifetime = max(60, start.timeIntervalSince(now) + 15 * 60)
        let icon =
            switch nowcast.kind {
            case "snow": "weather-snow"
            case "sleet": "weather-freezing-rain"
            default: "weather-showers"
            }
        return DesktopNotification(
            summary: nowcast.text(phrases: phrases, now: judged), body: .text(phrases.list(body)), icon: icon, urgency: .normal, category: "x-forecastd.rain",
            expiration: .after(.seconds(lifetime)), isTransient: true)
    }

    /// The day's summary: `Today in Berlin`, then the day's condition and range, the chance of precipitation,
    /// the warnings in force, the rain to come and the air when it is worse than good. Low urgency.
    public static func summary(_ report: Report, now: Date, phrases: Phrases) -> DesktopNotification {
        var lines: [String] = []
        let unit = report.units.temperature
        if let today = report.daily.first {
            let low = today.temperatureMin.map { whole($0) } ?? "–"
            let high = today.temperatureMax.map { whole($0) + unit } ?? "–"
            lines.append(phrases.dayRange(today.condition.map(phrases.condition), low, high))
            if let chance = today.precipitationProbability {
                lines.append(phrases.chanceOfPrecipitation(Int(chance.rounded())))
            }
        }
        // The most severe few, and how many more: a feed of thousands must not make a body of thousands of lines.
        let warnings = (report.warnings ?? []).filter { $0.isInForce(at: now) }.sorted(by: NotificationPolicy.moreSevere)
        lines += warnings.prefix(NotificationPolicy.individualWarnings).map { "⚠ " + $0.title(phrases: phrases) }
        if warnings.count > NotificationPolicy.individualWarnings {
            lines.append("⚠ " + phrases.moreWarnings(warnings.count - NotificationPolicy.individualWarnings))
        }
        if let nowcast = report.nowcast {
            lines.append(nowcast.text(phrases: phrases, now: Timestamps.parseUTC(report.updatedAt) ?? now))
        }
        if let air = report.air, air.level > 1 { lines.append(air.text(phrases: phrases)) }
        return DesktopNotification(
            summary: phrases.today(report.place?.name), body: .text(lines.joined(separator: "\n")),
            icon: icon(report.daily.first?.condition ?? report.current?.condition), urgency: .low,
            category: "x-forecastd.summary")
    }

    /// The warning's web page, when it has one that a browser can show (http or https).
    public static func pageURL(_ warning: WeatherWarning) -> URL? {
        guard let text = warning.url, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else { return nil }
        return url
    }

    static func urgency(_ severity: WarningSeverity) -> Urgency {
        switch severity {
        case .unknown, .minor: .low
        case .moderate: .normal
        case .severe, .extreme: .critical
        }
    }

    /// The freedesktop icon for a condition.
    static func icon(_ condition: Condition?) -> String {
        guard let code = condition?.code, let kind = ConditionKind(rawValue: code) else { return "weather-overcast" }
        let night = condition?.icon.hasSuffix("-night") == true
        switch kind {
        case .clear, .mainlyClear: return night ? "weather-clear-night" : "weather-clear"
        case .partlyCloudy: return night ? "weather-few-clouds-night" : "weather-few-clouds"
        case .overcast, .haze: return "weather-overcast"
        case .fog: return "weather-fog"
        case .drizzle, .rainShowers: return "weather-showers-scattered"
        case .rain: return "weather-showers"
        case .freezingDrizzle, .freezingRain, .sleet, .sleetShowers: return "weather-freezing-rain"
        case .snow, .snowGrains, .snowShowers: return "weather-snow"
        case .thunderstorm, .thunderstormHail, .squall, .tornado: return "weather-storm"
        }
    }

    private static func whole(_ value: Double) -> String {
        let text = String(format: "%.0f", value.rounded(places: 0))
        return text == "-0" ? "0" : text
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Servers show a few lines; a long instruction is cut at a word, with `…`.
    private static func clipped(_ text: String, limit: Int = 400) -> String {
        guard text.count > limit else { return text }
        let cut = text.prefix(limit)
        let word = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return word + "…"
    }
}
