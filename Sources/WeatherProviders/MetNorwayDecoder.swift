import ForecastModel
import Foundation

/// Maps a MET Norway Locationforecast 2.0 body (`compact` or `complete`) onto a ``Forecast`` in
/// canonical metric units.
///
/// The service sends one GeoJSON time series in UTC (hourly for about 60 hours, then 6-hourly) and no
/// daily summaries and no time zone: days are built here from the series in the location's time zone,
/// which the caller supplies (the daemon knows it from the place name); without it the offset is
/// estimated from the longitude (15° an hour), and the forecast says so in ``Forecast/notes``.
///
/// Pure: no I/O, no clock (the moment to call "now" is a parameter).
public enum MetNorwayDecoder {
    /// The stable provider identifier.
    public static let providerName = ProviderName.metNorway.rawValue
    /// The attribution MET Norway's CC BY 4.0 licence asks for.
    public static let attribution = "Weather data from MET Norway (CC BY 4.0)"
    /// How many hours of `next_1_hours` the nowcast's periods hold: the 2 hours ahead and the hour
    /// holding now, with room for an hour-old answer.
    static let shortTermHours = 4

    /// Decodes a response body.
    ///
    /// - Parameters:
    ///   - fetchedAt: when the body was received (stamped on the forecast).
    ///   - now: the moment that is "now": the step containing it is the current conditions, and the
    ///     hourly steps start there.
    ///   - timeZone: the location's time zone, when known.
    ///   - requested: the point asked for, used when the body has no coordinates of its own.
    /// - Throws: ``ProviderError`` of kind `badResponse` when the body is not a usable forecast.
    public static func decode(
        _ body: some Sequence<UInt8>, fetchedAt: Date, now: Date, timeZone: TimeZone?, requested: Coordinate? = nil
    ) throws(ProviderError) -> Forecast {
        guard let json = JSONValue.parse(Data(body)) else { throw failure("the response is not JSON") }
        return try decode(json: json, fetchedAt: fetchedAt, now: now, timeZone: timeZone, requested: requested)
    }

    /// One entry of `properties.timeseries`, with the period that follows it chosen.
    private struct Step {
        var time: Date
        var instant: [String: JSONValue]
        var next1: JSONValue?
        var next6: JSONValue?
        var next12: JSONValue?
    }

    static func decode(
        json: JSONValue, fetchedAt: Date, now: Date, timeZone: TimeZone?, requested: Coordinate?
    ) throws(ProviderError) -> Forecast {
        guard json.object != nil else { throw failure("the response is JSON but not an object") }
        guard let series = json["properties"]?["timeseries"]?.array else {
            throw failure("the response has no properties.timeseries")
        }
        let coordinate = try position(json, requested: requested)
        let units = Units(json["properties"]?["meta"]?["units"]?.object ?? [:])
        let steps = try steps(series)
        let currentIndex = try currentIndex(steps, now: now)

        var notes: [String] = []
        let fallbackOffset = Int((coordinate.longitude / 15).rounded()) * 3600
        if timeZone == nil {
            notes.append(
                "\(providerName): the location's time zone is unknown, so days are counted at UTC"
                    + "\(fallbackOffset < 0 ? "−" : "+")\(String(format: "%02d:00", abs(fallbackOffset) / 3600))"
                    + " (estimated from the longitude)")
        }
        let offset: (Date) -> Int = { timeZone?.secondsFromGMT(for: $0) ?? fallbackOffset }

        let present = hourly(steps[currentIndex], units: units)
        let horizon = present.time.addingTimeInterval(48 * 3600)
        let hours = steps[currentIndex...].prefix { $0.time < horizon }.map { hourly($0, units: units) }
        let periods = shortTerm(steps[currentIndex...], units: units)
        let today = Timestamps.localDate(present.time, utcOffsetSeconds: offset(present.time))
        var days = daily(steps, from: today, units: units, offset: offset)
        DayNight.fillSunEvents(&days, coordinate: coordinate) { date in
            offset(Timestamps.parseLocal(date + "T12:00", utcOffsetSeconds: fallbackOffset) ?? present.time)
        }

        var forecast = Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset(present.time), timezone: timeZone?.identifier, current: current(present),
            hourly: hours, daily: days, notes: notes,
            shortTerm: periods.isEmpty ? nil : ShortTermPrecipitation(periods: periods, interpolated: true))
        DayNight.fill(&forecast)
        return forecast
    }

    /// The answer's own position (`geometry.coordinates`, longitude first), else the one asked for.
    private static func position(_ json: JSONValue, requested: Coordinate?) throws(ProviderError) -> Coordinate {
        if let position = json["geometry"]?["coordinates"]?.array, position.count >= 2,
            let longitude = position[0].double, let latitude = position[1].double,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            return Coordinate(latitude: latitude, longitude: longitude)
        }
        guard let requested else { throw failure("the response has no valid geometry.coordinates") }
        return requested
    }

    /// The series' steps in time order; a step without a time, or out of order, cannot be placed on the
    /// time line and is left out.
    private static func steps(_ series: [JSONValue]) throws(ProviderError) -> [Step] {
        var steps: [Step] = []
        for entry in series {
            guard let text = entry["time"]?.string, let time = Timestamps.parseUTC(text),
                time > (steps.last?.time ?? .distantPast)
            else { continue }
            let data = entry["data"]
            steps.append(
                Step(
                    time: time, instant: data?["instant"]?["details"]?.object ?? [:], next1: data?["next_1_hours"],
                    next6: data?["next_6_hours"], next12: data?["next_12_hours"]))
        }
        guard !steps.isEmpty else { throw failure("the response has no forecast steps") }
        return steps
    }

    /// The step holding "now": the last one at or before it. A series that starts in the future (a clock
    /// slightly behind) starts with its first step; one that ended hours ago is out of date.
    private static func currentIndex(_ steps: [Step], now: Date) throws(ProviderError) -> Int {
        let index = steps.lastIndex { $0.time <= now } ?? 0
        guard steps[index].time.timeIntervalSince(now) < 3600, now.timeIntervalSince(steps[index].time) < 6 * 3600
        else {
            throw failure(
                "the forecast steps (\(Timestamps.rfc3339(steps[0].time)) to "
                    + "\(Timestamps.rfc3339(steps[steps.count - 1].time))) do not cover now")
        }
        return index
    }

    /// The answer's `meta.units`, by which each value is read in canonical units.
    private struct Units {
        let units: [String: JSONValue]
        init(_ units: [String: JSONValue]) { self.units = units }

        func value(_ details: [String: JSONValue]?, _ field: String, _ quantity: Quantity) -> Double? {
            quantity.canonical(details?[field], unit: units[field]?.string)
        }
    }

    private static func symbol(_ period: JSONValue?) -> String? { period?["summary"]?["symbol_code"]?.string }

    /// One step as an hour: its instant values, and its next hour's (else next 6 hours') weather.
    private static func hourly(_ step: Step, units: Units) -> HourlyForecast {
        let next1 = step.next1?["details"]?.object
        let code = symbol(step.next1) ?? symbol(step.next6)
        return HourlyForecast(
            time: step.time,
            temperature: units.value(step.instant, "air_temperature", .temperature),
            humidity: units.value(step.instant, "relative_humidity", .percent),
            precipitation: units.value(next1, "precipitation_amount", .precipitation),
            precipitationProbability: units.value(next1, "probability_of_precipitation", .percent),
            windSpeed: units.value(step.instant, "wind_speed", .speed),
            windDirection: units.value(step.instant, "wind_from_direction", .direction),
            condition: code.flatMap(ConditionKind.init(metNorwaySymbol:)),
            isDay: code.flatMap(ConditionKind.metNorwayIsDay),
            dewPoint: units.value(step.instant, "dew_point_temperature", .temperature),
            windGusts: units.value(step.instant, "wind_speed_of_gust", .speed),
            pressure: units.value(step.instant, "air_pressure_at_sea_level", .pressure),
            cloudCover: units.value(step.instant, "cloud_area_fraction", .percent),
            uvIndex: units.value(step.instant, "ultraviolet_index_clear_sky", .uvIndex))
    }

    /// The current conditions: the hour holding now.
    private static func current(_ present: HourlyForecast) -> CurrentConditions {
        CurrentConditions(
            time: present.time, temperature: present.temperature, humidity: present.humidity,
            windSpeed: present.windSpeed,
            windDirection: present.windDirection, precipitation: present.precipitation, pressure: present.pressure,
            condition: present.condition, isDay: present.isDay, dewPoint: present.dewPoint,
            windGusts: present.windGusts,
            cloudCover: present.cloudCover, uvIndex: present.uvIndex)
    }

    /// The nowcast's periods, for when MET Norway serves instead of Open-Meteo: each step's next hour
    /// (`next_1_hours`), from the one holding now. Whole hours, coarser than a 15-minute model: the caller
    /// marks them interpolated.
    private static func shortTerm(_ steps: ArraySlice<Step>, units: Units) -> [PrecipitationPeriod] {
        var periods: [PrecipitationPeriod] = []
        for step in steps {
            guard periods.count < shortTermHours, let next1 = step.next1?["details"]?.object else { break }
            periods.append(
                PrecipitationPeriod(
                    start: step.time, end: step.time.addingTimeInterval(3600),
                    amount: units.value(next1, "precipitation_amount", .precipitation),
                    probability: units.value(next1, "probability_of_precipitation", .percent)))
        }
        return periods
    }

    /// Days, from the first step of local date `today` on, in the location's offset.
    private static func daily(
        _ steps: [Step], from today: String, units: Units, offset: @escaping (Date) -> Int
    ) -> [DailyForecast] {
        var builder = DailyBuilder { Timestamps.localDate($0, utcOffsetSeconds: offset($0)) }
        var coveredUntil = Date.distantPast
        for (index, step) in steps.enumerated() {
            guard builder.localDate(step.time) >= today else { continue }
            let gap = index + 1 < steps.count ? steps[index + 1].time.timeIntervalSince(step.time) : 6 * 3600
            // The period that matches the spacing of the series: 1 hour where steps are hourly, 6 hours
            // where they are 6-hourly; amounts of overlapping periods are never counted twice.
            let (period, duration): (JSONValue?, TimeInterval) =
                gap >= 6 * 3600 || step.next1 == nil ? (step.next6, 6 * 3600) : (step.next1, 3600)
            let details = period?["details"]?.object
            var amount = units.value(details, "precipitation_amount", .precipitation)
            if step.time < coveredUntil {
                amount = nil
            } else if amount != nil {
                coveredUntil = step.time.addingTimeInterval(duration)
            }
            builder.add(
                DailyBuilder.Step(
                    time: step.time, duration: duration,
                    temperature: units.value(step.instant, "air_temperature", .temperature),
                    temperatureMin: duration > 3600 ? units.value(details, "air_temperature_min", .temperature) : nil,
                    temperatureMax: duration > 3600 ? units.value(details, "air_temperature_max", .temperature) : nil,
                    precipitation: amount,
                    precipitationProbability: units.value(details, "probability_of_precipitation", .percent),
                    windSpeed: units.value(step.instant, "wind_speed", .speed),
                    windGusts: units.value(step.instant, "wind_speed_of_gust", .speed),
                    uvIndex: units.value(step.instant, "ultraviolet_index_clear_sky", .uvIndex),
                    condition: (symbol(period) ?? symbol(step.next12)).flatMap(ConditionKind.init(metNorwaySymbol:))))
        }
        // A 6-hourly day has 4 steps; fewer (the series' last, cut-off day) would show a false range.
        return builder.build(minimumSteps: 4)
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
