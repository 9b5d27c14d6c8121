import Foundation
import TOMLKit

/// When a change of a key takes effect in a running daemon.
public enum SettingsApplication: String, Sendable, Hashable {
    /// At the reload that reads it: the daemon applies the new value without a restart.
    case live
    /// When the daemon next starts: a reload keeps the running value and says that a restart is needed.
    case restart
}

/// One key of `forecastd.toml`: a row of the settings table.
///
/// Everything forecastd knows about the key is here, written once: its path, where its value lives
/// in ``Settings`` (its field's initial value is the default), its type and what it allows, its
/// documentation, whether it is secret and when a change takes effect. Decoding, validation, the
/// unknown-key check, `forecastctl config show` and `set`, a reload's list of changes and the
/// documented `config/forecastd.toml` all read it. Rows are declared next to the struct whose field
/// they describe (`LocationSettings.swift`, …) and listed by ``SettingsTable``.
public struct SettingsKey: Sendable, CustomStringConvertible {
    /// The key's full path: `["location", "gpsd", "port"]`.
    public let path: [String]
    /// What its value must be.
    public let type: SettingsValueType
    /// Whether its value is a secret that is never printed.
    public let isSecret: Bool
    /// When a change takes effect.
    public let application: SettingsApplication
    /// What is allowed, as error messages say it (`1...1440`); nil when any value of the type is.
    let allowed: String?
    /// What is allowed, as the documentation says it (`1 to 1440`), for `{allowed}` in ``documentation``.
    let documentedAllowed: String?
    /// The comment above the key in `config/forecastd.toml`, without `# `; empty for the keys of
    /// tables documented as a whole (the pin, `[[output.files]]`, `[[cities]]`).
    let documentation: String
    /// How the documented file shows the key.
    let documented: Documented
    /// Whether the key belongs to each `[[table]]` element, which no key path can single out.
    let isElementKey: Bool
    /// Checks a value of the right TOML type (range, spelling) and gives it as the settings keep it.
    let check: @Sendable (SettingsValue) -> Result<SettingsValue, SettingsRefusal>
    /// The key's value in some settings; nil when it has none (no pin) and for element keys.
    let read: @Sendable (Settings) -> SettingsValue?
    /// Puts a checked value in the settings; nil for keys a rule assembles (the pin, the API key)
    /// and for element keys.
    let store: (@Sendable (inout Settings, SettingsValue) -> Void)?
    /// Copies the key's value from other settings: what a reload does for ``SettingsApplication/restart`` keys.
    let keep: (@Sendable (inout Settings, Settings) -> Void)?

    /// How the documented file shows a key.
    enum Documented: Sendable, Hashable {
        /// `key = default`.
        case value
        /// `# key = default`, with the default of a user session of uid 1000: the real one depends on
        /// the environment (runtime paths).
        case environment
        /// `# key = example`, in a table the defaults do not have (the pin, a status file, a city).
        case example(SettingsValue)
    }

    /// The last component: the name written in the file.
    public var name: String { path[path.count - 1] }

    /// The key written with dots, `location.gpsd.port`.
    public var description: String { TOMLText.key(path) }

    /// The effective value in `settings`, as the file would write it: a secret as what may be shown.
    public func value(in settings: Settings) -> SettingsValue? { read(settings) }

    /// Every key that can be set, in the order `config/forecastd.toml` documents them.
    ///
    /// The keys of `[[output.files]]` and `[[cities]]` are not among them: which of the tables would be
    /// meant is not something a key path can say, so those are edited in the file (and cities with
    /// `forecastctl cities`).
    public static var all: [SettingsKey] { SettingsTable.keys.filter { !$0.isElementKey } }

    /// Reads a value typed on the command line: `imperial`, `30`, `5.5`, `true`, `a,b` or `["a", "b"]`.
    ///
    /// A string may also be given as a TOML string (`"text"`), which is how to write one with
    /// surrounding spaces. Only the type is checked here; the edited file is decoded whole before it
    /// is written, which checks the rest.
    ///
    /// - Throws: ``SettingsEditError`` naming the key, what it takes and an example.
    public func parse(_ text: String) throws(SettingsEditError) -> SettingsValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .string:
            if let first = trimmed.first, first == "\"" || first == "'", let string = Self.tomlString(trimmed) {
                return .string(string)
            }
            return .string(text)
        case .integer:
            if let integer = Int(trimmed.replacingOccurrences(of: "_", with: "")) { return .integer(integer) }
        case .number:
            if let number = Double(trimmed), number.isFinite { return .number(number) }
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "yes", "on": return .boolean(true)
            case "false", "no", "off": return .boolean(false)
            default: break
            }
        case .date:
            if let date = CalendarDate(trimmed) { return .date(date) }
        case .strings:
            if trimmed.hasPrefix("[") {
                if let strings = Self.tomlStrings(trimmed) { return .strings(strings) }
            } else {
                let items = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                return .strings(items.filter { !$0.isEmpty })
            }
        }
        throw SettingsEditError(
            .invalidRequest, "\(self): \(TOMLText.quote(text)) is not \(type) (example: \(example))")
    }

    /// A value to show in messages: the key's default.
    var example: String {
        switch read(Settings.defaults(environment: [:], isSystemService: false, userID: 1000)) {
        case .strings(let strings):
            return "\(SettingsValue.strings(strings).toml) or \(strings.joined(separator: ","))"
        case .boolean:
            return "true"
        case .string(let string) where string.isEmpty:
            return "\"text\""
        case let value?:
            return value.description
        case nil:
            return type == .string ? "\"text\"" : "48.8566"
        }
    }

    /// `text` as the document `v = text`, parsed; nil when it is not TOML, or is TOML that toml++ would
    /// stop the process on rather than refuse (a value typed to `set`, from the command line or the socket).
    private static func tomlValue(_ text: String) -> TOMLTable? {
        guard !text.contains("\n"), !text.utf8.contains(0) else { return nil }
        let document = "v = " + text
        let map = TOMLSourceMap(document)
        guard map.firstMalformedKey == nil, map.firstStrayBrace == nil else { return nil }
        return try? TOMLTable(string: document)
    }

    /// `text` read as one TOML string.
    private static func tomlString(_ text: String) -> String? {
        tomlValue(text)?["v"]?.string
    }

    /// `text` read as one TOML array of strings.
    private static func tomlStrings(_ text: String) -> [String]? {
        guard let table = tomlValue(text), let array = table["v"]?.array
        else { return nil }
        let strings = array.compactMap(\.string)
        return strings.count == array.count ? strings : nil
    }
}

extension SettingsKey {
    /// The key named `dotted` (`units`, `location.gpsd.port`).
    ///
    /// - Throws: ``SettingsEditError`` when no documented key has that name, listing the keys of the
    ///   table it would be in (or all keys).
    public init(_ dotted: String) throws(SettingsEditError) {
        let path = dotted.split(separator: ".", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if path.starts(with: ["output", "files"]) {
            throw SettingsEditError(
                .invalidRequest,
                "\(dotted): the [[output.files]] tables can be any number, so forecastctl cannot tell which one "
                    + "to change; edit them in the settings file")
        }
        if path.first == "cities" {
            throw SettingsEditError(
                .invalidRequest,
                "\(dotted): the [[cities]] tables are changed with `forecastctl cities add`, `remove`, `favorite` and "
                    + "`unfavorite`, or in the settings file")
        }
        guard let key = Self.all.first(where: { $0.path == path }) else {
            // The keys of the table it would be in, and its sub-tables, so a typo meets its correction.
            var parent = Array(path.dropLast())
            if SettingsTable.table(at: path) != nil { parent = path }
            if SettingsTable.table(at: parent) == nil { parent = [] }
            let siblings = Self.all.filter { Array($0.path.dropLast()) == parent }.map(\.description)
            let tables = SettingsTable.tables.filter {
                $0.path.count == parent.count + 1 && $0.path.starts(with: parent) && $0.kind != .array
            }.map { TOMLText.key($0.path) + ".…" }
            let allowed = (siblings + tables).joined(separator: ", ")
            let what = SettingsTable.table(at: path) != nil ? "is a table, not a key" : "is not a settings key"
            throw SettingsEditError(.invalidRequest, "\(dotted) \(what) (allowed: \(allowed))")
        }
        self = key
    }
}
