import Foundation
import TOMLKit

/// The kind of value a settings key holds.
public enum SettingsValueType: Sendable, Hashable, CustomStringConvertible {
    case string
    case integer
    /// A number that may have a fraction; integers are accepted.
    case number
    case boolean
    /// An array of strings.
    case strings
    /// A TOML local date, `2026-11-22`.
    case date

    public var description: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .boolean: "true or false"
        case .strings: "a list of names"
        case .date: "a date such as 2026-11-22"
        }
    }
}

/// A value of a settings key.
public enum SettingsValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case strings([String])
    case date(CalendarDate)

    /// The value as TOML writes it: `"imperial"`, `30`, `5.0`, `true`, `["open-meteo", "met-norway"]`,
    /// `2026-11-22`.
    public var toml: String {
        switch self {
        case .date(let date): date.description
        case .string(let string): SettingsDecoder.quote(string)
        case .integer(let integer): String(integer)
        case .number(let number): Self.render(number)
        case .boolean(let boolean): boolean ? "true" : "false"
        case .strings(let strings): "[" + strings.map(SettingsDecoder.quote).joined(separator: ", ") + "]"
        }
    }

    /// The value as people read it in `units: metric → imperial`: strings without quotes (`""` when
    /// empty), everything else as TOML writes it.
    public var description: String {
        switch self {
        case .string(let string): string.isEmpty ? "\"\"" : string
        default: toml
        }
    }

    /// A floating-point number TOML accepts back: always with a fraction or an exponent.
    static func render(_ number: Double) -> String {
        let text = "\(number)"
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) ? text : text + ".0"
    }
}

/// A documented settings key that `forecastctl set` can change, with the type of its value.
public struct SettingsKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's full path: `["location", "gpsd", "port"]`.
    public let path: [String]
    /// What its value must be.
    public let type: SettingsValueType

    /// The key written with dots, `location.gpsd.port`.
    public var description: String { SettingsDecoder.render(keyPath: path) }

    /// Whether its value is a secret that is never printed.
    public var isSecret: Bool { SettingsSchema.secretKeys.contains(path) }

    /// Every key that can be set, in the order `config/forecastd.toml` documents them.
    ///
    /// The keys of `[[output.files]]` and `[[cities]]` are not among them: which of the tables would be
    /// meant is not something a key path can say, so those are edited in the file (and cities with
    /// `forecastctl cities`).
    public static var all: [SettingsKey] {
        let arrays = SettingsSchema.arrayOfTablesPaths
        return SettingsSchema.valueKeyPaths.compactMap { path in
            guard !arrays.contains(where: { path.starts(with: $0) }), let type = SettingsSchema.valueTypes[path] else {
                return nil
            }
            return SettingsKey(path: path, type: type)
        }
    }

    private init(path: [String], type: SettingsValueType) {
        self.path = path
        self.type = type
    }

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
            if SettingsSchema.table(at: path) != nil { parent = path }
            if SettingsSchema.table(at: parent) == nil { parent = [] }
            let siblings = Self.all.filter { Array($0.path.dropLast()) == parent }.map(\.description)
            let tables = SettingsSchema.tables.filter {
                $0.path.count == parent.count + 1 && $0.path.starts(with: parent) && !$0.isArrayOfTables
            }.map { SettingsDecoder.render(keyPath: $0.path) + ".…" }
            let allowed = (siblings + tables).joined(separator: ", ")
            let what = SettingsSchema.table(at: path) != nil ? "is a table, not a key" : "is not a settings key"
            throw SettingsEditError(.invalidRequest, "\(dotted) \(what) (allowed: \(allowed))")
        }
        self = key
    }

    /// Reads a value typed on the command line: `imperial`, `30`, `5.5`, `true`, `a,b` or `["a", "b"]`.
    ///
    /// A string may also be given as a TOML string (`"text"`), which is how to write one with
    /// surrounding spaces.
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
            .invalidRequest,
            "\(self): \(SettingsDecoder.quote(text)) is not \(type) (example: \(example))")
    }

    /// A value to show in messages: the key's default.
    var example: String {
        let defaults = Settings.defaults(environment: [:], isSystemService: false, userID: 1000)
        switch defaults.value(at: path) {
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

    /// `text` read as one TOML string.
    private static func tomlString(_ text: String) -> String? {
        guard !text.contains("\n"), let table = try? TOMLTable(string: "v = " + text) else { return nil }
        return table["v"]?.string
    }

    /// `text` read as one TOML array of strings.
    private static func tomlStrings(_ text: String) -> [String]? {
        guard !text.contains("\n"), let table = try? TOMLTable(string: "v = " + text),
            let array = table["v"]?.array
        else { return nil }
        let strings = array.compactMap(\.string)
        return strings.count == array.count ? strings : nil
    }
}

/// Why an edit of the settings file was refused or failed; nothing was written.
public struct SettingsEditError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The request is wrong: an unknown key, a value of the wrong type, or a result that would be invalid.
        case invalidRequest
        /// The file already has errors; it is left for the user to fix.
        case invalidFile
        /// The file could not be read, created or replaced.
        case fileSystem
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
