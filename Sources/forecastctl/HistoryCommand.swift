import ArgumentParser
import CitiesCSV
import Control
import ForecastModel
import Foundation
import History
import Rendering
import Settings

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the weather recorded for a favourite city: a table by day and a chart.",
        discussion: """
            forecastd records the current conditions of every favourite city at each refresh, and each daily \
            forecast as it was issued, in history.sqlite in its state directory; this reads that database \
            (read-only, so it is safe while forecastd writes).

            The table has a line per day (the machine's local days): the readings, the lowest and highest \
            temperature seen, the forecast for that day as last issued before it began, and the most frequent \
            condition. Below it, a chart of temperature and precipitation over the period. Values are in the \
            settings' units. --csv prints every reading as RFC 4180 CSV (the unit is in each column's name); \
            --json prints the readings and the issued forecasts, for scripts.

            The period: the last 7 days by default; --days N for the last N days; --since DATE from DATE to \
            now, or for N days with --days. DATE is YYYY-MM-DD (local midnight) or an RFC 3339 time \
            (2026-11-20T08:00:00+01:00).

            \(cityArgumentHelp) An id no longer listed is accepted when the database has readings for it.

            Exit codes: 0 success (also when the period has no readings); 1 the database cannot be read or does \
            not exist yet; 64 bad arguments or an unknown city; 78 the settings file is invalid.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Start of the period: YYYY-MM-DD or an RFC 3339 time.", valueName: "DATE"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Length of the period in days (default: 7, ending now).", valueName: "N"))
    var days: Int?

    @Flag(name: .long, help: "Print every reading as CSV.")
    var csv = false

    @Flag(name: .long, help: "Print the readings and issued forecasts as JSON.")
    var json = false

    @OptionGroup var cityWords: CityWordsArgument

    func validate() throws {
        if csv && json { throw ValidationError("--csv and --json cannot be used together") }
        if let days, !(1...36_500).contains(days) {
            throw ValidationError("--days \(days) is out of range (allowed: 1...36500)")
        }
        if let since, Self.parseStart(since) == nil {
            throw ValidationError(
                "--since \"\(since)\" is not a date (allowed: YYYY-MM-DD, or an RFC 3339 time such as 2026-11-20T08:00:00Z)")
        }
    }

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let store: HistoryStore
            do {
                store = try HistoryStore(path: settings.historyDatabasePath, readOnly: true)
            } catch {
                throw CommandFailure(
                    message: "\(error)\n(forecastd records the weather of favourite cities: `forecastctl cities favorite NAME`)",
                    exitCode: .requestFailed)
            }
            let cityID: String
            let label: String
            do {
                let (_, city) = try findCity(cityWords.words, in: settings.cities)
                (cityID, label) = (city.id, city.label)
            } catch let failure as CommandFailure {
                let text = cityWords.words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
                guard let known = try? store.cityIDs(), known.contains(text) else { throw failure }
                (cityID, label) = (text, text)
            }
            let now = Date()
            let (start, end) = period(now: now)
            let history: CityHistory
            let issued: [IssuedForecastDay]
            do throws(HistoryError) {
                history = try store.history(cityID: cityID, since: start, until: end)
                // A day's forecast was issued before the day: look back as far as forecasts reach.
                issued = try store.issuedDays(cityID: cityID, since: start.addingTimeInterval(-16 * 86_400), until: end)
            } catch {
                throw CommandFailure(message: error.description, exitCode: .requestFailed)
            }
            let units = settings.units
            if csv {
                print(HistoryText.csv(history.readings, units: units), terminator: "")
            } else if json {
                print(HistoryText.json(cityID: cityID, readings: history.readings, issued: history.issuedDays, units: units))
            } else {
                let phrases = settings.phrases
                print(
                    phrases.translation.text(
                        "{city} ({id}), {start} to {end}", context: "history",
                        [
                            "city": label, "id": cityID, "start": HistoryText.localTime(start),
                            "end": HistoryText.localTime(end ?? now),
                        ]))
                guard !history.readings.isEmpty else {
                    print(phrases.translation.text("no readings in this period", context: "history"))
                    return
                }
                print(HistoryText.table(history.readings, issued: issued, units: units, phrases: phrases))
                print("")
                print(HistoryText.chart(history.readings, units: units, phrases: phrases))
            }
        }
    }

    /// The period asked for: from its start to its end (`nil`: now, and whatever comes in meanwhile).
    func period(now: Date) -> (Date, Date?) {
        let length = TimeInterval(days ?? 7) * 86_400
        guard let since, let start = Self.parseStart(since) else { return (now.addingTimeInterval(-length), nil) }
        return (start, days.map { start.addingTimeInterval(TimeInterval($0) * 86_400) })
    }

    /// `YYYY-MM-DD` as local midnight, or an RFC 3339 time.
    static func parseStart(_ text: String) -> Date? {
        if let date = CalendarDate(text) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            return calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))
        }
        guard text.contains("T") || text.contains("t") else { return nil }
        return Timestamps.parseUTC(text)
    }
}

/// How `forecastctl history` prints readings: the table, the chart, CSV and JSON.
enum HistoryText {
    /// `2026-11-22 13:45` in the machine's time zone.
    static func localTime(_ date: Date) -> String {
        let offset = TimeZone.current.secondsFromGMT(for: date)
        let stamp = Timestamps.rfc3339(date, utcOffsetSeconds: offset)
        return String(stamp.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    static func localDay(_ date: Date) -> String {
        Timestamps.localDate(date, utcOffsetSeconds: TimeZone.current.secondsFromGMT(for: date))
    }

    static func temperature(_ celsius: Double?, _ units: UnitPreferences, _ phrases: Phrases = .english) -> String {
        guard let celsius else { return "—" }
        return phrases.number(String(format: "%.1f", units.temperature.convert(fromCelsius: celsius)))
    }

    static func precipitation(_ millimetres: Double?, _ units: UnitPreferences, _ phrases: Phrases = .english) -> String {
        guard let millimetres else { return "—" }
        let unit = units.precipitation
        return phrases.number(String(format: "%.\(unit.decimals)f", unit.convert(fromMillimetres: millimetres)))
    }

    // MARK: Table

    /// One line per local day: readings, observed low and high, the forecast as last issued before
    /// the day began, and the most frequent condition.
    static func table(
        _ readings: [HistoryReading], issued: [IssuedForecastDay], units: UnitPreferences, phrases: Phrases = .english
    ) -> String {
        func header(_ english: String, unit: String? = nil) -> String {
            phrases.translation.text(english, context: "history table", ["unit": unit ?? ""])
        }
        let byDay = Dictionary(grouping: readings, by: { localDay($0.observedAt) })
        let t = UnitWords.symbol(units.temperature)
        let p = UnitWords.symbol(units.precipitation)
        let rows = byDay.keys.sorted().map { day -> [String] in
            let seen = byDay[day] ?? []
            let temperatures = seen.compactMap(\.temperature)
            let dayStart = seen.map(\.observedAt).min() ?? Date()
            let midnight = HistoryCommand.parseStart(day) ?? dayStart
            let forecast = issued.filter { $0.day == day && $0.issuedAt < midnight }.max { $0.issuedAt < $1.issuedAt }
            let conditions = Dictionary(grouping: seen.compactMap(\.condition), by: { $0 })
            let common = conditions.max { ($0.value.count, $1.key.rawValue) < ($1.value.count, $0.key.rawValue) }?.key
            return [
                day, String(seen.count), temperature(temperatures.min(), units, phrases), temperature(temperatures.max(), units, phrases),
                forecast.map { "\(temperature($0.temperatureMin, units, phrases))–\(temperature($0.temperatureMax, units, phrases))" } ?? "—",
                forecast.map { precipitation($0.precipitationSum, units, phrases) } ?? "—",
                common.map(phrases.condition) ?? "—",
            ]
        }
        return TextTable.render(
            header: [
                header("DAY"), header("READINGS"), header("LOW {unit}", unit: t), header("HIGH {unit}", unit: t),
                header("FORECAST {unit}", unit: t), header("FORECAST {unit}", unit: phrases.unit(p)), header("MOSTLY"),
            ],
            rows: rows, rightAligned: [1, 2, 3, 4, 5])
    }

    // MARK: Chart

    /// The blocks of a sparkline, lowest first.
    static let levels = Array("▁▂▃▄▅▆▇█")
    static let chartWidth = 60

    /// Temperature and precipitation over the period, one column per equal slice of time: the
    /// slice's mean temperature and its largest precipitation; a blank where there is no reading.
    static func chart(_ readings: [HistoryReading], units: UnitPreferences, phrases: Phrases = .english) -> String {
        guard let first = readings.first?.observedAt, let last = readings.last?.observedAt else { return "" }
        let width = min(chartWidth, readings.count)
        let span = max(last.timeIntervalSince(first), 1)
        var slices = [[HistoryReading]](repeating: [], count: width)
        for reading in readings {
            let position = Int(reading.observedAt.timeIntervalSince(first) / span * Double(width))
            slices[min(width - 1, position)].append(reading)
        }
        let temperatures = slices.map { slice -> Double? in
            let values = slice.compactMap(\.temperature)
            return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        }
        let rain = slices.map { $0.compactMap(\.precipitation).max() }
        let known = temperatures.compactMap { $0 }
        let low = known.min() ?? 0
        let high = known.max() ?? 0
        let temperatureLine = temperatures.map { value -> Character in
            guard let value else { return " " }
            guard high > low else { return levels[3] }
            return levels[Int(((value - low) / (high - low) * Double(levels.count - 1)).rounded())]
        }
        let wettest = rain.compactMap { $0 }.max() ?? 0
        let rainLine = rain.map { value -> Character in
            guard let value, value > 0, wettest > 0 else { return value == nil ? " " : "·" }
            return levels[max(0, Int((value / wettest * Double(levels.count - 1)).rounded()))]
        }
        let t = UnitWords.symbol(units.temperature)
        let labels = ["temperature", "precipitation"].map { phrases.translation.text($0, context: "history chart") }
        let labelWidth = labels.map { TextWidth.columns($0) }.max() ?? 0
        func pad(_ text: String) -> String { text + String(repeating: " ", count: labelWidth - TextWidth.columns(text)) }
        let most = phrases.translation.text(
            "max {amount} {unit}", context: "history chart",
            ["amount": precipitation(wettest, units, phrases), "unit": phrases.unit(UnitWords.symbol(units.precipitation))])
        return [
            "\(pad(labels[0]))  \(String(temperatureLine))  \(temperature(low, units, phrases))–\(temperature(high, units, phrases)) \(t)",
            "\(pad(labels[1]))  \(String(rainLine))  \(most)",
            "\(pad(""))  \(localTime(first)) … \(localTime(last))",
        ].joined(separator: "\n")
    }

    // MARK: CSV and JSON

    /// The readings as CSV, each quantity in its unit, named in its column: `temperature_c` or `_f`,
    /// `wind_speed_kmh`, `_ms`, `_mph`, `_kn` or `_bft`, `precipitation_mm` or `_in`, `pressure_hpa`,
    /// `_inhg`, `_mmhg` or `_kpa`.
    static func csv(_ readings: [HistoryReading], units: UnitPreferences) -> String {
        let t = units.temperature == .celsius ? "c" : "f"
        let w = units.wind.rawValue
        let p = units.precipitation.rawValue
        let header = [
            "time", "provider", "temperature_\(t)", "apparent_temperature_\(t)", "humidity_percent",
            "wind_speed_\(w)", "wind_direction_degrees", "wind_gusts_\(w)", "precipitation_\(p)",
            "pressure_\(units.pressure.rawValue)", "condition",
        ]
        func field(_ value: Double?) -> String {
            value.map { String($0.rounded(places: 2)) } ?? ""
        }
        let rows = readings.map { reading in
            [
                Timestamps.rfc3339(reading.observedAt), reading.provider,
                field(reading.temperature.map(units.temperature.convert(fromCelsius:))),
                field(reading.apparentTemperature.map(units.temperature.convert(fromCelsius:))), field(reading.humidity),
                field(reading.windSpeed.map(units.wind.convert(fromKmh:))), field(reading.windDirection),
                field(reading.windGusts.map(units.wind.convert(fromKmh:))),
                field(reading.precipitation.map(units.precipitation.convert(fromMillimetres:))),
                field(reading.pressure.map(units.pressure.convert(fromHectopascals:))),
                reading.condition?.rawValue ?? "",
            ]
        }
        return CitiesCSV.text(rows: [header] + rows)
    }

    struct JSONOutput: Encodable {
        struct Reading: Encodable {
            var time: String
            var provider: String
            var temperature: Double?
            var apparentTemperature: Double?
            var humidity: Double?
            var windSpeed: Double?
            var windDirection: Double?
            var windGusts: Double?
            var precipitation: Double?
            var pressure: Double?
            var condition: String?
        }

        struct Forecast: Encodable {
            var issuedAt: String
            var provider: String
            var day: String
            var temperatureMin: Double?
            var temperatureMax: Double?
            var precipitation: Double?
            var precipitationProbability: Double?
            var condition: String?
        }

        var city: String
        /// The preset's name, as before per-quantity units.
        var units: String
        /// The unit of each quantity, as the report's `units` object writes them.
        var unitSymbols: ReportUnits
        var readings: [Reading]
        var forecasts: [Forecast]
    }

    static func json(cityID: String, readings: [HistoryReading], issued: [IssuedForecastDay], units: UnitPreferences)
        -> String
    {
        func round(_ value: Double?) -> Double? { value?.rounded(places: 2) }
        let output = JSONOutput(
            city: cityID, units: units.preset.rawValue, unitSymbols: ReportUnits(units),
            readings: readings.map { reading in
                JSONOutput.Reading(
                    time: Timestamps.rfc3339(reading.observedAt), provider: reading.provider,
                    temperature: round(reading.temperature.map(units.temperature.convert(fromCelsius:))),
                    apparentTemperature: round(reading.apparentTemperature.map(units.temperature.convert(fromCelsius:))),
                    humidity: round(reading.humidity), windSpeed: round(reading.windSpeed.map(units.wind.convert(fromKmh:))),
                    windDirection: round(reading.windDirection),
                    windGusts: round(reading.windGusts.map(units.wind.convert(fromKmh:))),
                    precipitation: round(reading.precipitation.map(units.precipitation.convert(fromMillimetres:))),
                    pressure: round(reading.pressure.map(units.pressure.convert(fromHectopascals:))), condition: reading.condition?.rawValue)
            },
            forecasts: issued.map { day in
                JSONOutput.Forecast(
                    issuedAt: Timestamps.rfc3339(day.issuedAt), provider: day.provider, day: day.day,
                    temperatureMin: round(day.temperatureMin.map(units.temperature.convert(fromCelsius:))),
                    temperatureMax: round(day.temperatureMax.map(units.temperature.convert(fromCelsius:))),
                    precipitation: round(day.precipitationSum.map(units.precipitation.convert(fromMillimetres:))),
                    precipitationProbability: round(day.precipitationProbability), condition: day.condition?.rawValue)
            })
        return String(decoding: (try? ControlCoder.encoder.encode(output)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
