import ForecastModel
import Foundation

/// Maps an Open-Meteo `/v1/forecast` body onto a ``Forecast`` in canonical metric units.
///
/// Pure: no I/O, no clock. Whatever units the body was asked in (`*_units` says which), the result is
/// in °C, km/h, mm and hPa. Bad data degrades as little as possible: a null or out-of-range value
/// becomes nil, a parallel array of the wrong length drops that one field for every step, and only a
/// body that is not JSON, reports an error, or has no current, hourly or daily data at all is refused.
public enum OpenMeteoDecoder {
    /// The stable provider identifier.
    public static let providerName = "open-meteo"
    /// The attribution Open-Meteo's CC BY 4.0 licence asks for.
    public static let attribution = "Weather data by Open-Meteo.com (CC BY 4.0)"

    /// Decodes a response body received at `fetchedAt`.
    ///
    /// - Parameter requested: the point that was asked for, used only when the body lacks its own
    ///   (grid cell) coordinates.
    /// - Throws: ``ProviderError`` of kind `badResponse` when the body is unusable as a whole.
    public static func decode(
        _ body: some Sequence<UInt8>, fetchedAt: Date, requested: Coordinate? = nil
    ) throws(ProviderError) -> Forecast {
        guard let json = JSONValue.parse(Data(body)) else { throw failure("the response is not JSON") }
        guard json.object != nil else { throw failure("the response is JSON but not an object") }
        return try decode(json: json, fetchedAt: fetchedAt, requested: requested)
    }

    static func decode(json: JSONValue, fetchedAt: Date, requested: Coordinate?) throws(ProviderError) -> Forecast {
        if json["error"]?.bool == true {
            let reason = json["reason"]?.string ?? "no reason given"
            throw failure("the response reports an error: \(reason)")
        }

        let coordinate: Coordinate
        if let latitude = json["latitude"]?.double, let longitude = json["longitude"]?.double,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            coordinate = Coordinate(latitude: latitude, longitude: longitude)
        } else if let requested {
            coordinate = requested
        } else {
            throw failure("the response has no valid latitude and longitude")
        }

        // Open-Meteo answers in GMT unless asked for a time zone, so a missing offset means 0.
        let offset = json["utc_offset_seconds"]?.integer.flatMap { abs($0) <= 18 * 3600 ? $0 : nil } ?? 0
        let timezone = json["timezone"]?.string.flatMap { $0.isEmpty ? nil : $0 }

        let current = decodeCurrent(json, offset: offset)
        let hourly = decodeHourly(json, offset: offset)
        let daily = decodeDaily(json, offset: offset)
        guard current != nil || !hourly.isEmpty || !daily.isEmpty else {
            throw failure("the response has no current, hourly or daily data")
        }

        return Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset, timezone: timezone, current: current, hourly: hourly, daily: daily)
    }

    // MARK: Sections

    private static func decodeCurrent(_ json: JSONValue, offset: Int) -> CurrentConditions? {
        guard let values = json["current"]?.object, let time = values["time"].flatMap({ date($0, offset: offset) })
        else { return nil }
        let units = json["current_units"]?.object ?? [:]
        func value(_ field: String, _ quantity: Quantity) -> Double? {
            quantity.canonical(values[field], unit: units[field]?.string)
        }
        return CurrentConditions(
            time: time,
            temperature: value("temperature_2m", .temperature),
            apparentTemperature: value("apparent_temperature", .temperature),
            humidity: value("relative_humidity_2m", .percent),
            windSpeed: value("wind_speed_10m", .speed),
            windDirection: value("wind_direction_10m", .direction),
            precipitation: value("precipitation", .precipitation),
            pressure: value("pressure_msl", .pressure),
            condition: values["weather_code"].flatMap(condition),
            isDay: values["is_day"]?.bool)
    }

    private static func decodeHourly(_ json: JSONValue, offset: Int) -> [HourlyForecast] {
        guard let section = Section(json, "hourly") else { return [] }
        let temperature = section.column("temperature_2m", .temperature)
        let apparent = section.column("apparent_temperature", .temperature)
        let humidity = section.column("relative_humidity_2m", .percent)
        let precipitation = section.column("precipitation", .precipitation)
        let probability = section.column("precipitation_probability", .percent)
        let windSpeed = section.column("wind_speed_10m", .speed)
        let windDirection = section.column("wind_direction_10m", .direction)
        let conditions = section.column("weather_code", condition)
        let isDay = section.column("is_day") { $0.bool }

        return section.times.indices.compactMap { index in
            guard let time = date(section.times[index], offset: offset) else { return nil }
            return HourlyForecast(
                time: time, temperature: temperature[index], apparentTemperature: apparent[index],
                humidity: humidity[index], precipitation: precipitation[index],
                precipitationProbability: probability[index], windSpeed: windSpeed[index],
                windDirection: windDirection[index], condition: conditions[index], isDay: isDay[index])
        }
    }

    private static func decodeDaily(_ json: JSONValue, offset: Int) -> [DailyForecast] {
        guard let section = Section(json, "daily") else { return [] }
        let maximum = section.column("temperature_2m_max", .temperature)
        let minimum = section.column("temperature_2m_min", .temperature)
        let conditions = section.column("weather_code", condition)
        let sum = section.column("precipitation_sum", .precipitation)
        let probability = section.column("precipitation_probability_max", .percent)
        let wind = section.column("wind_speed_10m_max", .speed)
        let sunrise = section.column("sunrise") { date($0, offset: offset) }
        let sunset = section.column("sunset") { date($0, offset: offset) }

        return section.times.indices.compactMap { index in
            guard let day = localDate(section.times[index], offset: offset) else { return nil }
            return DailyForecast(
                date: day, temperatureMin: minimum[index], temperatureMax: maximum[index],
                condition: conditions[index], precipitationProbability: probability[index],
                precipitationSum: sum[index], windSpeedMax: wind[index], sunrise: sunrise[index],
                sunset: sunset[index])
        }
    }

    // MARK: Values

    /// One of `hourly`/`daily`: parallel arrays indexed by its `time` array, with their units.
    private struct Section {
        let values: [String: JSONValue]
        let units: [String: JSONValue]
        let times: [JSONValue]

        init?(_ json: JSONValue, _ name: String) {
            guard let values = json[name]?.object, let times = values["time"]?.array, !times.isEmpty else {
                return nil
            }
            self.values = values
            self.units = json["\(name)_units"]?.object ?? [:]
            self.times = times
        }

        /// A field for every step; all nil when the field is missing or its array's length differs from
        /// `time`'s, since then no value can be trusted to belong to its step.
        func column<T>(_ field: String, _ read: (JSONValue) -> T?) -> [T?] {
            guard let array = values[field]?.array, array.count == times.count else {
                return Array(repeating: nil, count: times.count)
            }
            return array.map(read)
        }

        func column(_ field: String, _ quantity: Quantity) -> [Double?] {
            let unit = units[field]?.string
            return column(field) { quantity.canonical($0, unit: unit) }
        }
    }

    /// A physical quantity: how to bring it into canonical units and which values are believable.
    enum Quantity {
        case temperature, speed, precipitation, pressure, percent, direction

        /// The value in canonical units; nil when absent, null, of an unknown unit or out of range.
        func canonical(_ value: JSONValue?, unit: String?) -> Double? {
            guard let raw = value?.double, let convert = converter(unit) else { return nil }
            let converted = convert(raw)
            return range.contains(converted) ? converted : nil
        }

        /// The conversion from `unit` into canonical units. A missing unit means Open-Meteo's default,
        /// which is the canonical one; an unknown unit yields nil, because guessing would mislabel values.
        private func converter(_ unit: String?) -> ((Double) -> Double)? {
            let unit = unit?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            switch self {
            case .temperature:
                switch unit {
                case "", "°c", "celsius": return { $0 }
                case "°f", "fahrenheit": return CanonicalUnits.celsius(fromFahrenheit:)
                case "k", "kelvin": return CanonicalUnits.celsius(fromKelvin:)
                default: return nil
                }
            case .speed:
                switch unit {
                case "", "km/h", "kmh": return { $0 }
                case "m/s", "ms": return CanonicalUnits.kmh(fromMetresPerSecond:)
                case "mp/h", "mph": return CanonicalUnits.kmh(fromMph:)
                case "kn", "kt", "knots": return CanonicalUnits.kmh(fromKnots:)
                default: return nil
                }
            case .precipitation:
                switch unit {
                case "", "mm": return { $0 }
                case "inch", "in": return CanonicalUnits.millimetres(fromInches:)
                default: return nil
                }
            case .pressure:
                return unit == "" || unit == "hpa" ? { $0 } : nil
            case .percent:
                return unit == "" || unit == "%" ? { $0 } : nil
            case .direction:
                return unit == "" || unit == "°" ? { $0 } : nil
            }
        }

        /// Values outside these bounds are sensor or transfer errors, not weather.
        var range: ClosedRange<Double> {
            switch self {
            case .temperature: -100...70
            case .speed: 0...500
            case .precipitation: 0...2000
            case .pressure: 800...1100
            case .percent: 0...100
            case .direction: 0...360
            }
        }
    }

    private static func condition(_ value: JSONValue) -> ConditionKind? {
        value.integer.flatMap(ConditionKind.init(wmoCode:))
    }

    /// A local time without offset (`2026-09-15T12:00`), or Unix seconds when asked with `timeformat=unixtime`.
    private static func date(_ value: JSONValue, offset: Int) -> Date? {
        switch value {
        case .string(let text): Timestamps.parseLocal(text, utcOffsetSeconds: offset)
        case .number(let seconds) where seconds.isFinite: Date(timeIntervalSince1970: seconds)
        default: nil
        }
    }

    /// A daily step's local date, `YYYY-MM-DD`.
    private static func localDate(_ value: JSONValue, offset: Int) -> String? {
        switch value {
        case .string(let text):
            text.utf8.count == 10 && Timestamps.parseLocal(text, utcOffsetSeconds: 0) != nil ? text : nil
        case .number(let seconds) where seconds.isFinite:
            Timestamps.localDate(Date(timeIntervalSince1970: seconds), utcOffsetSeconds: offset)
        default: nil
        }
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
