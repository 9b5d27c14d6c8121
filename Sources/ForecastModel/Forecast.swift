import Foundation

/// A forecast as a provider delivered it, held in canonical metric units:
/// °C, km/h, mm, hPa, %, degrees. Rendering converts to the user's units.
public struct Forecast: Sendable, Hashable, Codable {
    /// Stable provider identifier (`open-meteo`).
    public var provider: String
    /// Attribution the provider's terms ask for.
    public var attribution: String
    /// Where the forecast is for (the provider's grid cell may differ from the asked point).
    public var coordinate: Coordinate
    /// When forecastd received it.
    public var fetchedAt: Date
    /// Offset of the location's local time from UTC, in seconds, at fetch time.
    public var utcOffsetSeconds: Int
    /// IANA time zone of the location, when the provider says.
    public var timezone: String?
    public var current: CurrentConditions?
    /// Hourly steps, starting at the current hour.
    public var hourly: [HourlyForecast]
    /// Daily steps, starting today (local date).
    public var daily: [DailyForecast]
    /// Precipitation over the next hours in short periods, for the nowcast (``Nowcast``); nil when the
    /// provider gave none.
    public var shortTerm: ShortTermPrecipitation?
    /// Remarks from the provider a reader should see, one sentence each: a product announced as
    /// deprecated, a forecast that covers fewer days or coarser steps than usual.
    public var notes: [String]

    public init(
        provider: String, attribution: String, coordinate: Coordinate, fetchedAt: Date,
        utcOffsetSeconds: Int, timezone: String?, current: CurrentConditions?, hourly: [HourlyForecast],
        daily: [DailyForecast], notes: [String] = [], shortTerm: ShortTermPrecipitation? = nil
    ) {
        self.provider = provider
        self.attribution = attribution
        self.coordinate = coordinate
        self.fetchedAt = fetchedAt
        self.utcOffsetSeconds = utcOffsetSeconds
        self.timezone = timezone
        self.current = current
        self.hourly = hourly
        self.daily = daily
        self.notes = notes
        self.shortTerm = shortTerm
    }
}

extension Forecast {
    /// Decodes a forecast saved before `notes` or `shortTerm` existed as one without them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            provider: try container.decode(String.self, forKey: .provider),
            attribution: try container.decode(String.self, forKey: .attribution),
            coordinate: try container.decode(Coordinate.self, forKey: .coordinate),
            fetchedAt: try container.decode(Date.self, forKey: .fetchedAt),
            utcOffsetSeconds: try container.decode(Int.self, forKey: .utcOffsetSeconds),
            timezone: try container.decodeIfPresent(String.self, forKey: .timezone),
            current: try container.decodeIfPresent(CurrentConditions.self, forKey: .current),
            hourly: try container.decode([HourlyForecast].self, forKey: .hourly),
            daily: try container.decode([DailyForecast].self, forKey: .daily),
            notes: try container.decodeIfPresent([String].self, forKey: .notes) ?? [],
            shortTerm: try container.decodeIfPresent(ShortTermPrecipitation.self, forKey: .shortTerm))
    }
}

/// Conditions now. Any value a provider did not give is nil.
public struct CurrentConditions: Sendable, Hashable, Codable {
    public var time: Date
    public var temperature: Double?
    public var apparentTemperature: Double?
    public var humidity: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var precipitation: Double?
    public var pressure: Double?
    public var condition: ConditionKind?
    public var isDay: Bool?
    /// Dew point, °C.
    public var dewPoint: Double?
    /// Wind gusts, km/h.
    public var windGusts: Double?
    /// Cloud cover, %.
    public var cloudCover: Double?
    /// UV index (0 and up, WHO scale).
    public var uvIndex: Double?
    /// Visibility, metres.
    public var visibility: Double?

    public init(
        time: Date, temperature: Double? = nil, apparentTemperature: Double? = nil, humidity: Double? = nil,
        windSpeed: Double? = nil, windDirection: Double? = nil, precipitation: Double? = nil,
        pressure: Double? = nil, condition: ConditionKind? = nil, isDay: Bool? = nil, dewPoint: Double? = nil,
        windGusts: Double? = nil, cloudCover: Double? = nil, uvIndex: Double? = nil, visibility: Double? = nil
    ) {
        self.time = time
        self.temperature = temperature
        self.apparentTemperature = apparentTemperature
        self.humidity = humidity
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.precipitation = precipitation
        self.pressure = pressure
        self.condition = condition
        self.isDay = isDay
        self.dewPoint = dewPoint
        self.windGusts = windGusts
        self.cloudCover = cloudCover
        self.uvIndex = uvIndex
        self.visibility = visibility
    }
}

/// One hour of forecast.
public struct HourlyForecast: Sendable, Hashable, Codable {
    public var time: Date
    public var temperature: Double?
    public var apparentTemperature: Double?
    public var humidity: Double?
    public var precipitation: Double?
    public var precipitationProbability: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var condition: ConditionKind?
    public var isDay: Bool?
    /// Dew point, °C.
    public var dewPoint: Double?
    /// Wind gusts, km/h.
    public var windGusts: Double?
    /// Sea-level pressure, hPa.
    public var pressure: Double?
    /// Cloud cover, %.
    public var cloudCover: Double?
    /// UV index (0 and up, WHO scale).
    public var uvIndex: Double?
    /// Visibility, metres.
    public var visibility: Double?

    public init(
        time: Date, temperature: Double? = nil, apparentTemperature: Double? = nil, humidity: Double? = nil,
        precipitation: Double? = nil, precipitationProbability: Double? = nil, windSpeed: Double? = nil,
        windDirection: Double? = nil, condition: ConditionKind? = nil, isDay: Bool? = nil, dewPoint: Double? = nil,
        windGusts: Double? = nil, pressure: Double? = nil, cloudCover: Double? = nil, uvIndex: Double? = nil,
        visibility: Double? = nil
    ) {
        self.time = time
        self.temperature = temperature
        self.apparentTemperature = apparentTemperature
        self.humidity = humidity
        self.precipitation = precipitation
        self.precipitationProbability = precipitationProbability
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.condition = condition
        self.isDay = isDay
        self.dewPoint = dewPoint
        self.windGusts = windGusts
        self.pressure = pressure
        self.cloudCover = cloudCover
        self.uvIndex = uvIndex
        self.visibility = visibility
    }
}

/// One local calendar day of forecast.
public struct DailyForecast: Sendable, Hashable, Codable {
    /// The local date, `YYYY-MM-DD`.
    public var date: String
    public var temperatureMin: Double?
    public var temperatureMax: Double?
    public var condition: ConditionKind?
    public var precipitationProbability: Double?
    public var precipitationSum: Double?
    public var windSpeedMax: Double?
    public var sunrise: Date?
    public var sunset: Date?
    /// The strongest gust of the day, km/h.
    public var windGustsMax: Double?
    /// The day's highest UV index.
    public var uvIndexMax: Double?

    public init(
        date: String, temperatureMin: Double? = nil, temperatureMax: Double? = nil, condition: ConditionKind? = nil,
        precipitationProbability: Double? = nil, precipitationSum: Double? = nil, windSpeedMax: Double? = nil,
        sunrise: Date? = nil, sunset: Date? = nil, windGustsMax: Double? = nil, uvIndexMax: Double? = nil
    ) {
        self.date = date
        self.temperatureMin = temperatureMin
        self.temperatureMax = temperatureMax
        self.condition = condition
        self.precipitationProbability = precipitationProbability
        self.precipitationSum = precipitationSum
        self.windSpeedMax = windSpeedMax
        self.sunrise = sunrise
        self.sunset = sunset
        self.windGustsMax = windGustsMax
        self.uvIndexMax = uvIndexMax
    }
}

extension Forecast {
    /// The moment the answer itself speaks for: its current conditions' time, else its first hourly
    /// step, else the end of its first day; nil when it holds none of them.
    ///
    /// ``fetchedAt`` says when forecastd received an answer, not how old the provider's data is: a cache
    /// serving an old copy, or a provider with a wrong clock, answers today with last month's data.
    public var speaksFor: Date? {
        if let current { return current.time }
        if let first = hourly.first { return first.time }
        if let first = daily.first,
            let start = Timestamps.parseLocal(first.date, utcOffsetSeconds: utcOffsetSeconds)
        {
            return start.addingTimeInterval(86_400)
        }
        return nil
    }

    /// Why the answer cannot replace the forecast already held, which speaks for `held`: it speaks for a
    /// time more than `tolerance` seconds earlier (a cache behind the one asked before, or a wrong clock).
    /// Nil when it is as new, or newer. The tolerance lets providers that speak for different moments (the
    /// quarter hour, the hour) take over from each other.
    public func olderThanHeld(_ held: Date, tolerance: TimeInterval) -> String? {
        guard let speaksFor, speaksFor < held.addingTimeInterval(-tolerance) else { return nil }
        let hours = max(1, Int(held.timeIntervalSince(speaksFor) / 3600))
        return "the answer is dated \(Timestamps.rfc3339(speaksFor)), \(hours == 1 ? "1 hour" : "\(hours) hours") older than the forecast "
            + "already held (dated \(Timestamps.rfc3339(held))); kept the newer one"
    }
}
