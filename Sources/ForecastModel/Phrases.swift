import Foundation

/// Every sentence the nowcast and the air quality put in front of people, for one language.
///
/// The only place these words live: a translation is another value of this type, and the functions
/// that build texts (``Nowcast/text(now:timeZone:phrases:)``, ``AirQuality/text(phrases:)``) take one.
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
        air: @escaping @Sendable (String, String, Int, String?) -> String
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
        })

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
