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
    errors now, is no settings file, or was named and does not exist (nothing was written).
    """

let editDiscussion = """
    The file edited is the one forecastd reads (--config PATH, $FORECASTD_CONFIG, \
    $XDG_CONFIG_HOME/forecastd/forecastd.toml, /etc/forecastd/forecastd.toml). When none exists, \
    $XDG_CONFIG_HOME/forecastd/forecastd.toml is created: the documented file holding the settings in \
    effect. A file named by --config or $FORECASTD_CONFIG that does not exist is refused (exit 78), since \
    the daemon may still run on what it said. Only the value that changes is rewritten: comments, blank \
    lines and the order of keys stay as they are. The result is checked before it is written, and \
    written atomically. A running forecastd is told to reload.
    """

struct UnitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "units",
        abstract: "Choose the units reports are written in: a preset, or one quantity's unit.",
        discussion: """
            Examples: forecastctl units uk; forecastctl units wind kn; forecastctl units time 12h

            A preset gives every quantity its unit: metric (°C, km/h, hPa, mm, km), imperial (°F, mph, inHg, \
            in, mi), uk (°C, mph, hPa, mm, mi), si (°C, m/s, hPa, mm, km). Choosing a preset also removes the \
            units set apart from it, so it means what it says. QUANTITY UNIT sets one quantity apart from the \
            preset: \(UnitQuantity.allCases.map { "\($0.rawValue) (\($0.unitNames.joined(separator: ", ")))" }.joined(separator: "; ")). \
            Wind in bft is the Beaufort force, 0 to 12. The clock (time) follows the locale unless set. The \
            one-line `units = "…"` of the settings file then becomes a [units] table, keeping its comments. \
            Units are converted from the forecast already fetched: a change never asks the weather service \
            again.

            """ + editDiscussion + "\n\n" + editExitCodes)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A preset (metric, imperial, uk, si), or a quantity and its unit (wind kn).", valueName: "PRESET | QUANTITY UNIT"),
        completion: Completions.units)
    var words: [String]

    func validate() throws {
        guard (1...2).contains(words.count) else {
            throw ValidationError("units takes a preset (metric, imperial, uk, si), or a quantity and its unit (wind kn)")
        }
        if words.count == 1, UnitSystem(rawValue: words[0]) == nil {
            let presets = UnitSystem.allCases.map(\.rawValue).joined(separator: ", ")
            let quantities = UnitQuantity.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError(
                "\"\(words[0])\" is not a preset (\(presets)); to set one quantity, give it and its unit: \(quantities)")
        }
    }

    func run() throws {
        try reportingFailures { try applyEdit(.units(words.joined(separator: " ")), global) }
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
        try reportingFailures { try applyEdit(.mode(mode.rawValue), global) }
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
            // The gazetteer is opened only for a place name.
            var places: Gazetteer?
            if case .failure(.notACoordinate) = Result(catching: { () throws(CoordinateParseError) in
                try CoordinateParser.parse(text)
            }) {
                do {
                    places = try Gazetteer.loadDefault()
                } catch {
                    throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
                }
            }
            try applyEdit(.pin(text, name: name), global, places: places)
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
        try reportingFailures { try applyEdit(.unpin, global) }
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
            try applyEdit(.set(key: key, value: words.joined(separator: " ")), global)
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
                answer = try client.request(.reload)
            } catch {
                throw CommandFailure(
                    message: error.description, exitCode: error.daemonNotRunning ? .unavailable : .requestFailed)
            }
            switch ControlReply(line: answer) {
            case .error(let error):
                throw CommandFailure(message: "forecastd: \(error.message)", exitCode: .requestFailed)
            case .outcome(let outcome):
                guard outcome.ok else {
                    throw CommandFailure(message: "forecastd: \(outcome.message)", exitCode: .configError)
                }
                print(outcome.message)
            case .version, .status, .locate, .report:
                print(answer)
            }
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

/// The settings file an edit changes, by the rule the daemon's socket follows too.
func editTarget(_ global: GlobalOptions) -> SettingsEditTarget {
    let environment = ProcessInfo.processInfo.environment
    let defaults = Settings.defaults(environment: environment, isSystemService: false)
    return SettingsEditTarget.locate(
        explicit: global.config, environment: environment, inEffect: defaults, defaults: defaults)
}

/// Applies `request` as the socket would, prints what changed, and tells a running daemon to reload.
func applyEdit(_ request: SettingsEditRequest, _ global: GlobalOptions, places: (any PlaceSearching)? = nil) throws {
    let outcome: SettingsEditOutcome
    do {
        outcome = try SettingsFileEditor.apply(request, to: editTarget(global), places: places)
    } catch {
        throw CommandFailure(editError: error)
    }
    outcome.lines.forEach { print($0) }
    outcome.notes.forEach(note)
    if let edit = outcome.edit {
        afterEdit(edit, global)
    }
}

/// Applies `edits` to the settings file an edit changes, then tells a running daemon to reload.
func editSettings(
    _ global: GlobalOptions, _ edits: (inout SettingsDocument) throws(SettingsEditError) -> Void
) throws -> SettingsFileEdit {
    let edit: SettingsFileEdit
    do {
        edit = try SettingsFileEditor.edit(editTarget(global), edits)
    } catch {
        throw CommandFailure(editError: error)
    }
    if edit.created { print("created \(edit.path) from the settings in effect") }
    afterEdit(edit, global)
    return edit
}

/// Shows an edit's warnings and, when the file was written, asks a running daemon to reload.
func afterEdit(_ edit: SettingsFileEdit, _ global: GlobalOptions) {
    edit.warnings.forEach { warn($0.description) }
    if edit.written {
        askDaemonToReload(socketPath: global.socketPath(edit.settings), phrases: edit.settings.phrases)
    }
}

/// Sends `reload` to a running daemon, so the edit is in force when the command returns; a daemon that is not
/// running reads the file when it starts. Says only what the lines of the edit did not: keys that wait for
/// a restart, a refusal, a daemon that could not be asked. (The daemon follows the file itself and has
/// often applied the edit before it is asked: "nothing changed" then says nothing the user needs.)
func askDaemonToReload(socketPath: String, phrases: Phrases = .english) {
    let translation = phrases.translation
    do {
        let client = try ControlClient(socketPath: socketPath, timeout: .seconds(5))
        switch ControlReply(line: try client.request(.reload)) {
        case .error(let error):
            note(
                translation.text(
                    "forecastd did not reload ({problem}); it follows the file by itself", context: "forecastctl",
                    ["problem": error.message]))
        case .outcome(let outcome):
            if !outcome.ok || outcome.changed == nil {
                // Refused (the file is invalid after all), or a daemon that does not say what changed.
                note("forecastd: \(outcome.message)")
            } else if let waiting = outcome.waitingForRestart, !waiting.isEmpty {
                note(
                    translation.text(
                        "read when forecastd starts, so in force after a restart: {keys}", context: "forecastctl",
                        ["keys": waiting.joined(separator: ", ")]))
            }
        case .version, .status, .locate, .report:
            break
        }
    } catch {
        if error.daemonNotRunning {
            note(translation.text("the daemon is not running; it will read the change when it starts", context: "forecastctl"))
        } else {
            note(
                translation.text(
                    "could not ask forecastd to reload: {problem}", context: "forecastctl", ["problem": error.description]))
        }
    }
}

/// A line for the user on standard error that is not a failure.
func note(_ text: String) {
    FileHandle.standardError.write(Data(("forecastctl: " + text + "\n").utf8))
}

func warn(_ text: String) {
    FileHandle.standardError.write(Data(("forecastctl: warning: " + text + "\n").utf8))
}
