/// Text put into the XML-like markup people's screens read: Pango markup (Waybar tooltips) and desktop
/// notification bodies.
public enum Markup {
    /// `text` with `&`, `<` and `>` as entities. Quotes are left alone: they mean something only inside
    /// attributes, which neither markup forecastd writes has, and not every notification server knows `&apos;`.
    public static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
