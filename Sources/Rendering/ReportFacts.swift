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
        value.map { Format.number($0, places: 0) + units.temperature }
    }

    var temperatureText: String? { degrees(temperature) }
    var feelsText: String? { degrees(apparentTemperature) }
    var highText: String? { degrees(today?.temperatureMax) }
    var lowText: String? { degrees(today?.temperatureMin) }
    var humidityText: String? { humidity.map { Format.number($0, places: 0) + "%" } }
    var precipitationText: String? {
        precipitation.map { Format.precipitation($0, units) }
    }
    var precipitationProbabilityText: String? { precipitationProbability.map { Format.number($0, places: 0) + "%" } }
    var pressureText: String? { pressure.map { Format.pressure($0, units) } }
    var windDirectionText: String? { windDirection.map(HumanSummary.compassPoint) }
    /// `↗20 km/h`: the arrow points where the wind blows to, as wttr.in draws it.
    var windText: String? {
        guard let speed = windSpeed else { return nil }
        let arrow = windDirection.map(Format.windArrow) ?? ""
        return arrow + Format.wind(speed, units)
    }

    /// The Beaufort name of the wind now (`Moderate breeze`), whatever unit it is shown in.
    var beaufortName: String? {
        guard let speed = windSpeed else { return nil }
        let unit = units.windSpeedUnit
        let force = unit == .bft ? Int(speed.rounded()) : Beaufort.force(kmh: unit.kmh(from: speed))
        return UnitWords.beaufortName(force)
    }

    /// `wind 20 km/h NE`, `wind 4 Bft (Moderate breeze) NE`: the wind now, for tooltips and summaries.
    var windPhrase: String? {
        guard let speed = windSpeed else { return nil }
        return "wind " + Format.wind(speed, units, named: true) + (windDirectionText.map { " " + $0 } ?? "")
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
    var hasErrors: Bool { !report.errors.isEmpty }

    // MARK: Short texts

    /// The short state for a report with no weather to show: `📍? no location`.
    var stateText: String {
        let words =
            switch report.status {
            case .ok: "no data"
            case .locating: "locating…"
            case .noLocation: "no location"
            case .noForecast: "no forecast yet"
            }
        return [icons.stateGlyph(report.status), words].compactMap { $0 }.joined(separator: " ")
    }

    /// A sentence for tooltips and tables when there is no weather to show.
    var stateSentence: String {
        switch report.status {
        case .ok: "No current conditions in this forecast."
        case .locating: "Looking for the position…"
        case .noLocation: "No location: no gpsd fix and no pinned position."
        case .noForecast: "No forecast yet" + (placeName.map { " for \($0)." } ?? ".")
        }
    }

    /// The bar text: `☁️ 12°C`, with `*` when stale, `⚠` in front while a warning is in force and the
    /// rain to come after (`☁️ 12°C 🌧️ in 10 min`); the state text when there is no weather.
    var barText: String {
        guard report.status == .ok else {
            return [warningMark, stateText].compactMap { $0 }.joined(separator: " ")
        }
        let value =
            temperatureText ?? condition?.text
            ?? [lowText, highText].compactMap { $0 }.joined(separator: " / ").nonEmpty ?? "no data"
        return [warningMark, glyph, value].compactMap { $0 }.joined(separator: " ") + staleMark
            + (rainShort.map { " " + $0 } ?? "")
    }

    var staleMark: String { report.status == .ok && report.stale ? "*" : "" }

    /// ` (stale 3 h)` after a long text, empty when fresh.
    var staleSuffix: String {
        guard report.status == .ok, report.stale else { return "" }
        return " (stale" + (ageSeconds.map { " " + Format.duration($0) } ?? "") + ")"
    }
}

/// Number, time and direction formatting shared by every format.
enum Format {
    /// A fixed number of decimals, halves rounded away from zero (18.5 → 19, as people round;
    /// `printf` would give 18), without `-0`.
    static func number(_ value: Double, places: Int) -> String {
        HumanSummary.formatNumber(value.rounded(places: places), places: places)
    }

    /// `5 min`, `3 h`, `2 d`: an age for people, rounded down.
    static func duration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        if s < 60 { return "<1 min" }
        if s < 90 * 60 { return "\(s / 60) min" }
        if s < 48 * 3600 { return "\(s / 3600) h" }
        return "\(s / 86_400) d"
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

    /// `20 km/h`, `5.6 m/s`, `11 kn`, `4 Bft`: a speed of the report in its unit, to the unit's decimals;
    /// `named` adds the Beaufort force's name, `4 Bft (Moderate breeze)`.
    static func wind(_ speed: Double, _ units: ReportUnits, named: Bool = false) -> String {
        let unit = units.windSpeedUnit
        var text = number(speed, places: unit.decimals) + " " + units.windSpeed
        if named, unit == .bft { text += " (" + UnitWords.beaufortName(Int(speed.rounded())) + ")" }
        return text
    }

    /// `1.2 mm`, `0.05 in`: an amount of the report in its unit, to the unit's decimals.
    static func precipitation(_ amount: Double, _ units: ReportUnits) -> String {
        number(amount, places: units.precipitationUnit.decimals) + " " + units.precipitation
    }

    /// `1013 hPa`, `29.92 inHg`, `760 mmHg`, `101.3 kPa`: a pressure of the report in its unit.
    static func pressure(_ pressure: Double, _ units: ReportUnits) -> String {
        let unit = units.pressureUnit
        return number(pressure, places: unit.decimals) + " " + UnitWords.symbol(unit)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
