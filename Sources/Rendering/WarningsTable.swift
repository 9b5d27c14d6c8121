import ForecastModel
import Foundation

/// The warnings in force as a table for a terminal (`forecastctl warnings`), then each one's texts.
///
/// ```
/// Berlin, Berlin, Germany
/// Severity  Event  From       Until      Area           Source
/// minor     Frost  Tue 00:00  Tue 08:00  Berl. - Mitte  bright-sky
///
/// ⚠ Frost (minor): Official WARNING of FROST
///   There is a risk of frost (level 1 of 2).
///   …
/// ```
///
/// Times are the location's local times (today's without a weekday). A report without warnings says
/// why: none in force, or no warnings at all (sources off, none for the country, not asked yet).
public enum WarningsTable {
    /// Widest an event or an area is shown in the table; the texts below the table have them whole.
    static let maxCellColumns = 32

    /// Renders the warnings of `report` in force at `now`; lines carry no trailing spaces and there is
    /// no trailing newline.
    public static func render(_ report: Report, now: Date = Date(), phrases: Phrases = .english) -> String {
        let facts = ReportFacts(report, options: RenderOptions(now: now, phrases: phrases), icons: .emoji)
        var lines: [String] = []
        if let place = facts.placeLine { lines.append(place) }
        guard report.warnings != nil else {
            lines.append(phrases.warningsUnavailable)
            return lines.joined(separator: "\n")
        }
        let warnings = facts.allWarnings
        guard !warnings.isEmpty else {
            lines.append(phrases.noWarnings(facts.placeName))
            return lines.joined(separator: "\n")
        }

        let rows: [[String]] =
            [phrases.warningsTableHeaders]
            + warnings.map { warning in
                [
                    phrases.severity(warning.severity), clip(facts.event(warning)),
                    warning.onset.map(facts.localTime) ?? "–",
                    // "Until" never before "from": a message that only announces a hazard has no end yet.
                    warning.until.flatMap { $0 > (warning.onset ?? .distantPast) ? facts.localTime($0) : nil } ?? "–",
                    clip(
                        warning.areaConfirmed
                            ? warning.area ?? "–"
                            : phrases.list([warning.area, phrases.areaNotConfirmed].compactMap { $0 })),
                    warning.source,
                ]
            }
        let widths = (0..<rows[0].count).map { column in rows.map { TextWidth.columns($0[column]) }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in Renderer.pad(cell, widths[index]) }
            lines.append(Renderer.trimmed(cells.joined(separator: "  ")))
        }

        if facts.omittedWarnings > 0 { lines.append(phrases.moreWarnings(facts.omittedWarnings)) }

        for warning in warnings {
            lines.append("")
            var head = "⚠ " + facts.warningTitle(warning)
            if !warning.areaConfirmed { head = phrases.list([head, phrases.areaNotConfirmed]) }
            if let headline = warning.headline, !headline.isEmpty { head += ": " + oneLine(headline) }
            lines.append(head)
            for text in [warning.description, warning.instruction].compactMap({ $0 }) {
                lines += text.split(whereSeparator: \.isNewline).map { "  " + Renderer.trimmed(String($0)) }
                    .filter { !$0.allSatisfy(\.isWhitespace) }
            }
            if let url = warning.url { lines.append("  " + url) }
        }
        return lines.joined(separator: "\n")
    }

    private static func clip(_ text: String) -> String {
        let text = oneLine(text)
        guard TextWidth.columns(text) > maxCellColumns else { return text }
        var clipped = ""
        for character in text {
            if TextWidth.columns(clipped) + TextWidth.columns(of: character) > maxCellColumns - 1 { break }
            clipped.append(character)
        }
        return clipped + "…"
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
    }
}
