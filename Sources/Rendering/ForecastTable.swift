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

    /// Each column's width in terminal cells (the condition 0 when its names are left out for the chart, rain
    /// and wind nil when no day has one), and the chart's scale.
    private struct Columns {
        var day: Int
        var icon: Int
        var condition: Int
        var low: Int
        var chart: Int
        var high: Int
        var rain: Int?
        var wind: Int?
        var scaleLow: Double
        var scaleHigh: Double

        /// The icon and, when there is room, the condition's name.
        var sky: Int { icon + (condition > 0 ? 1 + condition : 0) }
    }

    private static func table(_ facts: ReportFacts, width: Int) -> [String] {
        let rows = facts.report.daily.map { row(for: $0, facts) }
        let columns = columns(for: rows, facts: facts, width: width)
        // Columns: day, sky (icon + condition), low, chart, high, rain, wind; two spaces between.
        func line(_ cells: [String], rain: String, wind: String) -> String {
            var cells = cells
            if let width = columns.rain { cells.append(padLeft(rain, width)) }
            if columns.wind != nil { cells.append(wind) }
            return trim(cells.joined(separator: "  "))
        }
        var lines: [String] = []
        lines.append(
            line(
                [pad(header("Day", facts), columns.day), pad(header("Sky", facts), columns.sky),
                 padLeft(header("Low", facts), columns.low), pad(chartTitle(facts), columns.chart),
                 pad(header("High", facts), columns.high)],
                rain: header("Rain", facts), wind: header("Wind", facts)))
        for row in rows {
            var sky = pad(row.icon, columns.icon)
            if columns.condition > 0 { sky += " " + pad(row.condition, columns.condition) }
            let cells = [
                pad(row.day, columns.day), sky, padLeft(row.low, columns.low),
                bar(row.range, low: columns.scaleLow, high: columns.scaleHigh, width: columns.chart),
                pad(row.high, columns.high),
            ]
            lines.append(line(cells, rain: row.rain, wind: row.wind))
        }
        let scale =
            String(repeating: " ", count: columns.day + columns.sky + columns.low + 3 * 2)
            + scaleLine(low: columns.scaleLow, high: columns.scaleHigh, width: columns.chart, facts: facts)
        lines.append(trim(scale))
        return lines
    }

    private static func row(for day: ReportDay, _ facts: ReportFacts) -> Row {
        Row(
            day: day.date == facts.localDate ? facts.phrases.today : facts.phrases.shortDate(day.date),
            icon: facts.icons.glyph(for: day.condition, isDay: true) ?? "",
            condition: day.condition.map(facts.conditionName) ?? "",
            low: day.temperatureMin.map { facts.number($0, places: 0) } ?? "–",
            high: day.temperatureMax.map { facts.number($0, places: 0) } ?? "–",
            range: day.temperatureMin.flatMap { low in day.temperatureMax.map { (min(low, $0), max(low, $0)) } },
            rain: day.precipitationProbability.map { facts.number($0, places: 0) + " %" } ?? "–",
            wind: day.windSpeedMax.map { facts.wind($0) } ?? "–")
    }

    /// The columns as wide as their widest cell or header; the chart takes what is left of `width`, and
    /// when that is less than its title the condition's name goes first.
    private static func columns(for rows: [Row], facts: ReportFacts, width: Int) -> Columns {
        func widest(_ values: [String], _ header: String) -> Int {
            (values + [header]).map { TextWidth.columns($0) }.max() ?? 0
        }
        // A column no day has a value for (Open-Meteo answers only what was asked) is left out.
        let rain = rows.contains { $0.rain != "–" } ? widest(rows.map(\.rain), header("Rain", facts)) : nil
        let wind = rows.contains { $0.wind != "–" } ? widest(rows.map(\.wind), header("Wind", facts)) : nil
        // An icon that terminals disagree on gets a cell more, which the ones that advance it one cell draw
        // it over (``TextWidth/spacer(after:)``).
        let icon = max(
            2, rows.map { TextWidth.columns($0.icon) + TextWidth.spacer(after: $0.icon).count - 1 }.max() ?? 0)
        let ranges = rows.compactMap(\.range)
        let scaleLow = (ranges.map(\.0).min() ?? 0).rounded(.down)
        let scaleHigh = (ranges.map(\.1).max() ?? 1).rounded(.up)
        var columns = Columns(
            day: widest(rows.map(\.day), header("Day", facts)), icon: icon,
            condition: widest(rows.map(\.condition), ""), low: widest(rows.map(\.low), header("Low", facts)),
            chart: 0, high: widest(rows.map(\.high), header("High", facts)), rain: rain, wind: wind,
            scaleLow: scaleLow, scaleHigh: scaleHigh <= scaleLow ? scaleLow + 1 : scaleHigh)

        let minimumChart = TextWidth.columns(chartTitle(facts))
        func fixed(_ columns: Columns) -> Int {
            let optional = (columns.rain.map { $0 + 2 } ?? 0) + (columns.wind.map { $0 + 2 } ?? 0)
            return columns.day + columns.sky + columns.low + columns.high + 4 * 2 + optional
        }
        columns.chart = width - fixed(columns)
        if columns.chart < minimumChart {
            columns.condition = 0
            columns.chart = width - fixed(columns)
        }
        columns.chart = min(max(columns.chart, minimumChart), 48)
        return columns
    }

    private static func header(_ english: String, _ facts: ReportFacts) -> String {
        facts.phrases.translation.text(english, context: "forecast table")
    }

    private static func chartTitle(_ facts: ReportFacts) -> String {
        facts.phrases.translation.text(
            "Temperature ({unit})", context: "forecast table", ["unit": facts.units.temperature])
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
