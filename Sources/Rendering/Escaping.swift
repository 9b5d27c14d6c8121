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
    static func pango(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Text for a tmux format string: `#` starts a format there, so it is doubled.
    static func tmux(_ text: String) -> String {
        text.replacingOccurrences(of: "#", with: "##")
    }

    /// One line: line breaks (which would split a bar's line-based protocol) become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
