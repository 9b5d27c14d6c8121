/// Which language to speak: `[display] language` in the settings.
public enum LanguageChoice: Sendable, Hashable, CustomStringConvertible {
    /// The user's locale, as gettext reads it from the environment (``LanguageChoice/fromEnvironment(_:available:)``).
    case auto
    /// A language with a catalogue, by its code (`en`, `es`, `pt_BR`).
    case code(String)

    /// `auto` or the code, as the settings file writes it.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .code(let code): code
        }
    }

    /// The language a locale name asks for among `available` (codes with a catalogue, `en` among them):
    /// `pt_BR.UTF-8@euro` → `pt_BR` if it has a catalogue, else `pt`; nil for C and POSIX (English) and for a
    /// language with no catalogue.
    public static func language(ofLocale locale: String, available: Set<String>) -> String? {
        var name = Substring(locale)
        if let at = name.firstIndex(of: "@") { name = name[..<at] }
        if let dot = name.firstIndex(of: ".") { name = name[..<dot] }
        name = Substring(name.replacing("-", with: "_"))
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        let parts = name.split(separator: "_", maxSplits: 1)
        let language = parts[0].lowercased()
        if parts.count == 2 {
            let full = language + "_" + parts[1].uppercased()
            if available.contains(full) { return full }
        }
        return available.contains(language) ? language : nil
    }

    /// What gettext would pick from `environment` for messages, among `available`: the first set of
    /// `LC_ALL`, `LC_MESSAGES`, `LANG`; then each language of `LANGUAGE` (a colon-separated list) when
    /// that one has no catalogue. C or POSIX in the first means English, whatever `LANGUAGE` says (as
    /// gettext does).
    ///
    /// Returns the language and, when the environment asked for one with no catalogue, a sentence for
    /// the log.
    public static func fromEnvironment(_ environment: [String: String], available: Set<String>)
        -> (language: String, note: String?)
    {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { name in
            environment[name].flatMap { $0.isEmpty ? nil : (name, $0) }
        }.first
        if let (_, value) = locale {
            let bare = value.split(separator: ".").first.map(String.init) ?? value
            if bare == "C" || bare == "POSIX" { return ("en", nil) }
            if let language = language(ofLocale: value, available: available) { return (language, nil) }
        }
        for entry in (environment["LANGUAGE"] ?? "").split(separator: ":") {
            if let language = language(ofLocale: String(entry), available: available) { return (language, nil) }
        }
        let asked = locale.map { "\($0.0)=\($0.1)" } ?? environment["LANGUAGE"].flatMap { $0.isEmpty ? nil : "LANGUAGE=\($0)" }
        guard let asked else { return ("en", nil) }
        return (
            "en",
            "\(asked) names a language forecastd has no catalogue for; using English (available: "
                + available.sorted().joined(separator: ", ") + ")."
        )
    }
}
