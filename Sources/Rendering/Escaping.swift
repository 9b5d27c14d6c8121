import Localization

/// Quoting for the languages bar formats are written in.
enum Escape {
    /// A JSON string literal, quotes included. Non-ASCII stays as it is (JSON is UTF-8).
    static func json(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON array of strings.
    static func json(_ items: [String]) -> String {
        "[" + items.map(json).joined(separator: ",") + "]"
    }

    /// Text for Pango markup (Waybar tooltips): `&`, `<` and `>` become entities.
    static func pango(_ text: String) -> String { Markup.escaped(text) }

    /// Text for a tmux format string: `#` starts a format there, so it is doubled.
    static func tmux(_ text: String) -> String {
        text.replacingOccurrences(of: "#", with: "##")
    }

    /// Text for polybar with each run of colour emoji in `%{T2}…%{T-}`: polybar's second font (`font-1`), the
    /// colour emoji font the polybar snippet names. polybar takes each character from the first of the bar's
    /// fonts that has it, and ignores U+FE0F: DejaVu Sans, the text font, has `☀` and `☁` (the commonest icons)
    /// and would draw them small and black and white. With no `font-1`, or one without the character,
    /// polybar falls back to its fonts in order, as without the tag.
    static func polybarEmoji(_ text: String) -> String {
        var out = ""
        var inEmoji = false
        for character in text {
            let emoji = isColourEmoji(character)
            if emoji != inEmoji { out += emoji ? "%{T2}" : "%{T-}" }
            inEmoji = emoji
            out.append(character)
        }
        return inEmoji ? out + "%{T-}" : out
    }

    /// Whether a colour emoji font draws the character: emoji presentation by default, or asked for with
    /// U+FE0F (`☁️`); not digits, `#` or `*`, nor a text-default symbol such as `⚠` that takes the text colour.
    static func isColourEmoji(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, first.value > 0x7F, first.properties.isEmoji else { return false }
        return first.properties.isEmojiPresentation || character.unicodeScalars.contains { $0.value == 0xFE0F }
    }

    /// One line: line breaks (which would split a bar's line-based protocol) become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
