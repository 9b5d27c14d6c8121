import ArgumentParser
import Control
import ForecastModel
import Foundation
import Gazetteer
import Settings

// The commands that read and edit the settings file: units, pin, unpin, mode, set, config, reload.

/// The exit codes of the commands that edit the settings file, for their help.
let editExitCodes = """
    Exit codes: 0 the file was changed (or already said so); 1 the file could not be read or written; \
    64 bad arguments, or a value the settings do not allow (nothing was written); 78 the settings file has \
    errors now (nothing was written; fix them first).
    """

let editDiscussion = """
    The file edited is the one forecastd reads (--config PATH, $FORECASTD_CONFIG, \
    $XDG_CONFIG_HOME/forecastd/forecastd.toml, /etc/forecastd/forecastd.toml); when there is none, \
    $XDG_CONFIG_HOME/forecastd/forecastd.toml is created from the documented defaults. Only the value \
    that changes is rewritten: comments, blank lines and the order of keys stay as they are. The result is \
    checked before it is written, and written atomically. A running forecastd is told to reload.
    """

struct UnitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "units",
        abstract: "Switch reports to metric or imperial units.",
        discussion: "Example: forecastctl units imperial\n\n" + editDiscussion + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "metric or imperial.")
    var system: UnitSystem

    func run() throws {
        try reportingFailures {
            let edit = try editSettings(global) { document throws(SettingsEditError) in
                document.set(try SettingsKey("units"), to: .string(system.rawValue))
            }
            report(edit, unchanged: "units: \(system.rawValue)")
        }
    }
}

struct ModeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mode",
        abstract: "Choose how forecastd finds the position: auto (gpsd and fallbacks) or pinned (the pin only).",
        discussion: "Example: forecastctl mode pinned (needs a pin: forecastctl pin first)\n\n" + editDiscussion
            + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "auto or pinned.")
    var mode: LocationMode

    func run() throws {
        try reportingFailures {
            let edit = try editSettings(global) { document throws(SettingsEditError) in
                document.set(try SettingsKey("location.mode"), to: .string(mode.rawValue))
            }
            report(edit, unchanged: "location.mode: \(mode.rawValue)")
        }
    }
}

struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Pin the position to a place given as coordinates, a geo: URI, a map link or a place name.",
        discussion: """
            Accepted: 48.8566,2.3522 or 48.8566 2.3522 (decimal degrees, N/S/E/W allowed); 48°51'24"N 2°21'08"E \
            or 48 51 24 N 2 21 8 E (degrees, minutes, seconds); geo:48.85,2.35 (RFC 5870); OpenStreetMap links \
            (?mlat=..&mlon=.., #map=Z/LAT/LON); Google Maps links (@LAT,LON,Zz, ?q=LAT,LON, /place/NAME/@LAT,LON, \
            whose NAME becomes the pin's name unless --name is given); a place name looked up offline (Paris, \
            "Paris, FR", "Paris, Texas", "Sao Paulo"; an ambiguous name lists the candidates). Quote text with \
            spaces or shell characters.

            The pin is written to [location.pin]. In mode "auto" it is the last fallback; `forecastctl mode pinned` \
            uses it always.

            """ + "\n" + editDiscussion + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The name to show for the place (default: the name of the nearest place).")
    var name: String?

    // Negative numbers look like options to the parser: take the words as they come.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Coordinates, a geo: URI or a map link.", valueName: "PLACE"))
    var words: [String] = []

    func run() throws {
        try reportingFailures {
            let text = words.joined(separator: " ")
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CommandFailure(
                    message: "pin needs a place, e.g. `forecastctl pin 48.8566,2.3522`", exitCode: .usage)
            }
            let pin = try resolvePin(text)
            let label = name ?? pin.name
            let edit = try editSettings(global) { document throws(SettingsEditError) in
                try document.setPin(pin.coordinate, name: label)
            }
            report(edit, unchanged: "location.pin: \(describe(edit.settings.location.pin))")
            if edit.settings.location.mode == .auto {
                note(
                    "mode is \"auto\": the pin is used when no other source knows the position; "
                        + "`forecastctl mode pinned` uses it always")
            }
        }
    }

    /// Six decimals: about 0.1 m, more than any map click means.
    /// The position `text` names.
    ///
    /// This is where a place-name search will join: ``CoordinateParseError/notACoordinate(_:)`` carries
    /// the text to look up.
    private func resolvePin(_ text: String) throws -> Pin {
        do {
            return try CoordinateParser.parse(text)
        } catch .notACoordinate(let name) {
            return try resolvePlaceName(name)
        } catch {
            throw CommandFailure(message: error.description, exitCode: .usage)
        }
    }

    /// A place name looked up offline in the gazetteer: `Paris`, `Paris, FR`, `Paris, Texas`, `Sao Paulo`.
    private func resolvePlaceName(_ name: String) throws -> Pin {
        let gazetteer: Gazetteer
        do {
            gazetteer = try Gazetteer.loadDefault()
        } catch {
            throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
        }
        switch gazetteer.resolve(name) {
        case .unique(let place):
            note("\(name) is \(PlaceText.describe(place))")
            return Pin(coordinate: place.coordinate, name: place.name)
        case .ambiguous(let places):
            let list = places.map { "  " + PlaceText.describe($0) }.joined(separator: "\n")
            throw CommandFailure(
                message: "\"\(name)\" matches several places; name one more precisely, e.g. \"\(name), \(places[0].countryCode)\":\n\(list)",
                exitCode: .usage)
        case .notFound:
            throw CommandFailure(
                message: "\"\(name)\" is not a coordinate, a map link or a known place (places of 1000 inhabitants and more)",
                exitCode: .usage)
        }
    }
}

struct UnpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "Remove the pinned position ([location.pin]); in mode \"pinned\" the mode goes back to \"auto\".",
        discussion: editDiscussion + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            if global.config == nil, case .builtInDefaults = try locateSettings(global) {
                print("location.pin: (none), unchanged (there is no settings file)")
                return
            }
            let edit = try editSettings(global) { document throws(SettingsEditError) in
                let current = try? Settings.decode(
                    document.text, path: "", defaults: Settings.defaults(isSystemService: false))
                if current?.location.mode == .pinned {
                    // Without a pin, "pinned" means nothing; "auto" is what is left.
                    document.set(try SettingsKey("location.mode"), to: .string("auto"))
                }
                document.remove(["location", "pin"])
            }
            report(edit, unchanged: "location.pin: (none)")
        }
    }
}

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set any documented settings key.",
        discussion: """
            Examples: forecastctl set units imperial; forecastctl set refresh_minutes 30; \
            forecastctl set location.gpsd.port 2948; forecastctl set providers.order met-norway,open-meteo \
            (or '["met-norway","open-meteo"]'). Strings may be given bare or quoted as TOML ("text"). \
            `forecastctl config show` lists every key with its current value.

            """ + "\n" + editDiscussion + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The key, with dots: location.gpsd.port.", valueName: "KEY"))
    var key: String

    // Negative numbers look like options to the parser: take the words as they come.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new value.", valueName: "VALUE"))
    var words: [String] = []

    func run() throws {
        try reportingFailures {
            guard !words.isEmpty else {
                throw CommandFailure(
                    message: "set needs a KEY and a VALUE, e.g. `forecastctl set units imperial`", exitCode: .usage)
            }
            let settingsKey: SettingsKey
            let value: SettingsValue
            do throws(SettingsEditError) {
                settingsKey = try SettingsKey(key)
                value = try settingsKey.parse(words.joined(separator: " "))
            } catch {
                throw CommandFailure(editError: error)
            }
            let edit = try editSettings(global) { document throws(SettingsEditError) in
                document.set(settingsKey, to: value)
            }
            let shown = edit.settings.value(at: settingsKey.path)?.description ?? "(none)"
            report(edit, unchanged: "\(settingsKey): \(shown)")
        }
    }
}

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show which settings file is used, what it sets, and whether it is valid.",
        subcommands: [PathCommand.self, ShowCommand.self, CheckCommand.self])

    struct PathCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path",
            abstract: "Print the settings file in use (first line) and every path searched, in order.",
            discussion: "Exit codes: 0 success; 78 a file named by --config or $FORECASTD_CONFIG does not exist.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let environment = ProcessInfo.processInfo.environment
                let source: SettingsSource
                do {
                    source = try Settings.locate(explicit: global.config)
                } catch {
                    let named = global.config ?? environment["FORECASTD_CONFIG"] ?? ""
                    let origin = global.config != nil ? "--config" : "$FORECASTD_CONFIG"
                    print(named)
                    print("searched, in order:")
                    print("  \(named)  (named by \(origin)): not found")
                    throw CommandFailure(message: "\(named): no such file (named by \(origin))", exitCode: .configError)
                }
                switch source {
                case .file(let path, let origin, let searched):
                    print(path)
                    print("searched, in order:")
                    for candidate in searched {
                        let found = candidate == path
                        print(
                            "  \(candidate)  (\(describe(origin: found ? origin : nil, path: candidate))): \(found ? "used" : "not found")"
                        )
                    }
                case .builtInDefaults(let searched):
                    print("(none: the built-in defaults apply; edits create \(Settings.userConfigurationPath()))")
                    print("searched, in order:")
                    for candidate in searched {
                        print("  \(candidate)  (\(describe(origin: nil, path: candidate))): not found")
                    }
                }
            }
        }

        private func describe(origin: SettingsSource.Origin?, path: String) -> String {
            switch origin {
            case .commandLine: return "named by --config"
            case .environment: return "named by $FORECASTD_CONFIG"
            case .userConfiguration: return "the user's file"
            case .systemConfiguration: return "the system's file"
            case nil: return path == Settings.systemConfigurationPath ? "the system's file" : "the user's file"
            }
        }
    }

    struct ShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the settings in effect, every key with its value, as TOML.",
            discussion: """
                Keys the file leaves out show their defaults. An API key is never printed: it shows as "(set)", \
                "(from file PATH)" or "(from $VARIABLE)".

                Exit codes: 0 success; 78 the settings file is invalid.
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let source = try locateSettings(global)
                let loaded: LoadedSettings
                do {
                    loaded = try Settings.loadWithWarnings(source, isSystemService: false)
                } catch {
                    throw CommandFailure(message: "invalid settings:\n\(error)", exitCode: .configError)
                }
                loaded.warnings.forEach { warn($0.description) }
                print(
                    loaded.settings.toml(origin: source.path ?? "the built-in defaults (no settings file)"),
                    terminator: "")
            }
        }
    }

    struct CheckCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a settings file: print PATH: OK, or every problem as PATH:LINE:COLUMN: key: problem.",
            discussion: """
                Without PATH, the file forecastd would read is checked. Problems are printed on standard error, \
                one a line, in the format editors jump to.

                Exit codes: 0 the file is valid (or there is none); 78 it has problems, or PATH does not exist.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The file to check (default: the one forecastd reads).", valueName: "PATH"))
        var path: String?

        func run() throws {
            try reportingFailures {
                let source: SettingsSource
                if let path {
                    source = .file(path: path, origin: .commandLine, searched: [path])
                } else {
                    source = try locateSettings(global)
                }
                guard let file = source.path else {
                    print("no settings file: the built-in defaults apply: OK")
                    return
                }
                do throws(SettingsError) {
                    let loaded = try Settings.loadWithWarnings(source, isSystemService: false)
                    loaded.warnings.forEach { warn($0.description) }
                    print("\(file): OK")
                } catch {
                    FileHandle.standardError.write(Data((error.description + "\n").utf8))
                    throw ExitCode.configError
                }
            }
        }
    }
}

struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Ask the running forecastd to read its settings file again, and print its answer.",
        discussion: """
            forecastd also follows the file by itself and on SIGHUP; this is for scripts that want the answer.

            Exit codes: 0 forecastd reloaded (or found nothing changed); 1 the request failed; 69 forecastd is not \
            running; 78 the settings file is invalid (forecastd keeps its last good settings, or forecastctl could \
            not read the file to find the socket).
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let socketPath = try global.socket ?? global.socketPath(global.loadSettings())
            let answer: String
            do throws(ControlClientError) {
                let client = try ControlClient(socketPath: socketPath)
                answer = try client.request("reload")
            } catch {
                throw CommandFailure(
                    message: error.description, exitCode: error.daemonNotRunning ? .unavailable : .requestFailed)
            }
            if let message = errorMessage(answer) {
                throw CommandFailure(message: "forecastd: \(message)", exitCode: .requestFailed)
            }
            guard let outcome = try? JSONDecoder().decode(ControlAnswer.self, from: Data(answer.utf8)) else {
                print(answer)
                return
            }
            guard outcome.ok else {
                throw CommandFailure(message: "forecastd: \(outcome.message)", exitCode: .configError)
            }
            print(outcome.message)
        }
    }
}

// MARK: - Shared

extension CommandFailure {
    /// The failure for a refused or failed edit, with its documented exit code.
    init(editError: SettingsEditError) {
        let code: ExitCode =
            switch editError.kind {
            case .invalidRequest: .usage
            case .invalidFile: .configError
            case .fileSystem: .requestFailed
            }
        self.init(message: editError.message, exitCode: code)
    }
}

/// The settings file forecastctl would read, as the daemon finds it.
func locateSettings(_ global: GlobalOptions) throws -> SettingsSource {
    do {
        return try Settings.locate(explicit: global.config)
    } catch {
        throw CommandFailure(message: "\(error)", exitCode: .configError)
    }
}

/// Applies `edits` to the settings file the search order finds (or creates), then tells a running
/// daemon to reload.
func editSettings(
    _ global: GlobalOptions, _ edits: (inout SettingsDocument) throws(SettingsEditError) -> Void
) throws -> SettingsFileEdit {
    let environment = ProcessInfo.processInfo.environment
    // A path the user named is edited (and created) as named; otherwise the file found, or the user's file.
    let path: String
    if let explicit = global.config {
        path = explicit
    } else if let named = environment["FORECASTD_CONFIG"], !named.isEmpty {
        path = named
    } else {
        path = try locateSettings(global).path ?? Settings.userConfigurationPath(environment: environment)
    }
    let edit: SettingsFileEdit
    do {
        edit = try SettingsFileEditor.edit(path: path, create: true, environment: environment, edits)
    } catch {
        throw CommandFailure(editError: error)
    }
    edit.warnings.forEach { warn($0.description) }
    if edit.written {
        askDaemonToReload(socketPath: global.socketPath(edit.settings))
    }
    return edit
}

/// Prints what an edit changed, `key: old → new (PATH)`, or `unchanged` when nothing did.
func report(_ edit: SettingsFileEdit, unchanged: String) {
    if edit.created {
        print("created \(edit.path) from the documented defaults")
    }
    let pinKeys = ["location.pin.latitude", "location.pin.longitude", "location.pin.name"]
    var lines = edit.changes.filter { !pinKeys.contains($0.key) }.map(\.description)
    if edit.changes.contains(where: { pinKeys.contains($0.key) }) {
        let before = pinBefore(edit)
        lines.insert("location.pin: \(describe(before)) → \(describe(edit.settings.location.pin))", at: 0)
    }
    if lines.isEmpty {
        print("\(unchanged), unchanged (\(edit.path))")
        return
    }
    for line in lines {
        print("\(line) (\(edit.path))")
    }
}

/// The pin before the edit, rebuilt from the changes (the edit keeps only the new settings).
private func pinBefore(_ edit: SettingsFileEdit) -> Pin? {
    func old(_ key: String, _ current: SettingsValue?) -> SettingsValue? {
        guard let change = edit.changes.first(where: { $0.key == key }) else { return current }
        return change.old
    }
    let pin = edit.settings.location.pin
    let latitude = old("location.pin.latitude", pin.map { .number($0.coordinate.latitude) })
    let longitude = old("location.pin.longitude", pin.map { .number($0.coordinate.longitude) })
    let name = old("location.pin.name", pin?.name.map { .string($0) })
    guard case .number(let lat)? = latitude, case .number(let lon)? = longitude else { return nil }
    if case .string(let text)? = name {
        return Pin(coordinate: Coordinate(latitude: lat, longitude: lon), name: text)
    }
    return Pin(coordinate: Coordinate(latitude: lat, longitude: lon))
}

/// `48.8566, 2.3522 "Paris"`, or `(none)`.
func describe(_ pin: Pin?) -> String {
    guard let pin else { return "(none)" }
    var text = "\(SettingsValue.number(pin.coordinate.latitude)), \(SettingsValue.number(pin.coordinate.longitude))"
    if let name = pin.name { text += " " + SettingsValue.string(name).toml }
    return text
}

/// Sends `reload` to a running daemon; a daemon that is not running reads the file when it starts.
func askDaemonToReload(socketPath: String) {
    do {
        let client = try ControlClient(socketPath: socketPath, timeout: .seconds(5))
        let answer = try client.request("reload")
        if let message = errorMessage(answer) {
            note("forecastd did not reload (\(message)); it follows the file by itself")
        } else if let outcome = try? JSONDecoder().decode(ControlAnswer.self, from: Data(answer.utf8)) {
            note("forecastd: \(outcome.message)")
        } else {
            note("forecastd reloaded its settings")
        }
    } catch {
        if error.daemonNotRunning {
            note("the daemon is not running; it will read the change when it starts")
        } else {
            note("could not ask forecastd to reload: \(error.description)")
        }
    }
}

/// The message of an `{"class":"ERROR",...}` answer, or `nil` for any other answer.
func errorMessage(_ answer: String) -> String? {
    guard let error = try? JSONDecoder().decode(ControlErrorMessage.self, from: Data(answer.utf8)),
        error.class == "ERROR"
    else { return nil }
    return error.message
}

/// A line for the user on standard error that is not a failure.
func note(_ text: String) {
    FileHandle.standardError.write(Data(("forecastctl: " + text + "\n").utf8))
}

func warn(_ text: String) {
    FileHandle.standardError.write(Data(("forecastctl: warning: " + text + "\n").utf8))
}
