import ForecastModel
import Foundation

/// The current conditions of one refresh of a city, as the history database keeps them.
///
/// Values are in the canonical units of ``ForecastModel/CurrentConditions``: °C, %, km/h, degrees,
/// mm, hPa and metres; any value the provider did not give is `nil`.
public struct HistoryReading: Sendable, Hashable, Codable {
    /// The city's id (`paris-fr`).
    public var cityID: String
    /// When the conditions were observed (the provider's time for them), to the second.
    public var observedAt: Date
    /// The provider that reported them (`open-meteo`).
    public var provider: String
    /// When forecastd received them, to the second.
    public var fetchedAt: Date
    /// °C.
    public var temperature: Double?
    /// °C.
    public var apparentTemperature: Double?
    /// %.
    public var humidity: Double?
    /// km/h.
    public var windSpeed: Double?
    /// Degrees, where the wind comes from.
    public var windDirection: Double?
    /// km/h.
    public var windGusts: Double?
    /// mm.
    public var precipitation: Double?
    /// hPa.
    public var pressure: Double?
    /// °C.
    public var dewPoint: Double?
    /// %.
    public var cloudCover: Double?
    /// WHO UV index.
    public var uvIndex: Double?
    /// Metres.
    public var visibility: Double?
    public var condition: ConditionKind?
    public var isDay: Bool?

    public init(
        cityID: String, observedAt: Date, provider: String, fetchedAt: Date, temperature: Double? = nil,
        apparentTemperature: Double? = nil, humidity: Double? = nil, windSpeed: Double? = nil,
        windDirection: Double? = nil, windGusts: Double? = nil, precipitation: Double? = nil, pressure: Double? = nil,
        dewPoint: Double? = nil, cloudCover: Double? = nil, uvIndex: Double? = nil, visibility: Double? = nil,
        condition: ConditionKind? = nil, isDay: Bool? = nil
    ) {
        self.cityID = cityID
        self.observedAt = observedAt
        self.provider = provider
        self.fetchedAt = fetchedAt
        self.temperature = temperature
        self.apparentTemperature = apparentTemperature
        self.humidity = humidity
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.windGusts = windGusts
        self.precipitation = precipitation
        self.pressure = pressure
        self.dewPoint = dewPoint
        self.cloudCover = cloudCover
        self.uvIndex = uvIndex
        self.visibility = visibility
        self.condition = condition
        self.isDay = isDay
    }

    /// The reading a forecast's current conditions make, or `nil` when the forecast has none.
    public init?(cityID: String, forecast: Forecast) {
        guard let current = forecast.current else { return nil }
        self.init(
            cityID: cityID, observedAt: HistoryTime.truncated(current.time), provider: forecast.provider,
            fetchedAt: HistoryTime.truncated(forecast.fetchedAt), temperature: current.temperature,
            apparentTemperature: current.apparentTemperature, humidity: current.humidity,
            windSpeed: current.windSpeed, windDirection: current.windDirection, windGusts: current.windGusts,
            precipitation: current.precipitation, pressure: current.pressure, dewPoint: current.dewPoint,
            cloudCover: current.cloudCover, uvIndex: current.uvIndex, visibility: current.visibility,
            condition: current.condition, isDay: current.isDay)
    }
}

/// One day of a forecast as it was issued, to compare later with what happened.
///
/// Values are in canonical units: °C, mm, %, km/h.
public struct IssuedForecastDay: Sendable, Hashable, Codable {
    /// The city's id.
    public var cityID: String
    /// When forecastd received the forecast, to the second.
    public var issuedAt: Date
    /// The provider that issued it.
    public var provider: String
    /// The local day forecast, `YYYY-MM-DD`.
    public var day: String
    /// °C.
    public var temperatureMin: Double?
    /// °C.
    public var temperatureMax: Double?
    /// mm over the day.
    public var precipitationSum: Double?
    /// %.
    public var precipitationProbability: Double?
    /// km/h.
    public var windSpeedMax: Double?
    /// km/h.
    public var windGustsMax: Double?
    public var uvIndexMax: Double?
    public var condition: ConditionKind?

    public init(
        cityID: String, issuedAt: Date, provider: String, day: String, temperatureMin: Double? = nil,
        temperatureMax: Double? = nil, precipitationSum: Double? = nil, precipitationProbability: Double? = nil,
        windSpeedMax: Double? = nil, windGustsMax: Double? = nil, uvIndexMax: Double? = nil,
        condition: ConditionKind? = nil
    ) {
        self.cityID = cityID
        self.issuedAt = issuedAt
        self.provider = provider
        self.day = day
        self.temperatureMin = temperatureMin
        self.temperatureMax = temperatureMax
        self.precipitationSum = precipitationSum
        self.precipitationProbability = precipitationProbability
        self.windSpeedMax = windSpeedMax
        self.windGustsMax = windGustsMax
        self.uvIndexMax = uvIndexMax
        self.condition = condition
    }

    /// The days of `forecast`, each as issued at the forecast's fetch time.
    public static func days(cityID: String, forecast: Forecast) -> [IssuedForecastDay] {
        forecast.daily.map { day in
            IssuedForecastDay(
                cityID: cityID, issuedAt: HistoryTime.truncated(forecast.fetchedAt), provider: forecast.provider,
                day: day.date, temperatureMin: day.temperatureMin, temperatureMax: day.temperatureMax,
                precipitationSum: day.precipitationSum, precipitationProbability: day.precipitationProbability,
                windSpeedMax: day.windSpeedMax, windGustsMax: day.windGustsMax, uvIndexMax: day.uvIndexMax,
                condition: day.condition)
        }
    }
}

/// A city's readings and issued forecast days over a span of time, from one consistent snapshot.
public struct CityHistory: Sendable, Hashable {
    /// Oldest first.
    public var readings: [HistoryReading]
    /// By issue time, then day.
    public var issuedDays: [IssuedForecastDay]

    public init(readings: [HistoryReading], issuedDays: [IssuedForecastDay]) {
        self.readings = readings
        self.issuedDays = issuedDays
    }
}

/// What one ``HistoryStore/record(cityID:forecast:)`` added.
public struct HistoryRecordOutcome: Sendable, Hashable {
    /// Whether the current conditions were new (false when the forecast had none, or the same
    /// reading was recorded before).
    public var readingAdded: Bool
    /// How many forecast days were new.
    public var daysAdded: Int

    public init(readingAdded: Bool, daysAdded: Int) {
        self.readingAdded = readingAdded
        self.daysAdded = daysAdded
    }
}

/// What one ``HistoryStore/prune(olderThan:)`` deleted.
public struct HistoryPruneOutcome: Sendable, Hashable {
    public var readingsDeleted: Int
    public var daysDeleted: Int

    public init(readingsDeleted: Int, daysDeleted: Int) {
        self.readingsDeleted = readingsDeleted
        self.daysDeleted = daysDeleted
    }
}

/// Why the history database could not be opened, read or written.
public struct HistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file.
    public var path: String
    /// What went wrong, as a sentence fragment after the path.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `PATH: message`.
    public var description: String { "\(path): \(message)" }
}

/// How times are kept: whole seconds since 1970 UTC, so that a reading recorded twice is the same
/// row and times compare exactly.
enum HistoryTime {
    static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
