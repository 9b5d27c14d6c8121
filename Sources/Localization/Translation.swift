import Foundation
import Synchronization

/// The words of one language: looks each English text up in a catalogue, falls back to the English
/// text when the catalogue has none, and fills in the `{name}` placeholders.
///
/// A value: two can be used at once (the daemon renders each answer in the language in force when it
/// is written), and switching languages is replacing one.
public struct Translation: Sendable {
    /// The language's code (`en`, `es`, `pt_BR`).
    public let language: String
    private let catalogue: Catalogue?
    private let missing: MissingTexts?

    /// English: the texts as the code writes them.
    public static let english = Translation(language: "en", catalogue: nil)

    /// The words of `catalogue`. `missing`, when given, records every text the catalogue lacked (tests
    /// prove a rendering used no English fallback).
    public init(_ catalogue: Catalogue, recordingMissingTextsIn missing: MissingTexts? = nil) {
        self.init(language: catalogue.language, catalogue: catalogue, missing: missing)
    }

    private init(language: String, catalogue: Catalogue?, missing: MissingTexts? = nil) {
        self.language = language
        self.catalogue = catalogue
        self.missing = missing
    }

    /// `msgid` in this language, its placeholders replaced by `values`: `text("until {time}", context:
    /// "warning", ["time": "08:00"])`.
    public func text(_ msgid: String, context: String? = nil, _ values: KeyValuePairs<String, String> = [:]) -> String {
        let found = catalogue?.message(msgid, context: context)
        if found == nil { missing?.record(msgid, context: context) }
        return Self.fill(found ?? msgid, values)
    }

    /// The form of `msgid` that `count` takes in this language (English: `msgid` for 1, `plural` otherwise),
    /// its placeholders replaced by `values`.
    public func plural(
        _ msgid: String, _ plural: String, count: Int, context: String? = nil,
        _ values: KeyValuePairs<String, String> = [:]
    ) -> String {
        let found = catalogue?.message(msgid, context: context, count: count)
        if found == nil { missing?.record(msgid, context: context) }
        return Self.fill(found ?? (count == 1 ? msgid : plural), values)
    }

    /// The decimal separator (`.` in English, `,` in Spanish): the catalogue's translation of
    /// msgctxt "number" msgid ".".
    public var decimalSeparator: String { text(".", context: "number") }

    /// A number formatted with `.` (`12.5`, `-3`) written with the language's decimal separator.
    public func number(_ formatted: String) -> String {
        let separator = decimalSeparator
        return separator == "." ? formatted : formatted.replacingOccurrences(of: ".", with: separator)
    }

    /// The items joined by the language's list separator (`, ` in English).
    public func list(_ items: [String]) -> String {
        items.joined(separator: text(", ", context: "list separator"))
    }

    /// `text` with each `{name}` of `values` replaced once, left to right; braces the values do not
    /// name stay, and what a value brings in is not looked at again.
    static func fill(_ text: String, _ values: KeyValuePairs<String, String>) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                let value = values.first(where: { $0.key == rest[rest.index(after: open)..<close] })?.value
            else {
                out.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The `{name}` placeholders of a text, for checking translations against the template.
    public static func placeholders(_ text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) { names.insert(String(name)) }
            rest = rest[rest.index(after: open)...]
        }
        return names
    }
}

/// The texts a translation had to show in English, for tests.
public final class MissingTexts: Sendable {
    private let texts = Mutex<Set<String>>([])

    public init() {}

    func record(_ msgid: String, context: String?) {
        _ = texts.withLock { $0.insert(context.map { "[\($0)] " } .map { $0 + msgid } ?? msgid) }
    }

    /// `[context] msgid` of each text looked up and not found, sorted.
    public var all: [String] { texts.withLock { $0.sorted() } }
}
