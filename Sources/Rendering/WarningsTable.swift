import ForecastModel
import Foundation

/// The warnings in force as a table for a terminal (`forecastctl warnings`), then each one's texts, all within
/// the terminal's width.
///
/// ```
/// Berlin, Berlin, Germany
/// Severity  Event  From       Until      Area           Source
/// minor     Frost  Tue 00:00  Tue 08:00  Berl. - Mitte  bright-sky
///
/// ⚠ Frost (minor): Official WARNING of FROST
///   There is a risk of frost (level 1 of 2).
///
///   What to do: Protect plants from the frost.
///   https://…
/// ```
///
/// Times are the location's local times (today's without a weekday). The table's event and area are clipped,
/// and its source column left out, to fit the width; the texts below it have them whole, wrapped at words,
/// their paragraphs kept, the instruction labelled. A report without warnings says why: none in force, or no
/// warnings at all (sources off, none for the country, not asked yet).
public enum WarningsTable {
    /// Widest an event or an area is shown in the table; the texts below the table have them whole.
    static let maxCellColumns = 32
    /// Narrowest an event or an area is clipped to before a column is left out instead.
    static let minCellColumns = 8
    /// How far the texts under a warning's heading are indented.
    static let indent = "  "

    /// Renders the warnings of `report` in force at `now` for a terminal `width` columns wide; lines carry
    /// no trailing spaces and there is no trailing newline. Only a word (an address) longer than the width
    /// is left longer.
    public static func render(
        _ report: Report, now: Date = Date(), phrases: Phrases = .english, width: Int = 80
    ) -> String {
        let width = max(width, 40)
        let facts = ReportFacts(report, options: RenderOptions(now: now, phrases: phrases), icons: .emoji)
        var lines: [String] = []
        if let place = facts.placeLine { lines.append(place) }
        guard report.warnings != nil else {
            lines += wrap(phrases.warningsUnavailable, width: width)
            return lines.joined(separator: "\n")
        }
        let warnings = facts.allWarnings
        guard !warnings.isEmpty else {
            lines += wrap(phrases.noWarnings(facts.placeName), width: width)
            return lines.joined(separator: "\n")
        }

        lines += table(warnings, facts: facts, width: width)
        if facts.omittedWarnings > 0 { lines += wrap(phrases.moreWarnings(facts.omittedWarnings), width: width) }
        let translation = phrases.translation
        for warning in warnings {
            lines.append("")
            var head = "⚠ " + facts.warningTitle(warning)
            if !warning.areaConfirmed { head = phrases.list([head, phrases.areaNotConfirmed]) }
            if let headline = warning.headline, !headline.isEmpty { head += ": " + oneLine(headline) }
            lines += wrap(head, width: width, continuation: indent)
            var texts = warning.description.map(paragraphs) ?? []
            var instructions = warning.instruction.map(paragraphs) ?? []
            if !instructions.isEmpty, !instructions[0].isEmpty {
                // Labelled, so it never reads as more of the description.
                instructions[0][0] = translation.text(
                    "What to do: {instruction}", context: "warnings table", ["instruction": instructions[0][0]])
                texts += instructions
            }
            for (index, paragraph) in texts.enumerated() {
                if index > 0 { lines.append("") }
                for line in paragraph { lines += wrap(line, width: width, first: indent, continuation: indent) }
            }
            if let url = warning.url { lines.append(indent + url) }
        }
        return lines.joined(separator: "\n")
    }

    /// The table's header and rows, two spaces between columns, fitted to `width`: the event and the area
    /// clipped (never below ``minCellColumns``), then the source column left out, then the area's.
    private static func table(_ warnings: [WeatherWarning], facts: ReportFacts, width: Int) -> [String] {
        let phrases = facts.phrases
        let rows: [[String]] =
            [phrases.warningsTableHeaders]
            + warnings.map { warning in
                [
                    phrases.severity(warning.severity), oneLine(facts.event(warning)),
                    warning.onset.map(facts.localTime) ?? "–",
                    // "Until" never before "from": a message that only announces a hazard has no end yet.
                    warning.until.flatMap { $0 > (warning.onset ?? .distantPast) ? facts.localTime($0) : nil } ?? "–",
                    oneLine(
                        warning.areaConfirmed
                            ? warning.area ?? "–"
                            : phrases.list([warning.area, phrases.areaNotConfirmed].compactMap { $0 })),
                    warning.source,
                ]
            }
        var columns = Array(0..<rows[0].count)
        func natural(_ column: Int) -> Int { rows.map { TextWidth.columns($0[column]) }.max() ?? 0 }
        let clipped = [1, 4]
        var widths = columns.map { clipped.contains($0) ? min(natural($0), maxCellColumns) : natural($0) }
        func total() -> Int { columns.map { widths[$0] }.reduce(0, +) + 2 * (columns.count - 1) }
        // Clip the area a column at a time; then leave out the source (the texts below name it); then clip the
        // event (what it is matters more than where); then leave out the area.
        func clippable(_ column: Int) -> Bool {
            columns.contains(column) && widths[column] > max(minCellColumns, TextWidth.columns(rows[0][column]))
        }
        while total() > width {
            if clippable(4) {
                widths[4] -= 1
            } else if columns.contains(5) {
                columns.removeAll { $0 == 5 }
            } else if clippable(1) {
                widths[1] -= 1
            } else if columns.contains(4) {
                columns.removeAll { $0 == 4 }
            } else {
                break
            }
        }
        return rows.map { row in
            let cells = columns.map { column in
                Renderer.pad(clipped.contains(column) ? clip(row[column], widths[column]) : row[column], widths[column])
            }
            return Renderer.trimmed(cells.joined(separator: "  "))
        }
    }

    /// A source's text as paragraphs, each a list of lines (unwrapped). Blank lines separate paragraphs, and
    /// inside one a line break is where the source wrapped its text (NWS wraps at about 70 characters): it
    /// becomes a space. In a text with no blank line at all, a break after the end of a sentence starts a new
    /// line (sources that write one sentence a line), any other is a wrap.
    static func paragraphs(_ text: String) -> [[String]] {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { collapse($0.trimmingCharacters(in: .whitespaces)) }
        guard lines.contains(where: \.isEmpty) else {
            var kept: [String] = []
            for line in lines where !line.isEmpty {
                if let last = kept.last, !(last.last.map { ".!?:;".contains($0) } ?? true) {
                    kept[kept.count - 1] = last + " " + line
                } else {
                    kept.append(line)
                }
            }
            return kept.isEmpty ? [] : [kept]
        }
        var paragraphs: [[String]] = []
        var current: [String] = []
        for line in lines + [""] {
            if line.isEmpty {
                if !current.isEmpty { paragraphs.append([current.joined(separator: " ")]) }
                current = []
            } else {
                current.append(line)
            }
        }
        return paragraphs
    }

    /// `text` in lines of at most `width` columns, broken at spaces: the first line starts with `first`, the
    /// others with `continuation`. A word longer than a line stays whole.
    static func wrap(_ text: String, width: Int, first: String = "", continuation: String = "") -> [String] {
        var lines: [String] = []
        var line = first
        var empty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = empty ? line + word : line + " " + word
            if !empty, TextWidth.columns(candidate) > width {
                lines.append(line)
                line = continuation + word
            } else {
                line = candidate
            }
            empty = false
        }
        lines.append(line)
        return lines.map(Renderer.trimmed)
    }

    private static func collapse(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    private static func clip(_ text: String, _ columns: Int) -> String {
        guard TextWidth.columns(text) > columns else { return text }
        var clipped = ""
        for character in text {
            if TextWidth.columns(clipped) + TextWidth.columns(of: character) > columns - 1 { break }
            clipped.append(character)
        }
        return clipped + "…"
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
    }
}
