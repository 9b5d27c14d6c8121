/// One language's translations, read from its `.po` file: what each English text becomes.
///
/// Fuzzy entries and empty translations are left out, so a lookup of them falls back to English for
/// that text only.
public struct Catalogue: Sendable {
    /// The catalogue's language code, from the file name (`es`, `pt_BR`).
    public let language: String
    /// How plurals are chosen (the header's `Plural-Forms`; English's rule when there is none).
    public let pluralRule: PluralRule
    /// Translations by ``POEntry/key``: one string, or one per plural form.
    private let messages: [String: [String]]

    /// Reads the catalogue of `language` from the text of its `.po` file.
    public init(language: String, poText: String) throws(POError) {
        let entries = try POFile.parse(poText)
        var rule = PluralRule.english
        var messages: [String: [String]] = [:]
        for entry in entries {
            if entry.context == nil, entry.msgid.isEmpty {
                rule = try Self.pluralRule(header: entry.msgstr.first ?? "", line: entry.line) ?? rule
                continue
            }
            guard !entry.isFuzzy, !entry.msgstr.contains(where: \.isEmpty) else { continue }
            messages[entry.key] = entry.msgstr
        }
        self.language = language
        self.pluralRule = rule
        self.messages = messages
    }

    /// The `Plural-Forms` of a header, nil when it has none.
    static func pluralRule(header: String, line: Int) throws(POError) -> PluralRule? {
        for field in header.split(separator: "\n") {
            let field = field.trimmingWhitespace()
            guard field.lowercased().hasPrefix("plural-forms:") else { continue }
            do {
                return try PluralRule(header: String(field.dropFirst("plural-forms:".count)))
            } catch {
                throw POError(line: line, message: "Plural-Forms: \(error.message)")
            }
        }
        return nil
    }

    /// The translation of `msgid` in `context`; nil when the catalogue has none.
    public func message(_ msgid: String, context: String?) -> String? {
        messages[POEntry.key(context: context, msgid: msgid)]?.first
    }

    /// The plural form `count` takes of `msgid` in `context`; nil when the catalogue has none.
    public func message(_ msgid: String, context: String?, count: Int) -> String? {
        guard let forms = messages[POEntry.key(context: context, msgid: msgid)],
            let index = pluralRule.form(for: count), index < forms.count
        else { return nil }
        return forms[index]
    }

    /// How many texts it translates.
    public var count: Int { messages.count }
}
