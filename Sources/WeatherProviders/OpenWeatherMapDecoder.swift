import ForecastModel
import Foundation

/// Maps OpenWeatherMap bodies onto a ``Forecast`` in canonical metric units: current weather
/// (`/data/2.5/weather`) with the 5 day / 3 hour forecast (`/data/2.5/forecast`), or One Call 3.0
/// (`/data/3.0/onecall`).
///
/// Pure: no I/O, no clock. The bodies carry no unit names, so the caller says which `units=` was asked.
public enum OpenWeatherMapDecoder {
    /// The stable provider identifier.
    public static let providerName = ProviderName.openWeatherMap.rawValue
    /// The attribution OpenWeather's terms ask for.
    public static let attribution = "Weather data provided by OpenWeather (openweathermap.org)"
    /// What the free forecast lacks, said in every forecast built from it.
    public static let fiveDayNote =
        "\(providerName): the free 5 day / 3 hour forecast covers 5 days (not today + 6) in 3-hour steps"

    /// The `units=` a request asked for. forecastd always asks `metric`; recordings exist in the others.
    public enum Units: String, Sendable, CaseIterable {
        /// °C, m/s.
        case metric
        /// °F, mph.
        case imperial
        /// K, m/s (OpenWeatherMap's default when `units` is absent).
        case standard

        var temperatureUnit: String {
            switch self {
            case .metric: "celsius"
            case .imperial: "fahrenheit"
            case .standard: "kelvin"
            }
        }

        var speedUnit: String { self == .imperial ? "mph" : "m/s" }
    }

    /// Decodes current weather and the 5 day / 3 hour forecast, received together at `fetchedAt`.
    ///
    /// Hourly steps are the forecast's 3-hour steps from the one containing `fetchedAt`, for 48 hours;
    /// days are built from the steps in the location's local time (`city.timezone`) and the current
    /// temperature. Either body may be missing (nil); at least one must be usable.
    public static func decode(
        current currentBody: [UInt8]?, forecast forecastBody: [UInt8]?, units: Units, fetchedAt: Date
    ) throws(ProviderError) -> Forecast {
        let currentJSON = currentBody.flatMap { JSONValue.parse(Data($0)) }
        let forecastJSON = forecastBody.flatMap { JSONValue.parse(Data($0)) }
        guard currentJSON?.object != nil || forecastJSON?.object != nil else {
            throw failure("the response is not JSON")
        }
        let reader = Reader(units: units)
        let current = currentJSON.flatMap(reader.current)
        let city = forecastJSON?["city"]

        guard
            let coordinate = reader.coordinate(currentJSON?["coord"]) ?? reader.coordinate(city?["coord"])
        else { throw failure("the response has no valid coord") }
        let offset =
            (currentJSON?["timezone"]?.integer ?? city?["timezone"]?.integer).flatMap {
                abs($0) <= 18 * 3600 ? $0 : nil
            } ?? Int((coordinate.longitude / 15).rounded()) * 3600

        var steps: [(time: Date, entry: JSONValue)] = []
        for entry in forecastJSON?["list"]?.array ?? [] {
            guard let seconds = entry["dt"]?.double, let time = Timestamps.plausibleDate(unixSeconds: seconds) else {
                continue
            }
            guard time > (steps.last?.time ?? .distantPast) else { continue }
            steps.append((time, entry))
        }
        guard current != nil || !steps.isEmpty else {
            throw failure("the response has no current weather and no forecast steps")
        }

        let now = current?.time ?? fetchedAt
        let horizon = now.addingTimeInterval(48 * 3600)
        let hourly = steps.filter { $0.time.addingTimeInterval(3 * 3600) > now && $0.time < horizon }
            .map { reader.hour($0.entry, time: $0.time, hours: 3) }

        let today = Timestamps.localDate(now, utcOffsetSeconds: offset)
        var builder = DailyBuilder { Timestamps.localDate($0, utcOffsetSeconds: offset) }
        if let current, let temperature = current.temperature {
            builder.add(DailyBuilder.Step(time: current.time, duration: 0, temperature: temperature))
        }
        for (time, entry) in steps where builder.localDate(time) >= today {
            let hour = reader.hour(entry, time: time, hours: 3)
            builder.add(
                DailyBuilder.Step(
                    time: time, duration: 3 * 3600, temperature: hour.temperature,
                    temperatureMin: reader.value(entry["main"]?["temp_min"], .temperature),
                    temperatureMax: reader.value(entry["main"]?["temp_max"], .temperature),
                    precipitation: hour.precipitation.map { $0 * 3 },
                    precipitationProbability: hour.precipitationProbability, windSpeed: hour.windSpeed,
                    windGusts: hour.windGusts, condition: hour.condition))
        }
        var daily = builder.build(minimumSteps: 4)
        if let sunrise = reader.date(currentJSON?["sys"]?["sunrise"]),
            let sunset = reader.date(currentJSON?["sys"]?["sunset"]),
            let index = daily.firstIndex(where: { $0.date == Timestamps.localDate(sunrise, utcOffsetSeconds: offset) })
        {
            daily[index].sunrise = sunrise
            daily[index].sunset = sunset
        }
        DayNight.fillSunEvents(&daily, coordinate: coordinate) { _ in offset }

        var forecast = Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset, timezone: nil, current: current, hourly: hourly, daily: daily,
            notes: steps.isEmpty ? [] : [fiveDayNote])
        DayNight.fill(&forecast)
        return forecast
    }

    /// Decodes a One Call 3.0 answer: current, 48 hourly steps and daily summaries (at most 7: today + 6).
    /// Weather alerts become notes.
    public static func decode(oneCall body: [UInt8], units: Units, fetchedAt: Date) throws(ProviderError) -> Forecast {
        guard let json = JSONValue.parse(Data(body)) else { throw failure("the response is not JSON") }
        guard json.object != nil else { throw failure("the response is JSON but not an object") }
        let reader = Reader(units: units)
        guard let coordinate = reader.coordinate(json) else { throw failure("the response has no valid lat and lon") }
        let offset =
            json["timezone_offset"]?.integer.flatMap { abs($0) <= 18 * 3600 ? $0 : nil }
            ?? Int((coordinate.longitude / 15).rounded()) * 3600
        let timezone = json["timezone"]?.string.flatMap { TimeZone(identifier: $0) == nil ? nil : $0 }

        let current = json["current"].flatMap { reader.oneCallCurrent($0) }
        var hourly: [HourlyForecast] = []
        for entry in json["hourly"]?.array ?? [] {
            guard let time = reader.date(entry["dt"]), time > (hourly.last?.time ?? .distantPast) else { continue }
            hourly.append(reader.hour(entry, time: time, hours: 1))
        }
        hourly = Array(hourly.prefix(48))
        var daily: [DailyForecast] = []
        for entry in json["daily"]?.array ?? [] {
            guard let time = reader.date(entry["dt"]) else { continue }
            let date = Timestamps.localDate(time, utcOffsetSeconds: offset)
            guard date > (daily.last?.date ?? "") else { continue }
            daily.append(reader.day(entry, date: date))
        }
        daily = Array(daily.prefix(7))
        guard current != nil || !hourly.isEmpty || !daily.isEmpty else {
            throw failure("the response has no current, hourly or daily data")
        }

        var notes: [String] = []
        for alert in json["alerts"]?.array ?? [] {
            guard let event = alert["event"]?.string else { continue }
            var text = "\(providerName): alert: \(event)"
            if let sender = alert["sender_name"]?.string { text += " (\(sender))" }
            if let end = reader.date(alert["end"]) {
                text += " until \(Timestamps.rfc3339(end, utcOffsetSeconds: offset))"
            }
            notes.append(text)
        }
        var forecast = Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset, timezone: timezone, current: current, hourly: hourly, daily: daily, notes: notes)
        DayNight.fill(&forecast)
        return forecast
    }

    /// The error an answer reports in its body, by `cod` (a number or a string): nil for `200`
    /// or when there is no `cod`.
    static func reportedError(_ json: JSONValue?) -> (code: Int, message: String?)? {
        guard let code = json?["cod"]?.integer, code != 200 else { return nil }
        return (code, json?["message"]?.string)
    }

    /// Reads fields in the request's units.
    private struct Reader {
        let units: Units

        func value(_ value: JSONValue?, _ quantity: Quantity) -> Double? {
            let unit: String? =
                switch quantity {
                case .temperature: units.temperatureUnit
                case .speed: units.speedUnit
                default: nil
                }
            return quantity.canonical(value, unit: unit)
        }

        func date(_ value: JSONValue?) -> Date? {
            value?.double.flatMap(Timestamps.plausibleDate(unixSeconds:))
        }

        func coordinate(_ value: JSONValue?) -> Coordinate? {
            guard let latitude = value?["lat"]?.double, let longitude = value?["lon"]?.double,
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { return nil }
            return Coordinate(latitude: latitude, longitude: longitude)
        }

        /// The condition and day/night of a `weather` array's first entry.
        func condition(_ entry: JSONValue?) -> (ConditionKind?, Bool?) {
            let first = entry?["weather"]?.array?.first
            return (
                first?["id"]?.integer.flatMap(ConditionKind.init(openWeatherMapCode:)),
                first?["icon"]?.string.flatMap(ConditionKind.openWeatherMapIsDay(icon:))
            )
        }

        /// Rain plus snow over the last hour (`rain.1h`), or over 3 hours (`rain.3h`), or One Call's
        /// daily total (a bare number); nil when present but unreadable.
        func precipitation(_ entry: JSONValue, key: String) -> Double? {
            // OpenWeatherMap leaves `rain` and `snow` out when none falls: absent means 0.
            guard entry["rain"] != nil || entry["snow"] != nil else { return 0 }
            let parts = [entry["rain"], entry["snow"]].compactMap { part -> Double? in
                guard let part else { return nil }
                return Quantity.precipitation.canonical(part.object == nil ? part : part[key], unit: nil)
            }
            return parts.isEmpty ? nil : parts.reduce(0, +)
        }

        /// `/data/2.5/weather`.
        func current(_ json: JSONValue) -> CurrentConditions? {
            guard json.object != nil, let time = date(json["dt"]) else { return nil }
            let main = json["main"]
            let (kind, isDay) = condition(json)
            return CurrentConditions(
                time: time, temperature: value(main?["temp"], .temperature),
                apparentTemperature: value(main?["feels_like"], .temperature),
                humidity: value(main?["humidity"], .percent), windSpeed: value(json["wind"]?["speed"], .speed),
                windDirection: value(json["wind"]?["deg"], .direction), precipitation: precipitation(json, key: "1h"),
                pressure: value(main?["sea_level"] ?? main?["pressure"], .pressure), condition: kind, isDay: isDay,
                windGusts: value(json["wind"]?["gust"], .speed), cloudCover: value(json["clouds"]?["all"], .percent),
                visibility: value(json["visibility"], .visibility))
        }

        /// One Call's `current`.
        func oneCallCurrent(_ json: JSONValue) -> CurrentConditions? {
            guard json.object != nil, let time = date(json["dt"]) else { return nil }
            let (kind, isDay) = condition(json)
            return CurrentConditions(
                time: time, temperature: value(json["temp"], .temperature),
                apparentTemperature: value(json["feels_like"], .temperature),
                humidity: value(json["humidity"], .percent),
                windSpeed: value(json["wind_speed"], .speed), windDirection: value(json["wind_deg"], .direction),
                precipitation: precipitation(json, key: "1h"), pressure: value(json["pressure"], .pressure),
                condition: kind, isDay: isDay, dewPoint: value(json["dew_point"], .temperature),
                windGusts: value(json["wind_gust"], .speed), cloudCover: value(json["clouds"], .percent),
                uvIndex: value(json["uvi"], .uvIndex), visibility: value(json["visibility"], .visibility))
        }

        /// A forecast step: One Call's hourly entries (flat) or the 5-day forecast's (under `main`, `wind`).
        /// Precipitation is per hour: a 3-hour amount is spread evenly.
        func hour(_ entry: JSONValue, time: Date, hours: Int) -> HourlyForecast {
            let main = entry["main"] ?? entry
            let wind = entry["wind"]
            let (kind, iconIsDay) = condition(entry)
            let partOfDay = entry["sys"]?["pod"]?.string.flatMap { $0 == "d" ? true : $0 == "n" ? false : nil }
            let clouds = entry["clouds"]?["all"] ?? entry["clouds"]
            return HourlyForecast(
                time: time, temperature: value(main["temp"], .temperature),
                apparentTemperature: value(main["feels_like"], .temperature),
                humidity: value(main["humidity"], .percent),
                precipitation: precipitation(entry, key: "\(hours)h").map { $0 / Double(hours) },
                precipitationProbability: entry["pop"]?.double.flatMap {
                    (0...1).contains($0) ? ($0 * 100).rounded() : nil
                },
                windSpeed: value(wind?["speed"] ?? entry["wind_speed"], .speed),
                windDirection: value(wind?["deg"] ?? entry["wind_deg"], .direction), condition: kind,
                isDay: iconIsDay ?? partOfDay, dewPoint: value(main["dew_point"], .temperature),
                windGusts: value(wind?["gust"] ?? entry["wind_gust"], .speed),
                pressure: value(main["sea_level"] ?? main["pressure"], .pressure), cloudCover: value(clouds, .percent),
                uvIndex: value(entry["uvi"], .uvIndex), visibility: value(entry["visibility"], .visibility))
        }

        /// One Call's daily entry.
        func day(_ entry: JSONValue, date: String) -> DailyForecast {
            var low = value(entry["temp"]?["min"], .temperature)
            var high = value(entry["temp"]?["max"], .temperature)
            if let l = low, let h = high, l > h { (low, high) = (nil, nil) }
            return DailyForecast(
                date: date, temperatureMin: low, temperatureMax: high, condition: condition(entry).0,
                precipitationProbability: entry["pop"]?.double.flatMap {
                    (0...1).contains($0) ? ($0 * 100).rounded() : nil
                },
                precipitationSum: precipitation(entry, key: "1d"), windSpeedMax: value(entry["wind_speed"], .speed),
                sunrise: self.date(entry["sunrise"]), sunset: self.date(entry["sunset"]),
                windGustsMax: value(entry["wind_gust"], .speed), uvIndexMax: value(entry["uvi"], .uvIndex))
        }
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
