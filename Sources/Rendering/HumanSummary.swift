import ForecastModel
import Foundation

/// The short text `forecastctl status` prints: place, condition, temperature, the next days.
public enum HumanSummary {
    /// Renders a report for a terminal. `now` is used to say how old the data is and which warnings are
    /// still in force; `phrases` words the warnings, the rain to come and the air.
    public static func render(_ report: Report, now: Date = Date(), phrases: Phrases = .english) -> String {
        var lines: [String] = []
        let units = report.units
        let facts = ReportFacts(report, options: RenderOptions(now: now, phrases: phrases), icons: .emoji)

        // Where.
        if let place = report.place {
            var name = [place.name, place.admin1, place.country].compactMap { $0 }.filter { !$0.isEmpty }
            if name.count > 1, name[0] == name[1] { name.remove(at: 1) }
            var line = name.joined(separator: ", ")
            if place.near == true { line = "near " + line + " (\(formatNumber(place.distanceKm, places: 0)) km)" }
            lines.append(line + locationSuffix(report.location))
        } else if let location = report.location {
            lines.append(
                "\(formatNumber(location.latitude, places: 4)), \(formatNumber(location.longitude, places: 4))"
                    + locationSuffix(location))
        }

        // Warnings first: they matter most.
        lines += facts.warnings.map { "⚠ " + facts.warningLine($0) }
        lines += [facts.warningsStaleNote].compactMap { $0 }

        // What it is like now.
        switch report.status {
        case .ok:
            if let current = report.current {
                var now: [String] = []
                if let condition = current.condition { now.append("\(condition.emoji) \(condition.text)") }
                if let t = current.temperature {
                    var temp = "\(formatNumber(t, places: 1)) \(units.temperature)"
                    if let feels = current.apparentTemperature, abs(feels - t) >= 1 {
                        temp += " (feels like \(formatNumber(feels, places: 0)) \(units.temperature))"
                    }
                    now.append(temp)
                }
                if let h = current.humidity { now.append("humidity \(formatNumber(h, places: 0)) %") }
                if let w = current.windSpeed {
                    var wind = "wind " + Format.wind(w, units, named: true)
                    if let d = current.windDirection { wind += " " + compassPoint(d) }
                    now.append(wind)
                }
                lines.append(now.joined(separator: ", "))
            }
        case .locating:
            lines.append("Looking for the position…")
        case .noLocation:
            lines.append("No location: no gpsd fix and no pinned position.")
        case .noForecast:
            lines.append("No forecast yet.")
        }
        // What comes next, and the air: the nowcast never contradicts the condition above.
        lines += [facts.nowcast?.text, facts.airLine, facts.pollenLine].compactMap { $0 }

        // How fresh.
        if let provider = report.provider {
            var line = "Forecast from \(provider.name)"
            if let fetched = Timestamps.parseUTC(provider.fetchedAt) {
                line += ", \(ago(now.timeIntervalSince(fetched)))"
            }
            if report.stale { line += " (stale)" }
            lines.append(line)
        }

        // The next days.
        if !report.daily.isEmpty {
            lines.append("")
            for day in report.daily {
                var cells = [weekday(day.date)]
                cells.append(day.condition?.emoji ?? "  ")
                let low = day.temperatureMin.map { formatNumber($0, places: 0) } ?? "–"
                let high = day.temperatureMax.map { formatNumber($0, places: 0) } ?? "–"
                cells.append(pad("\(low) / \(high) \(units.temperature)", 14))
                if let p = day.precipitationProbability { cells.append(pad("\(formatNumber(p, places: 0)) %", 5)) }
                cells.append(day.condition?.text ?? "")
                lines.append(cells.joined(separator: "  "))
            }
        }

        for error in report.errors {
            lines.append("! \(error.message)")
        }
        return lines.joined(separator: "\n")
    }

    private static func locationSuffix(_ location: ReportLocation?) -> String {
        guard let location else { return "" }
        var parts = [location.source]
        if let accuracy = location.accuracyM { parts.append("±\(formatNumber(accuracy, places: 0)) m") }
        return " [" + parts.joined(separator: ", ") + "]"
    }

    /// "Mon 23" from `2026-11-23`.
    static func weekday(_ date: String) -> String {
        guard let day = Timestamps.parseUTC(date) else { return date }
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let index = Int(day.timeIntervalSince1970 / 86_400) % 7
        return names[(index + 7) % 7] + " " + String(date.suffix(2))
    }

    static func ago(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds))
        if s < 90 { return "just now" }
        if s < 90 * 60 { return "\(s / 60) min ago" }
        if s < 36 * 3600 { return "\(s / 3600) h ago" }
        return "\(s / 86_400) days ago"
    }

    /// The 16-point compass name of a direction the wind comes from.
    public static func compassPoint(_ degrees: Double) -> String {
        let points = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"]
        let index = Int((degrees.truncatingRemainder(dividingBy: 360) + 360 + 11.25) / 22.5) % 16
        return points[index]
    }

    /// Formats a number with a fixed number of decimals and no "-0".
    public static func formatNumber(_ value: Double, places: Int) -> String {
        let text = String(format: "%.\(places)f", value)
        if text.hasPrefix("-"), Double(text) == 0 { return String(text.dropFirst()) }
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
