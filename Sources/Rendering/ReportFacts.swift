import ForecastModel
import Foundation

/// The values every format shows, read once from a report: what it is like now, today's range,
/// local times, age. Each is nil when the report does not have it, so formats can leave it out.
struct ReportFacts {
    let report: Report
    let options: RenderOptions
    let icons: IconSet

    init(_ report: Report, options: RenderOptions, icons: IconSet) {
        self.report = report
        // Sentences with times of day (the nowcast's "until about 14:50", warnings' "from Tue 08:00") use
        // the user's clock, which the report's units carry.
        var options = options
        options.phrases.clock = report.units.timeFormat
        self.options = options
        self.icons = icons
    }

    var units: ReportUnits { report.units }

    // MARK: Now

    /// The current hour's entry, used when a provider gave no `current` block or left a value out.
    private var firstHour: ReportHour? { report.hourly.first }
    var today: ReportDay? { report.daily.first }

    var condition: Condition? { report.current?.condition ?? firstHour?.condition ?? today?.condition }
    var isDay: Bool? { report.current?.isDay ?? firstHour?.isDay }
    var temperature: Double? { report.current?.temperature ?? firstHour?.temperature }
    var apparentTemperature: Double? { report.current?.apparentTemperature ?? firstHour?.apparentTemperature }
    var humidity: Double? { report.current?.humidity ?? firstHour?.humidity }
    var windSpeed: Double? { report.current?.windSpeed ?? firstHour?.windSpeed }
    var windDirection: Double? { report.current?.windDirection ?? firstHour?.windDirection }
    var precipitation: Double? { report.current?.precipitation ?? firstHour?.precipitation }
    var pressure: Double? { report.current?.pressure }

    /// Today's chance of precipitation: the daily value, or the highest of today's remaining hours.
    var precipitationProbability: Double? {
        if let value = today?.precipitationProbability { return value }
        guard let date = localDate else { return nil }
        return report.hourly.filter { $0.time.hasPrefix(date) }.compactMap(\.precipitationProbability).max()
    }

    var glyph: String? { icons.glyph(for: condition, isDay: isDay) }

    // MARK: Formatted values

    /// `12°C`: whole degrees, for bars.
    func degrees(_ value: Double?) -> String? {
        value.map { number($0, places: 0) + units.temperature }
    }

    /// `12.5` in English, `12,5` in Spanish: ``Format/number(_:places:)`` with the language's decimal separator.
    func number(_ value: Double, places: Int) -> String {
        options.phrases.number(Format.number(value, places: places))
    }

    /// A unit symbol as the language writes it (`km/h`; Russian `км/ч`).
    func unit(_ symbol: String) -> String { options.phrases.unit(symbol) }

    /// The condition's name in the language.
    func conditionName(_ condition: Condition) -> String { options.phrases.condition(condition) }

    /// `wind 20 km/h WSW`, lower case, for lists of details.
    var windPhrase: String? {
        guard let speed = windSpeed else { return nil }
        let translation = options.phrases.translation
        let named = units.windSpeedUnit == .bft ? " (" + options.phrases.beaufort(Int(speed.rounded())) + ")" : ""
        let (value, symbol) = (number(speed, places: units.windSpeedUnit.decimals), unit(units.windSpeed) + named)
        guard let direction = windDirectionText else {
            return translation.text("wind {speed} {unit}", context: nil, ["speed": value, "unit": symbol])
        }
        return translation.text(
            "wind {speed} {unit} {direction}", context: nil, ["speed": value, "unit": symbol, "direction": direction])
    }

    var temperatureText: String? { degrees(temperature) }
    var feelsText: String? { degrees(apparentTemperature) }
    var highText: String? { degrees(today?.temperatureMax) }
    var lowText: String? { degrees(today?.temperatureMin) }
    var humidityText: String? { humidity.map { number($0, places: 0) + "%" } }
    var precipitationText: String? {
        precipitation.map { number($0, places: units.precipitationUnit.decimals) + " " + unit(units.precipitation) }
    }
    var precipitationProbabilityText: String? { precipitationProbability.map { number($0, places: 0) + "%" } }
    var pressureText: String? {
        pressure.map { number($0, places: units.pressureUnit.decimals) + " " + unit(UnitWords.symbol(units.pressureUnit)) }
    }
    var windDirectionText: String? { windDirection.map(options.phrases.compassPoint) }
    /// `↗20 km/h`: the arrow points where the wind blows to, as wttr.in draws it.
    var windText: String? {
        guard let speed = windSpeed else { return nil }
        let arrow = windDirection.map(Format.windArrow) ?? ""
        return arrow + wind(speed)
    }

    /// `20 km/h`, `5,6 m/s`, `11 kn`, `4 Bft`: a speed of the report in its unit, to the unit's decimals, in
    /// the language; `named` adds the Beaufort force's name, `4 Bft (Moderate breeze)`.
    func wind(_ speed: Double, named: Bool = false) -> String {
        let unit = units.windSpeedUnit
        var text = number(speed, places: unit.decimals) + " " + self.unit(units.windSpeed)
        if named, unit == .bft { text += " (" + options.phrases.beaufort(Int(speed.rounded())) + ")" }
        return text
    }

    /// The Beaufort name of the wind now (`Moderate breeze`), whatever unit it is shown in.
    var beaufortName: String? {
        guard let speed = windSpeed else { return nil }
        let unit = units.windSpeedUnit
        let force = unit == .bft ? Int(speed.rounded()) : Beaufort.force(kmh: unit.kmh(from: speed))
        return options.phrases.beaufort(force)
    }

    var placeName: String? { report.place?.name }
    /// `Bromsgrove, England, United Kingdom`, without a repeated name.
    var placeLine: String? {
        guard let place = report.place else { return nil }
        var parts = [place.name]
        if let admin1 = place.admin1, !admin1.isEmpty, admin1 != place.name { parts.append(admin1) }
        if !place.country.isEmpty { parts.append(place.country) }
        return parts.joined(separator: ", ")
    }

    var sunriseText: String? { today?.sunrise.flatMap { Format.localClock($0, units.timeFormat) } }
    var sunsetText: String? { today?.sunset.flatMap { Format.localClock($0, units.timeFormat) } }
    var currentTimeText: String? { report.current.flatMap { Format.localClock($0.time, units.timeFormat) } }

    // MARK: Time

    /// The forecast location's UTC offset, read from the local times the report carries.
    var utcOffsetSeconds: Int? { report.utcOffsetSeconds }

    /// The local date (`YYYY-MM-DD`) the report's "now" falls on.
    var localDate: String? {
        if let time = report.current?.time ?? firstHour?.time, time.count >= 10 { return String(time.prefix(10)) }
        return today?.date
    }

    /// Seconds since the forecast was fetched, at the render's `now`.
    var ageSeconds: Int? {
        if let fetched = report.provider.flatMap({ Timestamps.parseUTC($0.fetchedAt) }) {
            return max(0, Int(options.now.timeIntervalSince(fetched)))
        }
        return report.ageSeconds
    }

    /// When the forecast was fetched, as a local `HH:MM` (or `HH:MM UTC` when the offset is unknown).
    var fetchedClock: String? {
        guard let fetched = report.provider.flatMap({ Timestamps.parseUTC($0.fetchedAt) }) else { return nil }
        guard let offset = utcOffsetSeconds else {
            return Format.localClock(Timestamps.rfc3339(fetched), units.timeFormat).map { $0 + " UTC" }
        }
        return Format.localClock(Timestamps.rfc3339(fetched, utcOffsetSeconds: offset), units.timeFormat)
    }

    // MARK: Classes

    /// The temperature now in °C, whatever the report's units, for the hot/cold thresholds.
    var celsius: Double? {
        temperature.map { units.temperatureUnit.celsius(from: $0) }
    }
    var isHot: Bool { celsius.map { $0 >= options.hotCelsius } ?? false }
    var isCold: Bool { celsius.map { $0 <= options.coldCelsius } ?? false }
    /// Whether something failed: the report's errors but its notices (``ErrorKind/notices``), which the
    /// tooltip lists without colouring the bar.
    var hasErrors: Bool { report.errors.contains { !ErrorKind.isNotice($0.kind) } }

    // MARK: Short texts

    /// The short state for a report with no weather to show: `📍? no location`.
    var stateText: String {
        let english =
            switch report.status {
            case .ok: "no data"
            case .locating: "locating…"
            case .noLocation: "no location"
            case .noForecast: "no forecast yet"
            }
        let words = options.phrases.translation.text(english, context: "bar")
        return [icons.stateGlyph(report.status), words].compactMap { $0 }.joined(separator: " ")
    }

    /// A sentence for tooltips and tables when there is no weather to show.
    var stateSentence: String {
        let translation = options.phrases.translation
        return switch report.status {
        case .ok: translation.text("No current conditions in this forecast.")
        case .locating: translation.text("Looking for the position…")
        case .noLocation: translation.text("No location: no gpsd fix and no pinned position.")
        case .noForecast:
            placeName.map { translation.text("No forecast yet for {place}.", context: nil, ["place": $0]) }
                ?? translation.text("No forecast yet.")
        }
    }

    /// The bar text: `☁️ 12°C`, with `*` when stale, `⚠` in front while a warning is in force and the
    /// rain to come after (`☁️ 12°C 🌧️ in 10 min`); the state text when there is no weather.
    var barText: String {
        guard report.status == .ok else { return compactBarText }
        return compactBarText + (rainShort.map { " " + $0 } ?? "")
    }

    /// The bar text without the rain to come (`⚠ ☁️ 12°C*`), for the short texts of crowded bars, which
    /// must stay short in every language.
    var compactBarText: String {
        guard report.status == .ok else {
            return [warningMark, stateText].compactMap { $0 }.joined(separator: " ")
        }
        let value =
            temperatureText ?? condition.map(conditionName)
            ?? [lowText, highText].compactMap { $0 }.joined(separator: " / ").nonEmpty
            ?? options.phrases.translation.text("no data", context: "bar")
        return [warningMark, glyph, value].compactMap { $0 }.joined(separator: " ") + staleMark
    }

    var staleMark: String { report.status == .ok && report.stale ? "*" : "" }

    /// ` (stale 3 h)` after a long text, empty when fresh; ` (stale since 12:22)` in a text that stays on show,
    /// where an age would freeze.
    var staleSuffix: String {
        guard report.status == .ok, report.stale else { return "" }
        let translation = options.phrases.translation
        if options.lasting {
            guard let clock = fetchedClock else { return " " + translation.text("(stale)", context: "bar") }
            return " " + translation.text("(stale since {time})", context: "bar", ["time": clock])
        }
        guard let age = ageSeconds else { return " " + translation.text("(stale)", context: "bar") }
        return " " + translation.text("(stale {duration})", context: "bar", ["duration": options.phrases.duration(age)])
    }

    /// Why nothing keeps the report up to date, when the reader knows: `forecastd is not running`.
    var absenceSentence: String? {
        let translation = options.phrases.translation
        return switch options.absence {
        case nil: nil
        case .notRunning: translation.text("forecastd is not running", context: "absence")
        case .notAnswering: translation.text("forecastd is not answering", context: "absence")
        }
    }
}

/// Number, time and direction formatting shared by every format.
enum Format {
    /// A fixed number of decimals, halves rounded away from zero (18.5 → 19, as people round;
    /// `printf` would give 18), without `-0`.
    static func number(_ value: Double, places: Int) -> String {
        HumanSummary.formatNumber(value.rounded(places: places), places: places)
    }

    /// wttr.in's arrows: where the wind blows to, for a direction it comes from.
    static func windArrow(_ degrees: Double) -> String {
        let arrows = ["↓", "↙", "←", "↖", "↑", "↗", "→", "↘"]
        let normalized = (degrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        return arrows[Int((normalized + 22.5) / 45) % 8]
    }

    /// The clock time of an RFC 3339 time as written, i.e. in the offset it carries (the location's
    /// local time): `18:05`, or `6:05 PM` on a 12-hour clock.
    static func localClock(_ rfc3339: String, _ clock: TimeFormat = .h24) -> String? {
        guard Timestamps.parseUTC(rfc3339) != nil else { return nil }
        let characters = Array(rfc3339)
        guard characters.count >= 16, characters[10] == "T" || characters[10] == " ",
            let hour = Int(String(characters[11..<13])), let minute = Int(String(characters[14..<16]))
        else { return nil }
        return clock.clock(hour: hour, minute: minute)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
