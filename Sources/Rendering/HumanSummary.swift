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
        var lines: [String] = []
        let units = report.units
        let facts = ReportFacts(report, options: RenderOptions(now: now, phrases: phrases, absence: absence), icons: .emoji)
        let translation = phrases.translation

        // Where.
        if let place = report.place {
            var name = [place.name, place.admin1, place.country].compactMap { $0 }.filter { !$0.isEmpty }
            if name.count > 1, name[0] == name[1] { name.remove(at: 1) }
            var line = phrases.list(name)
            if place.near == true {
                line = translation.text(
                    "near {place} ({distance} km)", context: nil,
                    ["place": line, "distance": phrases.number(formatNumber(place.distanceKm, places: 0))])
            }
            lines.append(line + locationSuffix(report.location, phrases))
        } else if let location = report.location {
            lines.append(
                // With a decimal comma, a comma between the two would be ambiguous.
                number(location.latitude, 4) + (phrases.number(".") == "." ? ", " : "; ") + number(location.longitude, 4)
                    + locationSuffix(location, phrases))
        }

        // Warnings first: they matter most.
        lines += facts.warnings.map { "⚠ " + facts.warningLine($0) }
        lines += [facts.warningsStaleNote].compactMap { $0 }

        // What it is like now.
        switch report.status {
        case .ok:
            if let current = report.current {
                var now: [String] = []
                if let condition = current.condition {
                    now.append(condition.emoji + TextWidth.spacer(after: condition.emoji) + phrases.condition(condition))
                }
                if let t = current.temperature {
                    var temp = "\(number(t, 1)) \(units.temperature)"
                    if let feels = current.apparentTemperature, abs(feels - t) >= 1 {
                        let text = "\(number(feels, 0)) \(units.temperature)"
                        temp += " (" + translation.text("feels like {temperature}", context: nil, ["temperature": text]) + ")"
                    }
                    now.append(temp)
                }
                if let h = current.humidity {
                    now.append(translation.text("humidity {percent} %", context: nil, ["percent": number(h, 0)]))
                }
                if let w = current.windSpeed {
                    let speed = number(w, units.windSpeedUnit.decimals)
                    let named = units.windSpeedUnit == .bft ? " (" + phrases.beaufort(Int(w.rounded())) + ")" : ""
                    let unit = phrases.unit(units.windSpeed) + named
                    now.append(
                        current.windDirection.map {
                            translation.text(
                                "wind {speed} {unit} {direction}", context: nil,
                                ["speed": speed, "unit": unit, "direction": phrases.compassPoint($0)])
                        } ?? translation.text("wind {speed} {unit}", context: nil, ["speed": speed, "unit": unit]))
                }
                lines.append(phrases.list(now))
            }
        case .locating, .noLocation, .noForecast:
            lines.append(facts.stateSentence)
        }
        // What comes next, and the air: the nowcast never contradicts the condition above.
        lines += [facts.nowcastText, facts.airLine, facts.pollenLine].compactMap { $0 }

        // How fresh.
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

        // The next days.
        if !report.daily.isEmpty {
            lines.append("")
            for day in report.daily {
                var cells = [pad(phrases.shortDate(day.date), 6)]
                cells.append(day.condition?.emoji ?? "  ")
                let low = day.temperatureMin.map { number($0, 0) } ?? "–"
                let high = day.temperatureMax.map { number($0, 0) } ?? "–"
                cells.append(pad("\(low) / \(high) \(units.temperature)", 14))
                if let p = day.precipitationProbability { cells.append(pad("\(number(p, 0)) %", 5)) }
                cells.append(day.condition.map(phrases.condition) ?? "")
                lines.append(cells.joined(separator: "  "))
            }
        }

        for error in report.errors {
            lines.append("! " + error.text(phrases: phrases))
        }
        return lines.joined(separator: "\n")

        func number(_ value: Double, _ places: Int) -> String { phrases.number(formatNumber(value, places: places)) }
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
