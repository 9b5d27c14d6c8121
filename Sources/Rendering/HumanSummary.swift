import ForecastModel
import Foundation

/// The short text `forecastctl status` prints: place, condition, temperature, the next days.
public enum HumanSummary {
    /// Renders a report for a terminal. `now` is used to say how old the data is and which warnings are
    /// still in force; `phrases` words the warnings, the rain to come and the air.
    /// `absence` says why nothing keeps the report up to date, when the reader knows (it read the status file
    /// of a daemon that is gone): said under the forecast's age.
    public static func render(
        _ report: Report, now: Date = Date(), phrases: Phrases = .english, absence: DaemonAbsence? = nil
    ) -> String {
        let facts = ReportFacts(report, options: RenderOptions(now: now, phrases: phrases, absence: absence), icons: .emoji)
        var lines = header(report, phrases)
        // Warnings first: they matter most.
        lines += warningLines(facts)
        lines += currentLines(facts, phrases)
        // What comes next, and the air: the nowcast never contradicts the condition above.
        lines += airLines(facts)
        lines += freshnessLines(facts, now: now, phrases)
        lines += forecastLines(report, phrases)
        lines += report.errors.map { "! " + $0.text(phrases: phrases) }
        return lines.joined(separator: "\n")
    }

    /// Where: the place's name, region and country, or the coordinates when no place is known.
    private static func header(_ report: Report, _ phrases: Phrases) -> [String] {
        if let place = report.place {
            var name = [place.name, place.admin1, place.country].compactMap { $0 }.filter { !$0.isEmpty }
            if name.count > 1, name[0] == name[1] { name.remove(at: 1) }
            var line = phrases.list(name)
            if place.near == true {
                line = phrases.translation.text(
                    "near {place} ({distance} km)", context: nil,
                    ["place": line, "distance": phrases.number(formatNumber(place.distanceKm, places: 0))])
            }
            return [line + locationSuffix(report.location, phrases)]
        }
        guard let location = report.location else { return [] }
        // With a decimal comma, a comma between the two would be ambiguous.
        return [
            number(location.latitude, 4, phrases) + (phrases.number(".") == "." ? ", " : "; ")
                + number(location.longitude, 4, phrases) + locationSuffix(location, phrases)
        ]
    }

    private static func warningLines(_ facts: ReportFacts) -> [String] {
        facts.warnings.map { "⚠ " + facts.warningLine($0) } + [facts.warningsStaleNote].compactMap { $0 }
    }

    /// What it is like now, or why the report has no weather.
    private static func currentLines(_ facts: ReportFacts, _ phrases: Phrases) -> [String] {
        let report = facts.report
        guard report.status == .ok else { return [facts.stateSentence] }
        guard let current = report.current else { return [] }
        let units = report.units
        let translation = phrases.translation
        var now: [String] = []
        if let condition = current.condition {
            now.append(condition.emoji + TextWidth.spacer(after: condition.emoji) + phrases.condition(condition))
        }
        if let t = current.temperature {
            var temp = "\(number(t, 1, phrases)) \(units.temperature)"
            if let feels = current.apparentTemperature, abs(feels - t) >= 1 {
                let text = "\(number(feels, 0, phrases)) \(units.temperature)"
                temp += " (" + translation.text("feels like {temperature}", context: nil, ["temperature": text]) + ")"
            }
            now.append(temp)
        }
        if let h = current.humidity {
            now.append(translation.text("humidity {percent} %", context: nil, ["percent": number(h, 0, phrases)]))
        }
        if let w = current.windSpeed {
            let speed = number(w, units.windSpeedUnit.decimals, phrases)
            let named = units.windSpeedUnit == .bft ? " (" + phrases.beaufort(Int(w.rounded())) + ")" : ""
            let unit = phrases.unit(units.windSpeed) + named
            now.append(
                current.windDirection.map {
                    translation.text(
                        "wind {speed} {unit} {direction}", context: nil,
                        ["speed": speed, "unit": unit, "direction": phrases.compassPoint($0)])
                } ?? translation.text("wind {speed} {unit}", context: nil, ["speed": speed, "unit": unit]))
        }
        return [phrases.list(now)]
    }

    /// The rain to come, the air when it is worse than good, the pollen when there is any.
    private static func airLines(_ facts: ReportFacts) -> [String] {
        [facts.nowcastText, facts.airLine, facts.pollenLine].compactMap { $0 }
    }

    /// How fresh: who the forecast is from and how old it is, and why nothing keeps it up to date.
    private static func freshnessLines(_ facts: ReportFacts, now: Date, _ phrases: Phrases) -> [String] {
        let report = facts.report
        let translation = phrases.translation
        var lines: [String] = []
        if let provider = report.provider {
            var line =
                Timestamps.parseUTC(provider.fetchedAt).map {
                    translation.text(
                        "Forecast from {provider}, {age}", context: nil,
                        ["provider": provider.name, "age": phrases.ago(now.timeIntervalSince($0))])
                } ?? translation.text("Forecast from {provider}", context: nil, ["provider": provider.name])
            if report.stale { line += " " + translation.text("(stale)", context: "bar") }
            lines.append(line)
        }
        if let absence = facts.absenceSentence { lines.append(absence) }
        return lines
    }

    /// The next days, after a blank line.
    private static func forecastLines(_ report: Report, _ phrases: Phrases) -> [String] {
        guard !report.daily.isEmpty else { return [] }
        let units = report.units
        return [""]
            + report.daily.map { day in
                var cells = [pad(phrases.shortDate(day.date), 6)]
                cells.append(day.condition?.emoji ?? "  ")
                let low = day.temperatureMin.map { number($0, 0, phrases) } ?? "–"
                let high = day.temperatureMax.map { number($0, 0, phrases) } ?? "–"
                cells.append(pad("\(low) / \(high) \(units.temperature)", 14))
                if let p = day.precipitationProbability { cells.append(pad("\(number(p, 0, phrases)) %", 5)) }
                cells.append(day.condition.map(phrases.condition) ?? "")
                return cells.joined(separator: "  ")
            }
    }

    private static func number(_ value: Double, _ places: Int, _ phrases: Phrases) -> String {
        phrases.number(formatNumber(value, places: places))
    }

    private static func locationSuffix(_ location: ReportLocation?, _ phrases: Phrases) -> String {
        guard let location else { return "" }
        var parts = [sourceLabel(location.source, phrases)]
        if let accuracy = location.accuracyM { parts.append("±\(formatNumber(accuracy, places: 0)) m") }
        return " [" + parts.joined(separator: ", ") + "]"
    }

    /// `pinned`, `gpsd`: where the position comes from (`location.source`), in the language; a source this
    /// version does not know as the report names it.
    static func sourceLabel(_ source: String, _ phrases: Phrases) -> String {
        let translation = phrases.translation
        return switch source {
        case "gpsd": translation.text("gpsd", context: "location source")
        case "static_file": translation.text("static file", context: "location source")
        case "wifi": translation.text("Wi-Fi", context: "location source")
        case "geoclue": translation.text("GeoClue", context: "location source")
        case "ip": translation.text("IP", context: "location source")
        case "pinned": translation.text("pinned", context: "location source")
        case "city": translation.text("listed city", context: "location source")
        default: source
        }
    }

    /// Formats a number with a fixed number of decimals and no "-0".
    public static func formatNumber(_ value: Double, places: Int) -> String {
        let text = String(format: "%.\(places)f", value)
        if text.hasPrefix("-"), Double(text) == 0 { return String(text.dropFirst()) }
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let columns = TextWidth.columns(text)
        return columns >= width ? text : text + String(repeating: " ", count: width - columns)
    }
}
