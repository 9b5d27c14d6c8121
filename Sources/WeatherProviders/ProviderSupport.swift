import ForecastModel
import Foundation

/// Day or night for every step a provider left open, so no sun shows at night.
public enum DayNight {
    /// Fills `isDay` where it is nil: from the day's sunrise and sunset when the forecast has them,
    /// otherwise from the sun's computed elevation at the forecast's position (which handles polar
    /// day and polar night, when there is no sunrise or sunset at all).
    public static func fill(_ forecast: inout Forecast) {
        var days: [String: (sunrise: Date, sunset: Date)] = [:]
        for day in forecast.daily {
            if let sunrise = day.sunrise, let sunset = day.sunset, sunrise < sunset {
                days[day.date] = (sunrise, sunset)
            }
        }
        let coordinate = forecast.coordinate
        let offset = forecast.utcOffsetSeconds
        func isDay(_ time: Date) -> Bool {
            if let day = days[Timestamps.localDate(time, utcOffsetSeconds: offset)] {
                return time >= day.sunrise && time < day.sunset
            }
            return Sun.isDay(at: time, coordinate: coordinate)
        }
        if let time = forecast.current?.time, forecast.current?.isDay == nil {
            forecast.current?.isDay = isDay(time)
        }
        for index in forecast.hourly.indices where forecast.hourly[index].isDay == nil {
            forecast.hourly[index].isDay = isDay(forecast.hourly[index].time)
        }
    }

    /// Fills each day's missing sunrise and sunset from the computed solar position.
    static func fillSunEvents(_ days: inout [DailyForecast], coordinate: Coordinate, utcOffset: (String) -> Int) {
        for index in days.indices where days[index].sunrise == nil && days[index].sunset == nil {
            guard
                let events = Sun.riseAndSet(
                    localDate: days[index].date, utcOffsetSeconds: utcOffset(days[index].date), coordinate: coordinate)
            else { continue }
            days[index].sunrise = events.sunrise
            days[index].sunset = events.sunset
        }
    }
}

/// Builds local calendar days from forecast steps, for providers that send no daily summaries
/// (MET Norway) or only 3-hour steps (OpenWeatherMap's free forecast).
struct DailyBuilder {
    /// One forecast period: an instant's values and what falls over `[time, time + duration)`.
    struct Step {
        var time: Date
        var duration: TimeInterval
        var temperature: Double?
        var temperatureMin: Double?
        var temperatureMax: Double?
        /// Precipitation over the whole period, mm.
        var precipitation: Double?
        var precipitationProbability: Double?
        var windSpeed: Double?
        var windGusts: Double?
        var uvIndex: Double?
        var condition: ConditionKind?
    }

    private struct Day {
        var minimum: Double?
        var maximum: Double?
        var precipitation: Double?
        var probability: Double?
        var wind: Double?
        var gusts: Double?
        var uv: Double?
        var condition: ConditionKind?
        var steps = 0
    }

    /// The local date of an instant.
    let localDate: (Date) -> String
    private var days: [String: Day] = [:]
    private var order: [String] = []

    init(localDate: @escaping (Date) -> String) {
        self.localDate = localDate
    }

    mutating func add(_ step: Step) {
        let date = localDate(step.time)
        var day = existingDay(date)
        day.steps += 1
        for value in [step.temperature, step.temperatureMin, step.temperatureMax].compactMap({ $0 }) {
            day.minimum = min(day.minimum ?? value, value)
            day.maximum = max(day.maximum ?? value, value)
        }
        day.probability = Self.maximum(day.probability, step.precipitationProbability)
        day.wind = Self.maximum(day.wind, step.windSpeed)
        day.gusts = Self.maximum(day.gusts, step.windGusts)
        day.uv = Self.maximum(day.uv, step.uvIndex)
        if let condition = step.condition, condition.severity > (day.condition?.severity ?? -1) {
            day.condition = condition
        }
        days[date] = day
        if let amount = step.precipitation { addPrecipitation(amount, from: step.time, duration: step.duration) }
    }

    /// Adds an amount that fell over a period, split between the local days it spans in proportion
    /// to the time in each (a 6-hour block from 20:00 to 02:00 gives two thirds to the first day).
    private mutating func addPrecipitation(_ amount: Double, from start: Date, duration: TimeInterval) {
        guard duration > 0 else { return }
        let end = start.addingTimeInterval(duration)
        var cursor = start
        while cursor < end {
            let date = localDate(cursor)
            var next = cursor.addingTimeInterval(3600)
            if next > end { next = end }
            let share = amount * next.timeIntervalSince(cursor) / duration
            var day = existingDay(date)
            day.precipitation = (day.precipitation ?? 0) + share
            days[date] = day
            cursor = next
        }
    }

    /// The day's totals so far, registering the date on first sight to keep the days in order.
    private mutating func existingDay(_ date: String) -> Day {
        if let day = days[date] { return day }
        order.append(date)
        return Day()
    }

    /// The days in order, each with at least `minimumSteps` steps except the first (today, of which
    /// only the rest is forecast), so a day seen through one late step does not show a false range.
    func build(minimumSteps: Int) -> [DailyForecast] {
        order.enumerated().compactMap { index, date in
            guard let day = days[date], day.steps > 0, index == 0 || day.steps >= minimumSteps else { return nil }
            return DailyForecast(
                date: date, temperatureMin: day.minimum, temperatureMax: day.maximum, condition: day.condition,
                precipitationProbability: day.probability,
                precipitationSum: day.precipitation.map { ($0 * 100).rounded() / 100 },
                windSpeedMax: day.wind, windGustsMax: day.gusts, uvIndexMax: day.uv)
        }
    }

    private static func maximum(_ a: Double?, _ b: Double?) -> Double? {
        guard let b else { return a }
        return max(a ?? b, b)
    }
}
