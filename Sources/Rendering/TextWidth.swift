/// How many terminal cells text takes, for aligning tables (forecastctl's too, whatever the language).
///
/// A character is two cells when it is drawn as an emoji (emoji presentation by default, or followed
/// by U+FE0F) or is East Asian Wide (CJK, Hangul, full-width forms); zero for a lone combining or
/// joining mark; one otherwise. Nerd Font glyphs (private use) are one cell.
public enum TextWidth {
    /// The cells `text` takes.
    public static func columns(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The space between an icon and the words after it in a terminal: one, or two after an emoji made of a
    /// text-default character and U+FE0F (`☁️`, `🌧️`). Terminals disagree on those: most draw and advance two
    /// cells, some (foot, older VTE, xterm) advance one (wcwidth's count) while drawing two, so the icon
    /// covers the next cell. The second space is then what it covers; elsewhere it is one blank more. Icons
    /// that are emoji by default (`⛅`, `🌙`) are two cells everywhere and get one space.
    public static func spacer(after icon: String) -> String {
        guard let last = icon.last, last.unicodeScalars.contains(where: { $0.value == 0xFE0F }),
            let first = last.unicodeScalars.first, !first.properties.isEmojiPresentation, !isEastAsianWide(first.value)
        else { return " " }
        return "  "
    }

    static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation || isEastAsianWide(first.value) { return 2 }
        if first.properties.generalCategory == .nonspacingMark || first.value == 0x200D || first.value == 0xFE0E {
            return 0
        }
        return 1
    }

    private static func isEastAsianWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default: false
        }
    }
}
