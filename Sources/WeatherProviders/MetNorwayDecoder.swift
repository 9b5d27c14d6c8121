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

        let coordinate: Coordinate
        if let position = json["geometry"]?["coordinates"]?.array, position.count >= 2,
            let longitude = position[0].double, let latitude = position[1].double,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            coordinate = Coordinate(latitude: latitude, longitude: longitude)
        } else if let requested {
            coordinate = requested
        } else {
            throw failure("the response has no valid geometry.coordinates")
        }
        let units = json["properties"]?["meta"]?["units"]?.object ?? [:]

        var steps: [Step] = []
        for entry in series {
            // A step without a time, or out of order, cannot be placed on the time line.
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

        var notes: [String] = []
        let fallbackOffset = Int((coordinate.longitude / 15).rounded()) * 3600
        if timeZone == nil {
            notes.append(
                "\(providerName): the location's time zone is unknown, so days are counted at UTC"
                    + "\(fallbackOffset < 0 ? "−" : "+")\(String(format: "%02d:00", abs(fallbackOffset) / 3600))"
                    + " (estimated from the longitude)")
        }
        func offset(at date: Date) -> Int { timeZone?.secondsFromGMT(for: date) ?? fallbackOffset }
        func value(_ details: [String: JSONValue]?, _ field: String, _ quantity: Quantity) -> Double? {
            quantity.canonical(details?[field], unit: units[field]?.string)
        }
        func symbol(_ period: JSONValue?) -> String? { period?["summary"]?["symbol_code"]?.string }

        // The step holding "now": the last one at or before it. A series that starts in the future
        // (a clock slightly behind) starts with its first step; one that ended hours ago is out of date.
        let currentIndex = steps.lastIndex { $0.time <= now } ?? 0
        let seriesIsCurrent =
            steps[currentIndex].time.timeIntervalSince(now) < 3600
            && now.timeIntervalSince(steps[currentIndex].time) < 6 * 3600
        guard seriesIsCurrent else {
            throw failure(
                "the forecast steps (\(Timestamps.rfc3339(steps[0].time)) to "
                    + "\(Timestamps.rfc3339(steps[steps.count - 1].time))) do not cover now")
        }

        func hourly(_ step: Step) -> HourlyForecast {
            let next1 = step.next1?["details"]?.object
            let code = symbol(step.next1) ?? symbol(step.next6)
            return HourlyForecast(
                time: step.time,
                temperature: value(step.instant, "air_temperature", .temperature),
                humidity: value(step.instant, "relative_humidity", .percent),
                precipitation: value(next1, "precipitation_amount", .precipitation),
                precipitationProbability: value(next1, "probability_of_precipitation", .percent),
                windSpeed: value(step.instant, "wind_speed", .speed),
                windDirection: value(step.instant, "wind_from_direction", .direction),
                condition: code.flatMap(ConditionKind.init(metNorwaySymbol:)),
                isDay: code.flatMap(ConditionKind.metNorwayIsDay),
                dewPoint: value(step.instant, "dew_point_temperature", .temperature),
                windGusts: value(step.instant, "wind_speed_of_gust", .speed),
                pressure: value(step.instant, "air_pressure_at_sea_level", .pressure),
                cloudCover: value(step.instant, "cloud_area_fraction", .percent),
                uvIndex: value(step.instant, "ultraviolet_index_clear_sky", .uvIndex))
        }

        let present = hourly(steps[currentIndex])
        let current = CurrentConditions(
            time: present.time, temperature: present.temperature, humidity: present.humidity,
            windSpeed: present.windSpeed,
            windDirection: present.windDirection, precipitation: present.precipitation, pressure: present.pressure,
            condition: present.condition, isDay: present.isDay, dewPoint: present.dewPoint,
            windGusts: present.windGusts,
            cloudCover: present.cloudCover, uvIndex: present.uvIndex)
        let horizon = present.time.addingTimeInterval(48 * 3600)
        let hours = steps[currentIndex...].prefix { $0.time < horizon }.map(hourly)

        // The nowcast's periods, for when MET Norway serves instead of Open-Meteo: each step's next hour
        // (`next_1_hours`), from the one holding now. Whole hours, coarser than a 15-minute model:
        // marked interpolated.
        var periods: [PrecipitationPeriod] = []
        for step in steps[currentIndex...] {
            guard periods.count < shortTermHours, let next1 = step.next1?["details"]?.object else { break }
            periods.append(
                PrecipitationPeriod(
                    start: step.time, end: step.time.addingTimeInterval(3600),
                    amount: value(next1, "precipitation_amount", .precipitation),
                    probability: value(next1, "probability_of_precipitation", .percent)))
        }

        // Days, from the first step of today's local date on.
        let today = Timestamps.localDate(present.time, utcOffsetSeconds: offset(at: present.time))
        var builder = DailyBuilder { Timestamps.localDate($0, utcOffsetSeconds: offset(at: $0)) }
        var coveredUntil = Date.distantPast
        for (index, step) in steps.enumerated() {
            guard builder.localDate(step.time) >= today else { continue }
            let gap = index + 1 < steps.count ? steps[index + 1].time.timeIntervalSince(step.time) : 6 * 3600
            // The period that matches the spacing of the series: 1 hour where steps are hourly, 6 hours
            // where they are 6-hourly; amounts of overlapping periods are never counted twice.
            let (period, duration): (JSONValue?, TimeInterval) =
                gap >= 6 * 3600 || step.next1 == nil ? (step.next6, 6 * 3600) : (step.next1, 3600)
            let details = period?["details"]?.object
            var amount = value(details, "precipitation_amount", .precipitation)
            if step.time < coveredUntil {
                amount = nil
            } else if amount != nil {
                coveredUntil = step.time.addingTimeInterval(duration)
            }
            builder.add(
                DailyBuilder.Step(
                    time: step.time, duration: duration,
                    temperature: value(step.instant, "air_temperature", .temperature),
                    temperatureMin: duration > 3600 ? value(details, "air_temperature_min", .temperature) : nil,
                    temperatureMax: duration > 3600 ? value(details, "air_temperature_max", .temperature) : nil,
                    precipitation: amount,
                    precipitationProbability: value(details, "probability_of_precipitation", .percent),
                    windSpeed: value(step.instant, "wind_speed", .speed),
                    windGusts: value(step.instant, "wind_speed_of_gust", .speed),
                    uvIndex: value(step.instant, "ultraviolet_index_clear_sky", .uvIndex),
                    condition: (symbol(period) ?? symbol(step.next12)).flatMap(ConditionKind.init(metNorwaySymbol:))))
        }
        // A 6-hourly day has 4 steps; fewer (the series' last, cut-off day) would show a false range.
        var days = builder.build(minimumSteps: 4)
        DayNight.fillSunEvents(&days, coordinate: coordinate) { date in
            offset(at: Timestamps.parseLocal(date + "T12:00", utcOffsetSeconds: fallbackOffset) ?? present.time)
        }

        var forecast = Forecast(
            provider: providerName, attribution: attribution, coordinate: coordinate, fetchedAt: fetchedAt,
            utcOffsetSeconds: offset(at: present.time), timezone: timeZone?.identifier, current: current,
            hourly: hours, daily: days, notes: notes,
            shortTerm: periods.isEmpty ? nil : ShortTermPrecipitation(periods: periods, interpolated: true))
        DayNight.fill(&forecast)
        return forecast
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
