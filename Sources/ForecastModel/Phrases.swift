import Foundation

/// Every sentence the nowcast, the air quality, the warnings and the desktop notifications put in front of
/// people, for one language.
///
/// The only place these words live: a translation is another value of this type, and the functions
/// that build texts (``Nowcast/text(now:timeZone:phrases:)``, ``AirQuality/text(phrases:)``, the bar
/// formats' warning and rain texts in Rendering, the notifications) take one.
public struct Phrases: Sendable {
    /// `Rain`, `Snow`, `Sleet`: what falls, at the start of a sentence.
    public var precipitation: @Sendable (PrecipitationKind) -> String
    /// `light`, `moderate`, `heavy`.
    public var intensity: @Sendable (PrecipitationIntensity) -> String
    /// `Rain in 20 min (moderate)`; `minutes` is nil when it starts any minute now.
    public var starts: @Sendable (_ what: String, _ minutes: Int?, _ intensity: String) -> String
    /// `, until about 14:30`, appended to ``starts`` when the data shows it stopping.
    public var until: @Sendable (_ time: String) -> String
    /// `, lasting past 16:45`, appended to ``starts`` when it is still falling where the data ends.
    public var lastingPast: @Sendable (_ time: String) -> String
    /// `Rain stops in 15 min`; `minutes` is nil when it stops any minute now.
    public var stops: @Sendable (_ what: String, _ minutes: Int?) -> String
    /// `Rain until after 16:45`: falling now and still falling where the data ends.
    public var continues: @Sendable (_ what: String, _ time: String) -> String
    /// `European AQI`, `US AQI`.
    public var scale: @Sendable (AQIScale) -> String
    /// `good`, `unhealthy for sensitive groups`.
    public var category: @Sendable (AirQualityCategory) -> String
    /// `PM2.5`, `ozone`.
    public var pollutant: @Sendable (Pollutant) -> String
    /// `Air quality moderate (European AQI 44, mostly PM2.5)`; `dominant` is nil when unknown.
    public var air: @Sendable (_ category: String, _ scale: String, _ aqi: Int, _ dominant: String?) -> String

    // Short rain texts, for bar texts beside the temperature.

    /// `in 20 min`; `minutes` is nil when it starts any minute now.
    public var soonStarts: @Sendable (_ minutes: Int?) -> String
    /// `stops in 15 min`; `minutes` is nil when it stops any minute now.
    public var soonStops: @Sendable (_ minutes: Int?) -> String

    // Pollen.

    /// `birch`: a plant by its report key (`alder`, `birch`, `grass`, `mugwort`, `olive`, `ragweed`).
    public var plant: @Sendable (_ key: String) -> String
    /// `Pollen: birch 45, grass 12 grains/m³`, the plants already named and rounded, most first.
    public var pollen: @Sendable (_ plants: [(name: String, grains: Int)]) -> String

    // Warnings.

    /// `minor`, `moderate`, `severe`, `extreme`.
    public var severity: @Sendable (WarningSeverity) -> String
    /// `Frost (minor)`: a warning's event and severity.
    public var warning: @Sendable (_ event: String, _ severity: String) -> String
    /// `Frost, now severe`: a warning whose severity went up.
    public var warningUpgraded: @Sendable (_ event: String, _ severity: String) -> String
    /// `from Tue 00:00`: when a warning comes into force, if later than now.
    public var warningFrom: @Sendable (_ time: String) -> String
    /// `until 08:00`: when it expires.
    public var warningUntil: @Sendable (_ time: String) -> String
    /// `+2 more`: the other warnings, after the first one.
    public var moreWarnings: @Sendable (_ count: Int) -> String
    /// `2 warnings in force`.
    public var warningsInForce: @Sendable (_ count: Int) -> String
    /// Under the warnings when their source has not answered well for longer than its interval and grace.
    public var warningsStale = "These warnings may be out of date: their source has not answered lately."
    /// After the air's line when the air quality service has not answered well for over an hour.
    public var airStale = "(may be out of date)"
    /// `No warning is in force for Berlin.`; `place` is nil when unknown.
    public var noWarnings: @Sendable (_ place: String?) -> String
    /// What `forecastctl warnings` says when the report has no warnings at all.
    public var warningsUnavailable: String
    /// The headers of `forecastctl warnings`: severity, event, from, until, area, source.
    public var warningsTableHeaders: [String]
    /// `Sun` … `Sat`, Sunday first: the day of a time that is not today.
    public var weekdays: [String]

    // Notifications.

    /// `70 % chance`: the chance of precipitation of a rain notification.
    public var chance: @Sendable (_ percent: Int) -> String
    /// `Today in Berlin`, `Today` when the place is unknown: the morning summary's title.
    public var today: @Sendable (_ place: String?) -> String
    /// `Overcast, 8 to 12 °C`: the day's condition and range; `condition` is nil when unknown.
    public var dayRange: @Sendable (_ condition: String?, _ low: String, _ high: String) -> String
    /// `Chance of precipitation 60 %`.
    public var chanceOfPrecipitation: @Sendable (_ percent: Int) -> String
    /// The label of the action that opens a warning's page.
    public var openWarning: String

    public init(
        precipitation: @escaping @Sendable (PrecipitationKind) -> String,
        intensity: @escaping @Sendable (PrecipitationIntensity) -> String,
        starts: @escaping @Sendable (String, Int?, String) -> String,
        until: @escaping @Sendable (String) -> String,
        lastingPast: @escaping @Sendable (String) -> String,
        stops: @escaping @Sendable (String, Int?) -> String,
        continues: @escaping @Sendable (String, String) -> String,
        scale: @escaping @Sendable (AQIScale) -> String,
        category: @escaping @Sendable (AirQualityCategory) -> String,
        pollutant: @escaping @Sendable (Pollutant) -> String,
        air: @escaping @Sendable (String, String, Int, String?) -> String,
        soonStarts: @escaping @Sendable (Int?) -> String,
        soonStops: @escaping @Sendable (Int?) -> String,
        plant: @escaping @Sendable (String) -> String,
        pollen: @escaping @Sendable ([(name: String, grains: Int)]) -> String,
        severity: @escaping @Sendable (WarningSeverity) -> String,
        warning: @escaping @Sendable (String, String) -> String,
        warningUpgraded: @escaping @Sendable (String, String) -> String,
        warningFrom: @escaping @Sendable (String) -> String,
        warningUntil: @escaping @Sendable (String) -> String,
        moreWarnings: @escaping @Sendable (Int) -> String,
        warningsInForce: @escaping @Sendable (Int) -> String,
        noWarnings: @escaping @Sendable (String?) -> String,
        warningsUnavailable: String,
        warningsTableHeaders: [String],
        weekdays: [String],
        chance: @escaping @Sendable (Int) -> String,
        today: @escaping @Sendable (String?) -> String,
        dayRange: @escaping @Sendable (String?, String, String) -> String,
        chanceOfPrecipitation: @escaping @Sendable (Int) -> String,
        openWarning: String
    ) {
        self.precipitation = precipitation
        self.intensity = intensity
        self.starts = starts
        self.until = until
        self.lastingPast = lastingPast
        self.stops = stops
        self.continues = continues
        self.scale = scale
        self.category = category
        self.pollutant = pollutant
        self.air = air
        self.soonStarts = soonStarts
        self.soonStops = soonStops
        self.plant = plant
        self.pollen = pollen
        self.severity = severity
        self.warning = warning
        self.warningUpgraded = warningUpgraded
        self.warningFrom = warningFrom
        self.warningUntil = warningUntil
        self.moreWarnings = moreWarnings
        self.warningsInForce = warningsInForce
        self.noWarnings = noWarnings
        self.warningsUnavailable = warningsUnavailable
        self.warningsTableHeaders = warningsTableHeaders
        self.weekdays = weekdays
        self.chance = chance
        self.today = today
        self.dayRange = dayRange
        self.chanceOfPrecipitation = chanceOfPrecipitation
        self.openWarning = openWarning
    }

    /// English.
    public static let english = Phrases(
        precipitation: { kind in
            switch kind {
            case .rain: "Rain"
            case .snow: "Snow"
            case .sleet: "Sleet"
            }
        },
        intensity: { $0.rawValue },
        starts: { what, minutes, intensity in
            minutes.map { "\(what) in \($0) min (\(intensity))" } ?? "\(what) any minute (\(intensity))"
        },
        until: { ", until about \($0)" },
        lastingPast: { ", lasting past \($0)" },
        stops: { what, minutes in minutes.map { "\(what) stops in \($0) min" } ?? "\(what) stops any minute" },
        continues: { what, time in "\(what) until after \(time)" },
        scale: { scale in
            switch scale {
            case .european: "European AQI"
            case .us: "US AQI"
            }
        },
        category: { category in
            switch category {
            case .good: "good"
            case .fair: "fair"
            case .moderate: "moderate"
            case .poor: "poor"
            case .veryPoor: "very poor"
            case .extremelyPoor: "extremely poor"
            case .unhealthyForSensitiveGroups: "unhealthy for sensitive groups"
            case .unhealthy: "unhealthy"
            case .veryUnhealthy: "very unhealthy"
            case .hazardous: "hazardous"
            }
        },
        pollutant: { pollutant in
            switch pollutant {
            case .pm2_5: "PM2.5"
            case .pm10: "PM10"
            case .o3: "ozone"
            case .no2: "nitrogen dioxide"
            case .so2: "sulphur dioxide"
            case .co: "carbon monoxide"
            }
        },
        air: { category, scale, aqi, dominant in
            "Air quality \(category) (\(scale) \(aqi)" + (dominant.map { ", mostly \($0)" } ?? "") + ")"
        },
        soonStarts: { minutes in minutes.map { "in \($0) min" } ?? "any minute" },
        soonStops: { minutes in minutes.map { "stops in \($0) min" } ?? "stops any minute" },
        plant: { $0 },
        pollen: { plants in
            "Pollen: " + plants.map { "\($0.name) \($0.grains)" }.joined(separator: ", ") + " grains/m³"
        },
        severity: { $0.rawValue },
        warning: { event, severity in "\(event) (\(severity))" },
        warningUpgraded: { event, severity in "\(event), now \(severity)" },
        warningFrom: { "from \($0)" },
        warningUntil: { "until \($0)" },
        moreWarnings: { "+\($0) more" },
        warningsInForce: { $0 == 1 ? "1 warning in force" : "\($0) warnings in force" },
        noWarnings: { place in place.map { "No warning is in force for \($0)." } ?? "No warning is in force here." },
        warningsUnavailable:
            "No warnings: the warning sources are switched off ([warnings] enabled), none serves this country, "
            + "or the daemon has not asked yet.",
        warningsTableHeaders: ["Severity", "Event", "From", "Until", "Area", "Source"],
        weekdays: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"],
        chance: { "\($0) % chance" },
        today: { place in place.map { "Today in \($0)" } ?? "Today" },
        dayRange: { condition, low, high in (condition.map { $0 + ", " } ?? "") + "\(low) to \(high)" },
        chanceOfPrecipitation: { "Chance of precipitation \($0) %" },
        openWarning: "Open warning")

    /// Minutes as a text shows them: to the nearest 5 (a half rounds down), at least 5; nil up to
    /// 2.5 ("any minute").
    ///
    /// The model's periods are 15 minutes or an hour long, so finer minutes would claim a precision
    /// the data does not have, and the text would change every minute. It changes when 2.5, 7.5,
    /// 12.5 … minutes are left, and at those very moments already shows the lower number, so a timer
    /// set for them (``Nowcast/nextChange(_:after:horizon:)``) finds the new text.
    public static func roundedMinutes(_ minutes: Double) -> Int? {
        guard minutes > 2.5 else { return nil }
        return Int(((minutes - 2.5) / 5).rounded(.up)) * 5
    }

    /// `14:30`: the time of day of `date` in `timeZone`, 24-hour clock.
    public static func timeOfDay(_ date: Date, in timeZone: TimeZone) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
        return String(format: "%02d:%02d", secondOfDay / 3600, secondOfDay % 3600 / 60)
    }
}

extension Nowcast {
    /// The nowcast as one sentence at `now`, times of day in `timeZone` (the position's):
    /// `Rain in 20 min (moderate), until about 14:30`, `Rain stops in 15 min`.
    public func text(now: Date, timeZone: TimeZone, phrases: Phrases = .english) -> String {
        let what = phrases.precipitation(kind)
        func minutes(until date: Date) -> Int? { Phrases.roundedMinutes(date.timeIntervalSince(now) / 60) }
        if isOngoing {
            guard let stopsAt else { return phrases.continues(what, Phrases.timeOfDay(knownUntil, in: timeZone)) }
            return phrases.stops(what, minutes(until: stopsAt))
        }
        let start = phrases.starts(what, minutes(until: startsAt), phrases.intensity(intensity))
        guard let stopsAt else { return start + phrases.lastingPast(Phrases.timeOfDay(knownUntil, in: timeZone)) }
        return start + phrases.until(Phrases.timeOfDay(stopsAt, in: timeZone))
    }
}

extension AirQuality {
    /// The air as one sentence: `Air quality moderate (European AQI 44, mostly PM2.5)`.
    public func text(phrases: Phrases = .english) -> String {
        phrases.air(
            phrases.category(category), phrases.scale(scale), Int(aqi.rounded()), dominant.map(phrases.pollutant))
    }
}

extension Phrases {
    /// `08:00` when `date` falls on the same local day as `now`, `Tue 08:00` on another: the local time at
    /// `utcOffsetSeconds` (the position's), or `08:00 UTC` when that is unknown.
    public func localTime(_ date: Date, now: Date, utcOffsetSeconds: Int?) -> String {
        guard let offset = utcOffsetSeconds else {
            return String(Timestamps.rfc3339(date).dropFirst(11).prefix(5)) + " UTC"
        }
        let text = Timestamps.rfc3339(date, utcOffsetSeconds: offset)
        let clock = String(text.dropFirst(11).prefix(5))
        let today = Timestamps.rfc3339(now, utcOffsetSeconds: offset).prefix(10)
        guard text.prefix(10) != today, let day = Timestamps.parseUTC(String(text.prefix(10))) else { return clock }
        // 1970-01-01 was a Thursday: index 4 of the Sunday-first list.
        let days = Int((day.timeIntervalSince1970 / 86_400).rounded(.down))
        return weekdays[((days + 4) % 7 + 7) % 7] + " " + clock
    }
}

extension WeatherWarning {
    /// `Frost`: the event as a heading (some sources write it in lower case).
    public var heading: String { event.prefix(1).uppercased() + event.dropFirst() }

    /// `Frost (minor)`.
    public func title(phrases: Phrases = .english) -> String {
        phrases.warning(heading, phrases.severity(severity))
    }

    /// `from Tue 00:00 until 08:00`, `until 21:00`: the onset when it is still ahead of `now`, and the
    /// expiry, in local time at `utcOffsetSeconds` (``Phrases/localTime(_:now:utcOffsetSeconds:)``); nil
    /// when the warning has neither.
    public func times(now: Date, utcOffsetSeconds: Int?, phrases: Phrases = .english) -> String? {
        var parts: [String] = []
        if let onset, onset > now {
            parts.append(phrases.warningFrom(phrases.localTime(onset, now: now, utcOffsetSeconds: utcOffsetSeconds)))
        }
        if let expires {
            parts.append(phrases.warningUntil(phrases.localTime(expires, now: now, utcOffsetSeconds: utcOffsetSeconds)))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
