import ForecastModel
import Foundation

/// Today and the next days as a table for a terminal (`forecastctl forecast`), with a temperature
/// chart: one bar per day from its low to its high, on a scale shared by all days.
///
/// ```
/// Bromsgrove, England, United Kingdom
/// Now: ☁️ Overcast, 11.8°C, wind 20 km/h WSW · open-meteo at 13:32
///
/// Day     Sky              Low  Temperature (°C)                              High
/// Today   🌧️ Rain            8                  ███████████████████▌          12
/// Sat 28  🌧️ Rain            4  ██████████████████████▌                       9
///                               └ 4°                                   14° ┘
/// ```
public enum ForecastTable {
    /// Renders the table to fit `width` columns where it can (the chart shrinks first, then the
    /// condition column goes). Lines carry no trailing spaces; there is no trailing newline. `now` decides
    /// which warnings are still in force.
    public static func render(
        _ report: Report, width: Int, icons: IconSet = .emoji, now: Date = Date(), phrases: Phrases = .english
    ) -> String {
        let facts = ReportFacts(report, options: RenderOptions(icons: icons, now: now, phrases: phrases), icons: icons)
        var lines: [String] = []
        if let place = facts.placeLine { lines.append(place) }
        lines += facts.warnings.map { "⚠ " + facts.warningLine($0) }
        lines += [facts.warningsStaleNote].compactMap { $0 }

        guard report.status == .ok else {
            lines.append(facts.stateSentence)
            lines += [facts.airLine, facts.pollenLine].compactMap { $0 }
            lines += report.errors.map { "! " + $0.text(phrases: phrases) }
            return lines.joined(separator: "\n")
        }

        lines.append(nowLine(facts))
        lines += [facts.nowcastText, facts.airLine, facts.pollenLine].compactMap { $0 }
        if report.stale {
            lines.append(
                facts.fetchedClock.map {
                    phrases.translation.text(
                        "Stale: showing the forecast fetched at {time} until a refresh succeeds.", context: nil,
                        ["time": $0])
                } ?? phrases.translation.text("Stale: showing the forecast fetched earlier until a refresh succeeds."))
        }
        lines += report.errors.map { "! " + $0.text(phrases: phrases) }

        guard !report.daily.isEmpty else {
            lines.append(phrases.translation.text("No daily forecast in this report."))
            return lines.joined(separator: "\n")
        }
        lines.append("")
        lines += table(facts, width: width)
        if let provider = report.provider { lines.append(""); lines.append(provider.attribution) }
        return lines.joined(separator: "\n")
    }

    private static func nowLine(_ facts: ReportFacts) -> String {
        let units = facts.units
        let translation = facts.phrases.translation
        var parts: [String] = []
        if let condition = facts.condition {
            let name = facts.conditionName(condition)
            parts.append(facts.glyph.map { $0 + TextWidth.spacer(after: $0) + name } ?? name)
        }
        if let t = facts.temperature { parts.append(facts.number(t, places: 1) + units.temperature) }
        if let feels = facts.feelsText {
            parts.append(translation.text("feels like {temperature}", context: nil, ["temperature": feels]))
        }
        if let wind = facts.windPhrase { parts.append(wind) }
        var line = translation.text(
            "Now: {conditions}", context: nil,
            ["conditions": parts.isEmpty ? translation.text("no current conditions") : facts.phrases.list(parts)])
        if let provider = facts.report.provider {
            line +=
                " · "
                + (facts.fetchedClock.map {
                    translation.text("{provider} at {time}", context: nil, ["provider": provider.name, "time": $0])
                } ?? provider.name)
        }
        return line
    }

    private struct Row {
        var day: String
        var icon: String
        var condition: String
        var low: String
        var high: String
        var range: (Double, Double)?
        var rain: String
        var wind: String
    }

    private static func table(_ facts: ReportFacts, width: Int) -> [String] {
        let report = facts.report
        let units = report.units
        let today = facts.localDate
        let phrases = facts.phrases
        func header(_ english: String) -> String { phrases.translation.text(english, context: "forecast table") }
        let rows = report.daily.map { day in
            Row(
                day: day.date == today ? phrases.today : phrases.shortDate(day.date),
                icon: facts.icons.glyph(for: day.condition, isDay: true) ?? "",
                condition: day.condition.map(facts.conditionName) ?? "",
                low: day.temperatureMin.map { facts.number($0, places: 0) } ?? "–",
                high: day.temperatureMax.map { facts.number($0, places: 0) } ?? "–",
                range: day.temperatureMin.flatMap { low in day.temperatureMax.map { (min(low, $0), max(low, $0)) } },
                rain: day.precipitationProbability.map { facts.number($0, places: 0) + " %" } ?? "–",
                wind: day.windSpeedMax.map { facts.wind($0) } ?? "–")
        }

        func widest(_ values: [String], _ header: String) -> Int {
            (values + [header]).map { TextWidth.columns($0) }.max() ?? 0
        }
        // A column no day has a value for (Open-Meteo answers only what was asked) is left out.
        let showRain = rows.contains { $0.rain != "–" }
        let showWind = rows.contains { $0.wind != "–" }
        let dayWidth = widest(rows.map(\.day), header("Day"))
        // An icon that terminals disagree on gets a cell more, which the ones that advance it one cell draw
        // it over (``TextWidth/spacer(after:)``).
        let iconWidth = max(
            2, rows.map { TextWidth.columns($0.icon) + TextWidth.spacer(after: $0.icon).count - 1 }.max() ?? 0)
        var conditionWidth = widest(rows.map(\.condition), "")
        let lowWidth = widest(rows.map(\.low), header("Low"))
        let highWidth = widest(rows.map(\.high), header("High"))
        let rainWidth = showRain ? widest(rows.map(\.rain), header("Rain")) : 0
        let windWidth = showWind ? widest(rows.map(\.wind), header("Wind")) : 0
        let chartTitle = phrases.translation.text(
            "Temperature ({unit})", context: "forecast table", ["unit": units.temperature])
        let minimumChart = TextWidth.columns(chartTitle)

        // Columns: day, sky (icon + condition), low, chart, high, rain, wind; two spaces between.
        func fixed(_ conditionWidth: Int) -> Int {
            let sky = iconWidth + (conditionWidth > 0 ? 1 + conditionWidth : 0)
            let optional = (showRain ? rainWidth + 2 : 0) + (showWind ? windWidth + 2 : 0)
            return dayWidth + sky + lowWidth + highWidth + 4 * 2 + optional
        }
        var chartWidth = width - fixed(conditionWidth)
        if chartWidth < minimumChart {
            conditionWidth = 0
            chartWidth = width - fixed(0)
        }
        chartWidth = min(max(chartWidth, minimumChart), 48)

        let ranges = rows.compactMap(\.range)
        let scaleLow = (ranges.map(\.0).min() ?? 0).rounded(.down)
        var scaleHigh = (ranges.map(\.1).max() ?? 1).rounded(.up)
        if scaleHigh <= scaleLow { scaleHigh = scaleLow + 1 }

        let skyWidth = iconWidth + (conditionWidth > 0 ? 1 + conditionWidth : 0)
        func line(_ cells: [String], rain: String, wind: String) -> String {
            var cells = cells
            if showRain { cells.append(padLeft(rain, rainWidth)) }
            if showWind { cells.append(wind) }
            return trim(cells.joined(separator: "  "))
        }
        var lines: [String] = []
        lines.append(
            line(
                [pad(header("Day"), dayWidth), pad(header("Sky"), skyWidth), padLeft(header("Low"), lowWidth),
                 pad(chartTitle, chartWidth), pad(header("High"), highWidth)],
                rain: header("Rain"), wind: header("Wind")))
        for row in rows {
            var sky = pad(row.icon, iconWidth)
            if conditionWidth > 0 { sky += " " + pad(row.condition, conditionWidth) }
            let cells = [
                pad(row.day, dayWidth), sky, padLeft(row.low, lowWidth),
                bar(row.range, low: scaleLow, high: scaleHigh, width: chartWidth), pad(row.high, highWidth),
            ]
            lines.append(line(cells, rain: row.rain, wind: row.wind))
        }
        let scale =
            String(repeating: " ", count: dayWidth + skyWidth + lowWidth + 3 * 2)
            + scaleLine(low: scaleLow, high: scaleHigh, width: chartWidth, facts: facts)
        lines.append(trim(scale))
        return lines
    }

    /// A bar from `range.0` to `range.1` at half-cell resolution: `▐` and `▌` are the half cells.
    static func bar(_ range: (Double, Double)?, low: Double, high: Double, width: Int) -> String {
        guard let range else { return String(repeating: " ", count: width) }
        let halves = Double(width * 2)
        func position(_ value: Double) -> Double { (value - low) / (high - low) * halves }
        var start = Int(position(range.0).rounded(.down))
        var end = Int(position(range.1).rounded(.up))
        start = min(max(start, 0), width * 2 - 1)
        end = min(max(end, start + 1), width * 2)
        var out = ""
        for cell in 0..<width {
            let left = (start..<end).contains(cell * 2)
            let right = (start..<end).contains(cell * 2 + 1)
            out += left && right ? "█" : left ? "▌" : right ? "▐" : " "
        }
        return out
    }

    /// The scale's ends under the chart: `7°` at the left edge, `14°` at the right.
    private static func scaleLine(low: Double, high: Double, width: Int, facts: ReportFacts) -> String {
        let left = "└ " + facts.number(low, places: 0) + "°"
        let right = facts.number(high, places: 0) + "° ┘"
        let gap = width - TextWidth.columns(left) - TextWidth.columns(right)
        return gap >= 1 ? left + String(repeating: " ", count: gap) + right : left
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let columns = TextWidth.columns(text)
        return columns >= width ? text : text + String(repeating: " ", count: width - columns)
    }

    private static func padLeft(_ text: String, _ width: Int) -> String {
        let columns = TextWidth.columns(text)
        return columns >= width ? text : String(repeating: " ", count: width - columns) + text
    }

    private static func trim(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
