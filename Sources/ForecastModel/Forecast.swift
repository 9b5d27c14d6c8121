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

    public init(
        provider: String, attribution: String, coordinate: Coordinate, fetchedAt: Date,
        utcOffsetSeconds: Int, timezone: String?, current: CurrentConditions?, hourly: [HourlyForecast],
        daily: [DailyForecast]
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

    public init(
        time: Date, temperature: Double? = nil, apparentTemperature: Double? = nil, humidity: Double? = nil,
        windSpeed: Double? = nil, windDirection: Double? = nil, precipitation: Double? = nil,
        pressure: Double? = nil, condition: ConditionKind? = nil, isDay: Bool? = nil
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

    public init(
        time: Date, temperature: Double? = nil, apparentTemperature: Double? = nil, humidity: Double? = nil,
        precipitation: Double? = nil, precipitationProbability: Double? = nil, windSpeed: Double? = nil,
        windDirection: Double? = nil, condition: ConditionKind? = nil, isDay: Bool? = nil
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

    public init(
        date: String, temperatureMin: Double? = nil, temperatureMax: Double? = nil, condition: ConditionKind? = nil,
        precipitationProbability: Double? = nil, precipitationSum: Double? = nil, windSpeedMax: Double? = nil,
        sunrise: Date? = nil, sunset: Date? = nil
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
    }
}
