import Foundation

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

    /// What a date key allows, as messages say it.
    static let dateAllowed = "a date written as 2026-11-22, without quotes"
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
        case .string(let string): TOMLText.quote(string)
        case .integer(let integer): String(integer)
        case .number(let number): Self.render(number)
        case .boolean(let boolean): boolean ? "true" : "false"
        case .strings(let strings): "[" + strings.map(TOMLText.quote).joined(separator: ", ") + "]"
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

    /// The string, when the value is one.
    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number, when the value is one (an integer where a number is allowed included).
    var number: Double? {
        switch self {
        case .number(let number): number
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// A floating-point number TOML accepts back: always with a fraction or an exponent.
    static func render(_ number: Double) -> String {
        let text = "\(number)"
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) ? text : text + ".0"
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
