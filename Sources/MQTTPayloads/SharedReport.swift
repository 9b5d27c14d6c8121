import Foundation
import ForecastModel

/// A report as forecastd publishes it on MQTT (`BASE/report`, `BASE/cities/ID/report`): one JSON object,
///
/// ```
/// {"forecastd_share": 1, "published_at": "…Z", "publisher": {…}, "summary": {…}, "report": {…}, "model": {…}}
/// ```
///
/// - `report`: the report as the socket gives it (docs/report.md), in the publisher's units: what Home
///   Assistant's templates and a script with `mosquitto_sub | jq` read.
/// - `summary`: a few values derived from it in the same units, so that templates stay one lookup each: the next
///   hour's precipitation, the condition with a Material Design icon, the warnings' count, highest level and list.
/// - `model`: forecastd's own values, metric, as `state.json` keeps them (``SharedModel``): what a follower renders
///   its own report from, in its own units, language and formats, as if it had fetched them itself.
///
/// Why both: a report in the publisher's units cannot be turned into another's without loss (rounded values;
/// Beaufort forces have no km/h), and the model alone means nothing to Home Assistant.
public struct SharedReport: Sendable, Hashable {
    /// `forecastd_share`: bumped only for changes that break followers.
    public static let schemaVersion = 1
    /// The largest payload a follower takes (the report for here is about 30 KiB, a city's about 15 KiB).
    public static let maximumBytes = 1 << 20

    public var publishedAt: Date
    public var publisher: SharedPublisher
    public var model: SharedModel

    public init(publishedAt: Date, publisher: SharedPublisher, model: SharedModel) {
        self.publishedAt = publishedAt
        self.publisher = publisher
        self.model = model
    }
}

/// Who published a report and how often it refreshes, so a follower can tell when the report has gone stale.
public struct SharedPublisher: Sendable, Hashable, Codable {
    /// The publisher's base topic.
    public var topic: String
    /// The publisher's forecastd version.
    public var version: String
    /// `refresh_minutes` in seconds: how often a new forecast is due.
    public var refreshSeconds: Int
    /// How old its forecast may be before its own report calls it stale.
    public var staleAfterSeconds: Int

    public init(topic: String, version: String, refreshSeconds: Int, staleAfterSeconds: Int) {
        self.topic = topic
        self.version = version
        self.refreshSeconds = refreshSeconds
        self.staleAfterSeconds = staleAfterSeconds
    }

    enum CodingKeys: String, CodingKey {
        case topic, version
        case refreshSeconds = "refresh_seconds"
        case staleAfterSeconds = "stale_after_seconds"
    }
}

/// The publisher's report inputs a follower renders from, in forecastd's canonical units (°C, km/h, mm, hPa):
/// ``ForecastModel/ReportInputs`` without what is the reader's own choice (units, the nowcast's horizon) and
/// with the forecast cut to what reports of the next two days can show.
public struct SharedModel: Sendable, Hashable, Codable {
    public var fix: LocationFix?
    public var place: Place?
    public var locality: Place?
    public var placeIsNear: Bool
    public var forecast: Forecast?
    public var errors: [ReportError]
    public var warnings: [WeatherWarning]?
    public var warningsOmitted: Int
    public var warningsStale: Bool
    public var air: AirQuality?
    public var airStale: Bool
    public var locating: Bool
    public var fromSavedState: Bool

    /// How far ahead the forecast's hours and short periods are kept: a follower cut off from its publisher
    /// still shows a day of hours after a day.
    public static let horizon: TimeInterval = 48 * 3600

    /// The inputs of a report at `now`, the forecast cut to ``horizon``.
    public init(_ inputs: ReportInputs, now: Date) {
        fix = inputs.fix
        place = inputs.place
        locality = inputs.locality
        placeIsNear = inputs.placeIsNear
        forecast = inputs.forecast.map { Self.cut($0, now: now) }
        errors = inputs.errors
        warnings = inputs.warnings
        warningsOmitted = inputs.warningsOmitted
        warningsStale = inputs.warningsStale
        air = inputs.air
        airStale = inputs.airStale
        locating = inputs.locating
        fromSavedState = inputs.fromSavedState
    }

    /// The hours from the one before `now` to ``horizon`` ahead, the short periods that have not ended by `now`
    /// and start within it; every day (at most 16).
    static func cut(_ forecast: Forecast, now: Date) -> Forecast {
        var cut = forecast
        let end = now.addingTimeInterval(horizon)
        cut.hourly = forecast.hourly.filter { $0.time > now.addingTimeInterval(-3600) && $0.time <= end }
        if var shortTerm = forecast.shortTerm {
            shortTerm.periods = shortTerm.periods.filter { $0.end > now && $0.start < end }
            cut.shortTerm = shortTerm
        }
        return cut
    }

    /// The inputs of this reader's own report: the publisher's values in the reader's `units`, judged stale
    /// after `staleAfter`, with the reader's nowcast horizon.
    public func reportInputs(units: UnitPreferences, staleAfter: TimeInterval, nowcastHorizon: TimeInterval?)
        -> ReportInputs
    {
        var inputs = ReportInputs(
            fix: fix, place: place, forecast: forecast, units: units, staleAfter: staleAfter, locating: locating,
            fromSavedState: fromSavedState, errors: errors, warnings: warnings, nowcastHorizon: nowcastHorizon, air: air)
        inputs.locality = locality
        inputs.placeIsNear = placeIsNear
        inputs.warningsOmitted = warningsOmitted
        inputs.warningsStale = warningsStale
        inputs.airStale = airStale
        return inputs
    }
}

// MARK: Encoding

extension SharedReport {
    /// The payload of `BASE/report` or `BASE/cities/ID/report`: `report` as the socket gives it (its cities
    /// leave: each has a topic of its own), the summary made from it, and this value's model.
    public func payload(report: Report) throws -> [UInt8] {
        var report = report
        report.cities = nil
        report.written = nil
        let words = Report.makeEncoder()
        let model = JSONEncoder()
        model.dateEncodingStrategy = .secondsSince1970
        model.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The parts have different key styles (the report's snake_case, the model's field names as state.json
        // writes them), so the object is put together from parts each encoded in its own style.
        var bytes = Array(#"{"forecastd_share":\#(Self.schemaVersion),"published_at":"#.utf8)
        bytes += try words.encode(Timestamps.rfc3339(publishedAt))
        bytes += Array(#","publisher":"#.utf8) + (try words.encode(publisher))
        bytes += Array(#","summary":"#.utf8) + (try words.encode(SharedSummary(report)))
        bytes += Array(#","report":"#.utf8) + (try words.encode(report))
        bytes += Array(#","model":"#.utf8) + (try model.encode(self.model))
        bytes += Array("}".utf8)
        return bytes
    }
}

/// Values derived from a report for readers that take one value per lookup (Home Assistant's templates), in
/// the report's units.
public struct SharedSummary: Sendable, Hashable, Codable {
    /// The first hour of the forecast that starts after the report's time: its precipitation and chance.
    public var nextHour: ReportHour?
    /// The condition now, with a Material Design icon name (`mdi:weather-pouring`) for dashboards.
    public var condition: ConditionNow?
    /// The warnings in force: absent when the warning sources are off or none serves the position.
    public var warnings: Warnings?

    public struct ConditionNow: Sendable, Hashable, Codable {
        public var code: String
        /// In English, as the report has it.
        public var text: String
        /// forecastd's icon name (`partly-cloudy-night`), its emoji and the Material Design icon.
        public var icon: String
        public var emoji: String
        public var mdiIcon: String?
    }

    public struct Warnings: Sendable, Hashable, Codable {
        /// All in force, those the report leaves out included.
        public var count: Int
        /// `none`, or the highest severity in force (`unknown` < `minor` < … < `extreme`).
        public var highest: String
        /// The report's warnings, briefly.
        public var list: [Brief]
    }

    public struct Brief: Sendable, Hashable, Codable {
        public var event: String
        public var severity: String
        public var onset: String?
        public var until: String?
        public var headline: String?
        public var area: String?
    }

    public init(_ report: Report) {
        let now = Timestamps.parseUTC(report.updatedAt)
        nextHour = report.hourly.first { hour in
            guard let now, let time = Timestamps.parseUTC(hour.time) else { return false }
            return time > now
        }
        condition = report.current?.condition.map { condition in
            ConditionNow(
                code: condition.code, text: condition.text, icon: condition.icon, emoji: condition.emoji,
                mdiIcon: MaterialIcon.name(forIcon: condition.icon))
        }
        warnings = report.warnings.map { warnings in
            let omitted = report.warningsOmitted ?? 0
            return Warnings(
                count: warnings.count + omitted,
                highest: warnings.map(\.severity).max()?.rawValue ?? (omitted > 0 ? "unknown" : "none"),
                list: warnings.map { warning in
                    Brief(
                        event: warning.event, severity: warning.severity.rawValue,
                        onset: warning.onset.map { Timestamps.rfc3339($0) },
                        until: warning.until.map { Timestamps.rfc3339($0) },
                        headline: warning.headline.map { String($0.prefix(200)) },
                        area: warning.area.map { String($0.prefix(200)) })
                })
        }
    }
}

/// The Material Design Icons (Home Assistant's icon set) that match forecastd's condition icons.
public enum MaterialIcon {
    public static func name(forIcon icon: String) -> String? {
        switch icon {
        case "clear-day": "mdi:weather-sunny"
        case "clear-night": "mdi:weather-night"
        case "mainly-clear-day", "partly-cloudy-day": "mdi:weather-partly-cloudy"
        case "mainly-clear-night", "partly-cloudy-night": "mdi:weather-night-partly-cloudy"
        case "overcast": "mdi:weather-cloudy"
        case "fog": "mdi:weather-fog"
        case "haze": "mdi:weather-hazy"
        case "drizzle", "freezing-drizzle": "mdi:weather-rainy"
        case "rain", "freezing-rain", "rain-showers": "mdi:weather-pouring"
        case "snow", "snow-grains", "snow-showers": "mdi:weather-snowy"
        case "sleet", "sleet-showers": "mdi:weather-snowy-rainy"
        case "squall": "mdi:weather-windy"
        case "tornado": "mdi:weather-tornado"
        case "thunderstorm": "mdi:weather-lightning-rainy"
        case "thunderstorm-hail": "mdi:weather-hail"
        default: nil
        }
    }
}
