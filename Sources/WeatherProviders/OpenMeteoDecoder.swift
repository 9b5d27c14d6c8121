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
    public static let providerName = ProviderName.openMeteo.rawValue
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
        let header = try OpenMeteoBodyHeader(json, requested: requested, provider: providerName)
        let coordinate = header.coordinate
        let offset = header.utcOffsetSeconds
        // A zone name the system does not know is not trusted.
        let timezone = json["timezone"]?.string.flatMap { TimeZone(identifier: $0) == nil ? nil : $0 }

        var current = decodeCurrent(json, offset: offset)
        let hourly = decodeHourly(json, offset: offset)
        let daily = decodeDaily(json, offset: offset)
        guard current != nil || !hourly.isEmpty || !daily.isEmpty else {
            throw failure("the response has no current, hourly or daily data")
        }
        // UV index and visibility are asked hourly only (each variable costs); now's come from the hour
        // that contains the current time.
        if var now = current,
            let hour = hourly.last(where: { $0.time <= now.time && now.time.timeIntervalSince($0.time) < 3600 })
        {
            now.uvIndex = now.uvIndex ?? hour.uvIndex
            now.visibility = now.visibility ?? hour.visibility
            current = now
        }

        var forecast = Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset, timezone: timezone, current: current, hourly: hourly, daily: daily,
            shortTerm: decodeQuarterHours(json, offset: offset, hourly: hourly, coordinate: coordinate))
        DayNight.fill(&forecast)
        return forecast
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
            isDay: values["is_day"]?.bool,
            dewPoint: value("dew_point_2m", .temperature),
            windGusts: value("wind_gusts_10m", .speed),
            cloudCover: value("cloud_cover", .percent),
            uvIndex: value("uv_index", .uvIndex),
            visibility: value("visibility", .visibility))
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
        let dewPoint = section.column("dew_point_2m", .temperature)
        let gusts = section.column("wind_gusts_10m", .speed)
        let pressure = section.column("pressure_msl", .pressure)
        let cloudCover = section.column("cloud_cover", .percent)
        let uvIndex = section.column("uv_index", .uvIndex)
        let visibility = section.column("visibility", .visibility)

        var steps: [HourlyForecast] = []
        for index in section.times.indices {
            // A step out of order or repeated cannot be placed on the time line: it is dropped.
            guard let time = date(section.times[index], offset: offset), time > (steps.last?.time ?? .distantPast)
            else { continue }
            steps.append(
                HourlyForecast(
                    time: time, temperature: temperature[index], apparentTemperature: apparent[index],
                    humidity: humidity[index], precipitation: precipitation[index],
                    precipitationProbability: probability[index], windSpeed: windSpeed[index],
                    windDirection: windDirection[index], condition: conditions[index], isDay: isDay[index],
                    dewPoint: dewPoint[index], windGusts: gusts[index], pressure: pressure[index],
                    cloudCover: cloudCover[index], uvIndex: uvIndex[index], visibility: visibility[index]))
        }
        return steps
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
        let gusts = section.column("wind_gusts_10m_max", .speed)
        let uvIndex = section.column("uv_index_max", .uvIndex)

        var days: [DailyForecast] = []
        for index in section.times.indices {
            guard let day = localDate(section.times[index], offset: offset), day > (days.last?.date ?? "")
            else { continue }
            // A min above the max means one of them is wrong, and nothing says which.
            var low = minimum[index]
            var high = maximum[index]
            if let l = low, let h = high, l > h { (low, high) = (nil, nil) }
            days.append(
                DailyForecast(
                    date: day, temperatureMin: low, temperatureMax: high,
                    condition: conditions[index], precipitationProbability: probability[index],
                    precipitationSum: sum[index], windSpeedMax: wind[index], sunrise: sunrise[index],
                    sunset: sunset[index], windGustsMax: gusts[index], uvIndexMax: uvIndex[index]))
        }
        return days
    }

    /// The most quarter hours kept: a day's worth, should a configured URL ask for more.
    static let maximumQuarterHours = 96

    /// `minutely_15` precipitation as 15-minute periods, for the nowcast.
    ///
    /// Each value is the sum over the 15 minutes before its time. Its chance of precipitation is the
    /// hourly `precipitation_probability` of the hour holding it (which Open-Meteo also gives for the
    /// hour before its time). ``ShortTermPrecipitation/interpolated`` says whether the grid cell lies
    /// where a 15-minute model serves (``OpenMeteoQuarterHour``). nil without a precipitation column.
    private static func decodeQuarterHours(
        _ json: JSONValue, offset: Int, hourly: [HourlyForecast], coordinate: Coordinate
    ) -> ShortTermPrecipitation? {
        guard let section = Section(json, "minutely_15"), section.values["precipitation"] != nil else { return nil }
        let amounts = section.column("precipitation", .precipitation)
        var periods: [PrecipitationPeriod] = []
        for index in section.times.indices {
            // A step out of order, repeated or closer than 15 minutes to the last would overlap it.
            guard let end = date(section.times[index], offset: offset),
                periods.last.map({ end.timeIntervalSince($0.end) >= 15 * 60 }) ?? true
            else { continue }
            let start = end.addingTimeInterval(-15 * 60)
            let hour = hourly.first { $0.time >= end && $0.time.timeIntervalSince(start) <= 3600 }
            periods.append(
                PrecipitationPeriod(
                    start: start, end: end, amount: amounts[index], probability: hour?.precipitationProbability))
            if periods.count == maximumQuarterHours { break }
        }
        guard !periods.isEmpty else { return nil }
        return ShortTermPrecipitation(periods: periods, interpolated: !OpenMeteoQuarterHour.isNative(at: coordinate))
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

    private static func condition(_ value: JSONValue) -> ConditionKind? {
        value.integer.flatMap(ConditionKind.init(wmoCode:))
    }

    /// A local time without offset (`2026-09-15T12:00`), or Unix seconds when asked with `timeformat=unixtime`.
    static func date(_ value: JSONValue, offset: Int) -> Date? {
        switch value {
        case .string(let text): Timestamps.parseLocal(text, utcOffsetSeconds: offset)
        case .number(let seconds): Timestamps.plausibleDate(unixSeconds: seconds)
        default: nil
        }
    }

    /// A daily step's local date, `YYYY-MM-DD`.
    private static func localDate(_ value: JSONValue, offset: Int) -> String? {
        switch value {
        case .string(let text):
            text.utf8.count == 10 && Timestamps.parseLocal(text, utcOffsetSeconds: 0) != nil ? text : nil
        case .number(let seconds):
            Timestamps.plausibleDate(unixSeconds: seconds).map { Timestamps.localDate($0, utcOffsetSeconds: offset) }
        default: nil
        }
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
