/// A secret setting (an API key) that never shows itself.
///
/// `description`, `debugDescription`, string interpolation, `dump` and `Mirror` all give `(secret)`
/// or the origin, never the value, so a secret cannot leak into a log line, a report or
/// `forecastctl config show` by accident. Code that sends it to a service asks for ``revealed``.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where a secret came from, which is safe to show.
    public enum Origin: Sendable, Hashable {
        /// Written in the settings file itself (`api_key = "…"`).
        case settingsFile
        /// Read from the first line of a file (`api_key_file = "PATH"`).
        case keyFile(path: String)
        /// Taken from an environment variable.
        case environment(variable: String)
    }

    public let origin: Origin
    private let value: String

    public init(_ value: String, origin: Origin) {
        self.value = value
        self.origin = origin
    }

    /// The secret itself, for the request that needs it and nothing else.
    public var revealed: String { value }

    public var description: String { "(secret)" }

    public var debugDescription: String { "(secret)" }

    public var customMirror: Mirror {
        Mirror(self, children: ["origin": origin], displayStyle: .struct)
    }

    /// What `forecastctl config show` prints in its place: `(set)`, `(from file PATH)` or
    /// `(from $VARIABLE)`.
    public var shownAs: String {
        switch origin {
        case .settingsFile: "(set)"
        case .keyFile(let path): "(from file \(path))"
        case .environment(let variable): "(from $\(variable))"
        }
    }
}

/// Something in a settings file that works but deserves the user's attention.
public struct SettingsWarning: Sendable, Hashable, CustomStringConvertible {
    /// The file the warning is about.
    public var path: String
    /// What to know and what to do, e.g. `holds an API key and is readable by other users; chmod 600 PATH`.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `PATH: message`.
    public var description: String { "\(path): \(message)" }
}

/// Settings as loaded, with what the user should be told about their files.
public struct LoadedSettings: Sendable, Hashable {
    public var settings: Settings
    /// Problems that do not stop forecastd, such as an API key others can read; log each one.
    public var warnings: [SettingsWarning]

    public init(settings: Settings, warnings: [SettingsWarning]) {
        self.settings = settings
        self.warnings = warnings
    }
}
