import Foundation

/// The report's `nowcast` object: rain soon, or rain stopping soon (`docs/nowcast-and-air.md`).
///
/// ``Report/nowcast``, encoded with ``Report/makeEncoder(pretty:)``: snake_case keys, absent rather than
/// null. ``Report/init(_:now:)`` judges it when ``ReportInputs/nowcastHorizon`` is set.
public struct ReportNowcast: Sendable, Hashable, Codable {
    /// `rain`, `snow`, `sleet`.
    public var kind: String
    /// True when it is falling now.
    public var rainingNow: Bool
    /// When it starts (in the past when it is falling now), at the location's UTC offset.
    public var startsAt: String
    /// When it stops; absent when it is still falling where the data ends.
    public var stopsAt: String?
    /// The end of the short-term data the judgement rests on.
    public var knownUntil: String
    /// Minutes from the report's `updated_at` until it starts; 0 when it is falling now.
    public var minutesUntil: Int
    /// Minutes from the report's `updated_at` until it stops, with `stops_at`.
    public var minutesUntilStop: Int?
    /// `light` (below 2.5 mm/h) · `moderate` (2.5–10 mm/h) · `heavy` (above 10 mm/h).
    public var intensity: String
    /// The highest chance of precipitation the provider gives for it, %.
    public var probability: Double?
    /// True when the data is not a 15-minute model's own output (interpolated from hourly data, or hourly).
    public var interpolated: Bool
    /// The sentence for bars and tooltips: `Rain in 20 min (moderate), until about 14:30`.
    public var text: String

    /// The report value of the nowcast of `forecast` judged at `now` (``Nowcast/judge(_:now:horizon:)``),
    /// times at the forecast's offset and in its time zone; nil when there is none.
    public init?(_ forecast: Forecast, now: Date, horizon: TimeInterval = Nowcast.horizon, phrases: Phrases = .english) {
        guard let nowcast = Nowcast.judge(forecast, now: now, horizon: horizon) else { return nil }
        self.init(
            nowcast, now: now, utcOffsetSeconds: forecast.utcOffsetSeconds, timeZone: forecast.localTimeZone,
            phrases: phrases)
    }

    /// The report value of `nowcast` judged at `now`; times at `utcOffsetSeconds` (the forecast's), times
    /// of day in the text in `timeZone`.
    public init(
        _ nowcast: Nowcast, now: Date, utcOffsetSeconds: Int, timeZone: TimeZone, phrases: Phrases = .english
    ) {
        self.kind = nowcast.kind.rawValue
        self.rainingNow = nowcast.isOngoing
        self.startsAt = Timestamps.rfc3339(nowcast.startsAt, utcOffsetSeconds: utcOffsetSeconds)
        self.stopsAt = nowcast.stopsAt.map { Timestamps.rfc3339($0, utcOffsetSeconds: utcOffsetSeconds) }
        self.knownUntil = Timestamps.rfc3339(nowcast.knownUntil, utcOffsetSeconds: utcOffsetSeconds)
        self.minutesUntil = nowcast.minutesUntilStart(at: now)
        self.minutesUntilStop = nowcast.minutesUntilStop(at: now)
        self.intensity = nowcast.intensity.rawValue
        self.probability = nowcast.probability
        self.interpolated = nowcast.interpolated
        self.text = nowcast.text(now: now, timeZone: timeZone, phrases: phrases)
    }
}

/// The report's `air` object: the air quality index, its pollutants, UV and pollen (`docs/nowcast-and-air.md`).
///
/// ``Report/air``. Concentrations are µg/m³, pollen grains/m³: no unit choice applies to them.
public struct ReportAir: Sendable, Hashable, Codable {
    /// The index, rounded to a whole number as both agencies publish it.
    public var aqi: Int
    /// `european` · `us`.
    public var aqiScale: String
    /// The category on that scale (`good` … `extremely_poor`, or `good` … `hazardous`).
    public var category: String
    /// The category's rank, 1 (good) to 6.
    public var level: Int
    /// `aqi-good` · `aqi-fair` · `aqi-moderate` · `aqi-poor` · `aqi-very-poor`.
    public var className: String
    /// `pm2_5` · `pm10` · `o3` · `no2` · `so2` · `co`: the pollutant that sets the index.
    public var dominant: String?
    public var pm2_5: Double?
    public var pm10: Double?
    public var o3: Double?
    public var no2: Double?
    public var uvIndex: Double?
    public var pollen: Pollen?
    /// The hour the values describe, at the location's UTC offset.
    public var time: String
    /// When forecastd received them (UTC).
    public var fetchedAt: String
    public var attribution: String
    /// The sentence for tooltips: `Air quality moderate (European AQI 44, mostly PM2.5)`.
    public var text: String
    /// True when the service has not answered well for longer than its interval and grace
    /// (``AlertStaleness``): this is the last good reading and may be out of date; absent otherwise.
    public var stale: Bool?

    enum CodingKeys: String, CodingKey {
        case aqi, aqiScale, category, level, dominant, pm2_5, pm10, o3, no2, uvIndex, pollen, time, fetchedAt
        case attribution, text, stale
        case className = "class"
        /// `pm2_5` as a snake_case-converting decoder presents it (``Report/makeDecoder()``): digits have
        /// no case, so the underscore is simply dropped.
        case pm25
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(aqi, forKey: .aqi)
        try container.encode(aqiScale, forKey: .aqiScale)
        try container.encode(category, forKey: .category)
        try container.encode(level, forKey: .level)
        try container.encode(className, forKey: .className)
        try container.encodeIfPresent(dominant, forKey: .dominant)
        try container.encodeIfPresent(pm2_5, forKey: .pm2_5)
        try container.encodeIfPresent(pm10, forKey: .pm10)
        try container.encodeIfPresent(o3, forKey: .o3)
        try container.encodeIfPresent(no2, forKey: .no2)
        try container.encodeIfPresent(uvIndex, forKey: .uvIndex)
        try container.encodeIfPresent(pollen, forKey: .pollen)
        try container.encode(time, forKey: .time)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(attribution, forKey: .attribution)
        try container.encode(text, forKey: .text)
        try container.encodeIfPresent(stale, forKey: .stale)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        aqi = try container.decode(Int.self, forKey: .aqi)
        aqiScale = try container.decode(String.self, forKey: .aqiScale)
        category = try container.decode(String.self, forKey: .category)
        level = try container.decode(Int.self, forKey: .level)
        className = try container.decode(String.self, forKey: .className)
        dominant = try container.decodeIfPresent(String.self, forKey: .dominant)
        pm2_5 =
            try container.decodeIfPresent(Double.self, forKey: .pm2_5)
            ?? container.decodeIfPresent(Double.self, forKey: .pm25)
        pm10 = try container.decodeIfPresent(Double.self, forKey: .pm10)
        o3 = try container.decodeIfPresent(Double.self, forKey: .o3)
        no2 = try container.decodeIfPresent(Double.self, forKey: .no2)
        uvIndex = try container.decodeIfPresent(Double.self, forKey: .uvIndex)
        pollen = try container.decodeIfPresent(Pollen.self, forKey: .pollen)
        time = try container.decode(String.self, forKey: .time)
        fetchedAt = try container.decode(String.self, forKey: .fetchedAt)
        attribution = try container.decode(String.self, forKey: .attribution)
        text = try container.decode(String.self, forKey: .text)
        stale = try container.decodeIfPresent(Bool.self, forKey: .stale)
    }

    public init(_ air: AirQuality, utcOffsetSeconds: Int, stale: Bool = false, phrases: Phrases = .english) {
        self.stale = stale ? true : nil
        self.aqi = Int(air.aqi.rounded())
        self.aqiScale = air.scale.rawValue
        self.category = air.category.rawValue
        self.level = air.level
        self.className = air.className
        self.dominant = air.dominant?.rawValue
        self.pm2_5 = air.pm2_5
        self.pm10 = air.pm10
        self.o3 = air.o3
        self.no2 = air.no2
        self.uvIndex = air.uvIndex
        self.pollen = air.pollen.flatMap { $0.isEmpty ? nil : $0 }
        self.time = Timestamps.rfc3339(air.time, utcOffsetSeconds: utcOffsetSeconds)
        self.fetchedAt = Timestamps.rfc3339(air.fetchedAt)
        self.attribution = air.attribution
        self.text = air.text(phrases: phrases)
    }
}

/// How long the last good warnings or air stay fresh without a good answer from their source.
///
/// A source is asked again when its interval has passed; the answer may take up to a request's deadline and
/// a failed one is retried an interval later. The grace covers one slow or failed request, so a single
/// bad answer between two good ones never marks anything stale: the last good values are marked stale once
/// **interval + grace** has passed since the source's last good answer (documented in docs/warnings.md).
public enum AlertStaleness {
    /// The grace beyond the source's interval: the longest request deadline (60 s) with margin.
    public static let grace: TimeInterval = 120

    /// When values from a good answer at `lastGood` become stale for a source asked every `interval`.
    public static func staleAt(lastGood: Date, interval: TimeInterval, grace: TimeInterval = grace) -> Date {
        lastGood.addingTimeInterval(interval + grace)
    }
}
