import ArgumentParser
import CGPSVersion
import Control
import ForecastModel
import Foundation
import Gazetteer
import Rendering
import Settings

#if canImport(Glibc)
    import Glibc
#endif

struct Forecastctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecastctl",
        abstract: "Ask forecastd for the weather, change its settings, and look up places offline.",
        // The sections become sections of forecastctl(1) (scripts/man-pages): a heading, then entries
        // indented by two spaces and their descriptions by six.
        discussion: """
            Every subcommand takes --config PATH and --socket PATH. Edits to the settings file change only \
            the values they set, are checked first and written atomically.

            ENVIRONMENT:
              FORECASTD_CONFIG
                  The settings file to read when --config is not given, as for
                  forecastd.
              XDG_CONFIG_HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME
                  Where the settings, the daemon's socket and status file, and the
                  history are.
              FORECASTD_GAZETTEER
                  The place data to use instead of the installed gazetteer.bin.

            FILES:
              $XDG_CONFIG_HOME/forecastd/forecastd.toml, /etc/forecastd/forecastd.toml
                  The settings read and edited: the first that exists (see
                  forecastd.toml(5)).
              $XDG_RUNTIME_DIR/forecastd/forecastd.sock, /run/forecastd/forecastd.sock
                  The daemon's socket: your daemon's, else a system service's.
              $XDG_RUNTIME_DIR/forecastd/report.json, /run/forecastd/report.json
                  The status file that status shows when the daemon is not running.
              $XDG_STATE_HOME/forecastd/history.sqlite
                  The recorded weather of favourite cities, which history reads.

            EXIT STATUS:
              0   Success.
              1   A request failed, or a file could not be written.
              2   cities import: some lines were skipped, the others imported.
              64  Bad arguments, or a setting the file does not allow.
              65  cities import: the file is unusable; nothing changed.
              69  forecastd is not running (for status: nor is there a status file).
              78  The settings file is invalid.

            EXAMPLES:
              The weather here, and the week ahead:
                  forecastctl status
                  forecastctl forecast
              A Waybar module that follows the daemon:
                  forecastctl watch --format waybar
              Pin the position to a place and switch to imperial units, with wind in knots:
                  forecastctl pin "Paris, TX"
                  forecastctl units imperial
                  forecastctl units wind kn
              Choose the place on a map in the browser, and pin it:
                  forecastctl pick
              The nearest place to a coordinate, without a daemon:
                  forecastctl place 48.85 2.35
              Start a settings file from the documented one (every key at its default):
                  forecastctl config default > ~/.config/forecastd/forecastd.toml
            """,
        version: ForecastdVersion.versionLine(
            program: "forecastctl", libgpsMajor: forecastd_libgps_api_major(), libgpsMinor: forecastd_libgps_api_minor()),
        subcommands: [
            Status.self, Watch.self, ForecastCommand.self, WarningsCommand.self, Refresh.self, PlaceCommand.self, UnitsCommand.self, PinCommand.self, PickCommand.self, UnpinCommand.self, ModeCommand.self,
            SetCommand.self, ConfigCommand.self, ReloadCommand.self, LocateCommand.self,
            CitiesCommand.self, HistoryCommand.self,
        ]
    )
}

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Settings file to read (default: the daemon's search order).", valueName: "PATH"),
        completion: Completions.settingsFile)
    var config: String?

    @Option(
        name: .long, help: ArgumentHelp("The daemon's socket (default: the one named in the settings).", valueName: "PATH"),
        completion: .file())
    var socket: String?

    /// The settings the daemon would use, so forecastctl finds the same socket and status file.
    func loadSettings() throws -> Settings {
        do {
            let source = try Settings.locate(explicit: config)
            return try Settings.load(source, isSystemService: false)
        } catch {
            throw CommandFailure(message: "invalid settings:\n\(error)", exitCode: .configError)
        }
    }

    /// The socket to talk to: `--socket`, else the one the settings name, else a system service's
    /// socket when only that one exists (a user asking a system-wide daemon).
    func socketPath(_ settings: Settings) -> String {
        if let socket { return socket }
        return preferExisting(settings.output.socket, Settings.defaults(isSystemService: true).output.socket)
    }

    /// The status file to fall back on, chosen like the socket.
    func statusFile(_ settings: Settings) -> String {
        preferExisting(settings.output.statusFile, Settings.defaults(isSystemService: true).output.statusFile)
    }

    private func preferExisting(_ user: String, _ system: String) -> String {
        let manager = FileManager.default
        return !manager.fileExists(atPath: user) && manager.fileExists(atPath: system) ? system : user
    }
}

/// An error with a message for people and a documented exit code.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: ExitCode
    var description: String { message }
}

extension ExitCode {
    static let requestFailed = ExitCode(1)
    static let usage = ExitCode(64)
    static let unavailable = ExitCode(69)
    static let configError = ExitCode(78)
}

/// Runs a command body, turning failures into a message on stderr and the documented exit code.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CommandFailure {
        FileHandle.standardError.write(Data(("forecastctl: " + failure.message + "\n").utf8))
        throw failure.exitCode
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current report: a short summary, the raw JSON with --json, or a bar's --format.",
        discussion: """
            When forecastd is not running, the last status file it wrote is shown instead, with a note on stderr, \
            marked stale with its age counted now (and "forecastd is not running" in the summary and tooltips) \
            once it no longer holds. With --format, a bar always gets a line and exit code 0, even when there is \
            nothing to show: bars that run it at an interval (i3blocks, tmux, conky) see a killed daemon within one.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Flag(name: .long, help: "Print the report as one line of JSON, exactly as the daemon publishes it.")
    var json = false

    func run() throws {
        if let format = output.format {
            // For bars: the daemon renders; without it, the status file is rendered here (judged as it is read).
            let settings = (try? global.loadSettings()) ?? Settings.defaults(isSystemService: false)
            let socket = global.socketPath(settings)
            var notRunning = false
            do throws(ControlClientError) {
                if format.lineCount > 1 {
                    // The socket sends the first line of a multi-line format (what a persistent block
                    // reads): take the daemon's report and render every line here, with the daemon's options.
                    let request = ControlRequest.report(ReportOptions(city: output.city))
                    let line = try ControlClient(socketPath: socket).request(request)
                    if let report = try? ReportJSON.decode(line) {
                        print(output.render(report, settings))
                        return
                    }
                } else {
                    print(try ControlClient(socketPath: socket).request(.report(output.reportOptions)))
                    return
                }
            } catch {
                notRunning = error.daemonNotRunning
            }
            // Read now, so ages are counted to now; "forecastd is not running" in the tooltip when that is why.
            if let reading = StatusFileReport(path: global.statusFile(settings), city: output.city).read(
                socketSaysNotRunning: notRunning)
            {
                print(output.render(reading, settings))
                return
            }
            print(
                output.unavailableLine(
                    settings.phrases.translation.text(
                        "forecastd is not running and has written no status file", context: "forecastctl"),
                    phrases: settings.phrases))
            return
        }
        try reportingFailures {
            let settings = try global.loadSettings()
            let fetched = try fetchReport(
                socketPath: global.socketPath(settings), statusFile: global.statusFile(settings),
                request: .report(output.reportOptions), phrases: settings.phrases)
            var line = fetched.line
            if case .error(let error) = ControlReply(line: line) {
                throw CommandFailure(message: error.message, exitCode: .usage)
            }
            var report: Report
            do {
                report = try ReportJSON.decode(line)
            } catch {
                throw CommandFailure(message: "the report is not valid JSON: \(error)", exitCode: .requestFailed)
            }
            // The status file holds the whole report: pick the city from it when the daemon is away.
            if let city = output.city, report.location?.source != "city" {
                guard let cityReport = report.city(city) else {
                    let listed = (report.cities ?? []).map(\.id).joined(separator: ", ")
                    throw CommandFailure(message: "unknown city \"\(city)\" (listed: \(listed.isEmpty ? "none" : listed))", exitCode: .usage)
                }
                report = cityReport.report
                line = ReportJSON.line(report)
            }
            if json {
                print(line)
                return
            }
            print(HumanSummary.render(report, phrases: settings.phrases, absence: fetched.absence))
        }
    }
}

struct PlaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "place",
        abstract: "Print the nearest place to a coordinate as JSON, from the offline gazetteer (no daemon needed).",
        discussion: "Examples: forecastctl place 48.8566 2.3522; forecastctl place -34.9011,-56.1645")

    @OptionGroup var global: GlobalOptions

    // Negative numbers look like options to the parser: take the words as they come.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Latitude and longitude in decimal degrees.", valueName: "LAT LON"))
    var words: [String] = []

    func run() throws {
        try reportingFailures {
            let coordinate = try parseCoordinate(words)
            let gazetteer: Gazetteer
            do {
                gazetteer = try Gazetteer.loadDefault()
            } catch {
                throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
            }
            guard let place = gazetteer.nearestPlace(to: coordinate) else {
                throw CommandFailure(message: "no place found near \(coordinate.latitude), \(coordinate.longitude)", exitCode: .requestFailed)
            }
            print(PlaceJSON.line(place))
        }
    }
}

/// Reads `LAT LON` or `LAT,LON` in decimal degrees.
func parseCoordinate(_ words: [String]) throws -> Coordinate {
    let parts = words.joined(separator: " ").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
        throw CommandFailure(
            message: "expected a latitude and a longitude in decimal degrees, e.g. `48.8566 2.3522` (got `\(words.joined(separator: " "))`)",
            exitCode: .usage)
    }
    guard latitude.isFinite, (-90...90).contains(latitude) else {
        throw CommandFailure(message: "latitude \(parts[0]) is out of range (allowed: -90...90)", exitCode: .usage)
    }
    guard longitude.isFinite, (-180...180).contains(longitude) else {
        throw CommandFailure(message: "longitude \(parts[1]) is out of range (allowed: -180...180)", exitCode: .usage)
    }
    return Coordinate(latitude: latitude, longitude: longitude)
}

/// The JSON `forecastctl place` prints, with the same field names as the report's `place`.
enum PlaceJSON {
    struct Output: Encodable {
        var name: String
        var admin1: String?
        var country: String
        var countryCode: String
        var population: Int
        var latitude: Double
        var longitude: Double
        var timezone: String?
        var distanceKm: Double
    }

    static func line(_ place: Place) -> String {
        let output = Output(
            name: place.name, admin1: place.admin1, country: place.country, countryCode: place.countryCode,
            population: place.population, latitude: place.coordinate.latitude, longitude: place.coordinate.longitude,
            timezone: place.timezone, distanceKm: place.distanceKm.rounded(places: 3))
        return String(decoding: (try? ControlCoder.encoder.encode(output)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
