import ForecastModel
import Foundation

/// Everything forecastd reads from `forecastd.toml`, with every default already applied.
///
/// The shape mirrors the file: `units`, `refresh_minutes`, `[location]` with `[location.pin]` and
/// `[location.gpsd]`, `[providers.open_meteo]` and `[output]`. Build one with
/// ``defaults(environment:isSystemService:userID:)``, ``load(from:environment:isSystemService:)`` or
/// ``decode(_:path:defaults:)``; `config/forecastd.toml` documents every key.
public struct Settings: Sendable, Hashable {
    /// `units`: the unit system reports are written in.
    public var units: UnitSystem
    /// `refresh_minutes`: how often the forecast is fetched again, in minutes (1...1440).
    public var refreshMinutes: Int
    /// `[location]`: where forecasts are for.
    public var location: Location
    /// `[providers]`: the weather services.
    public var providers: Providers
    /// `[output]`: where the daemon publishes.
    public var output: Output
    /// Where the daemon keeps state between runs (the last forecast, the last place).
    ///
    /// Not a key of the file yet: `$XDG_STATE_HOME/forecastd` (`~/.local/state/forecastd` when unset),
    /// or `/var/lib/forecastd` for a system service.
    public var stateDirectory: String

    public init(
        units: UnitSystem, refreshMinutes: Int, location: Location, providers: Providers, output: Output,
        stateDirectory: String
    ) {
        self.units = units
        self.refreshMinutes = refreshMinutes
        self.location = location
        self.providers = providers
        self.output = output
        self.stateDirectory = stateDirectory
    }

    /// ``refreshMinutes`` as a duration.
    public var refreshInterval: Duration { .seconds(refreshMinutes * 60) }

    /// How the daemon decides where it is: `location.mode`.
    public enum LocationMode: String, Sendable, Hashable, CaseIterable {
        /// gpsd first, then the fallbacks (the pin among them).
        case auto
        /// The pin only; gpsd is not asked.
        case pinned
    }

    /// `[location]`.
    public struct Location: Sendable, Hashable {
        /// `mode`.
        public var mode: LocationMode
        /// `refresh_distance_km`: a move farther than this refreshes the forecast before its interval ends.
        public var refreshDistanceKm: Double
        /// `[location.pin]`: a fixed place, when the user gave one.
        public var pin: Pin?
        /// `[location.gpsd]`.
        public var gpsd: Gpsd

        public init(mode: LocationMode, refreshDistanceKm: Double, pin: Pin?, gpsd: Gpsd) {
            self.mode = mode
            self.refreshDistanceKm = refreshDistanceKm
            self.pin = pin
            self.gpsd = gpsd
        }
    }

    /// `[location.pin]`: a place given by hand.
    public struct Pin: Sendable, Hashable {
        /// `latitude` and `longitude`; always ``Coordinate/isPlausible``.
        public var coordinate: Coordinate
        /// `name`: what to call the place instead of the gazetteer's nearest name.
        public var name: String?

        public init(coordinate: Coordinate, name: String? = nil) {
            self.coordinate = coordinate
            self.name = name
        }
    }

    /// `[location.gpsd]`: the gpsd daemon to ask for fixes.
    public struct Gpsd: Sendable, Hashable {
        /// `enabled`.
        public var enabled: Bool
        /// `host`.
        public var host: String
        /// `port` (1...65535).
        public var port: Int
        /// `max_fix_age_seconds`: a fix older than this no longer counts as fresh.
        public var maxFixAgeSeconds: Int

        public init(enabled: Bool, host: String, port: Int, maxFixAgeSeconds: Int) {
            self.enabled = enabled
            self.host = host
            self.port = port
            self.maxFixAgeSeconds = maxFixAgeSeconds
        }

        /// ``maxFixAgeSeconds`` as a duration.
        public var maxFixAge: Duration { .seconds(maxFixAgeSeconds) }
    }

    /// `[providers]`.
    public struct Providers: Sendable, Hashable {
        /// `[providers.open_meteo]`.
        public var openMeteo: OpenMeteo

        public init(openMeteo: OpenMeteo) {
            self.openMeteo = openMeteo
        }
    }

    /// `[providers.open_meteo]`.
    public struct OpenMeteo: Sendable, Hashable {
        /// `url`: the forecast endpoint; always http or https with a host.
        public var url: URL
        /// `timeout_seconds`: the deadline for one request (1...120).
        public var timeoutSeconds: Int

        public init(url: URL, timeoutSeconds: Int) {
            self.url = url
            self.timeoutSeconds = timeoutSeconds
        }

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    /// `[output]`: absolute paths, already resolved against the environment.
    public struct Output: Sendable, Hashable {
        /// `status_file`: the report, rewritten atomically after every change.
        public var statusFile: String
        /// `socket`: the Unix socket `forecastctl` talks to.
        public var socket: String

        public init(statusFile: String, socket: String) {
            self.statusFile = statusFile
            self.socket = socket
        }
    }
}

// MARK: - Defaults

extension Settings {
    /// The Open-Meteo forecast endpoint used when the file does not name one.
    public static let defaultOpenMeteoURL = URL(string: "https://api.open-meteo.com/v1/forecast")!

    /// The settings used when no file exists, and the base every file is laid over.
    ///
    /// Only paths depend on the environment:
    /// - runtime files (`status_file`, `socket`) go in `$XDG_RUNTIME_DIR/forecastd/`; a system service,
    ///   or root without `XDG_RUNTIME_DIR`, uses `/run/forecastd/`; a user without `XDG_RUNTIME_DIR`
    ///   gets `/tmp/forecastd-<uid>/`, which the daemon must create with mode 0700 and check it owns,
    ///   because anyone can create that name first in `/tmp`.
    /// - ``stateDirectory`` is `$XDG_STATE_HOME/forecastd`, else `$HOME/.local/state/forecastd`, or
    ///   `/var/lib/forecastd` for a system service.
    ///
    /// XDG variables holding relative paths are ignored, as the XDG base directory specification says.
    ///
    /// - Parameters:
    ///   - environment: the process environment (injected so tests need not change the real one).
    ///   - isSystemService: whether the daemon runs as a system-wide service; see
    ///     ``isLikelySystemService(environment:userID:)``.
    ///   - userID: the real user id, for the `/tmp` fallback and for root.
    public static func defaults(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isSystemService: Bool,
        userID: uid_t = getuid()
    ) -> Settings {
        let runtimeDirectory: String
        if isSystemService {
            runtimeDirectory = "/run/forecastd"
        } else if let xdgRuntime = absolutePath(environment["XDG_RUNTIME_DIR"]) {
            runtimeDirectory = join(xdgRuntime, "forecastd")
        } else if userID == 0 {
            runtimeDirectory = "/run/forecastd"
        } else {
            runtimeDirectory = "/tmp/forecastd-\(userID)"
        }

        let stateDirectory: String
        if isSystemService {
            stateDirectory = "/var/lib/forecastd"
        } else if let xdgState = absolutePath(environment["XDG_STATE_HOME"]) {
            stateDirectory = join(xdgState, "forecastd")
        } else {
            stateDirectory = join(homeDirectory(environment), ".local/state/forecastd")
        }

        return Settings(
            units: .metric,
            refreshMinutes: 15,
            location: Location(
                mode: .auto,
                refreshDistanceKm: 5.0,
                pin: nil,
                gpsd: Gpsd(enabled: true, host: "127.0.0.1", port: 2947, maxFixAgeSeconds: 120)
            ),
            providers: Providers(openMeteo: OpenMeteo(url: defaultOpenMeteoURL, timeoutSeconds: 15)),
            output: Output(
                statusFile: join(runtimeDirectory, "report.json"),
                socket: join(runtimeDirectory, "forecastd.sock")
            ),
            stateDirectory: stateDirectory
        )
    }

    /// Whether the process looks like a system-wide systemd service: started by systemd
    /// (`INVOCATION_ID` is set) and running as root.
    ///
    /// A user service also has `INVOCATION_ID` but not uid 0. The executable's `--system` flag
    /// overrides this guess.
    public static func isLikelySystemService(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: uid_t = getuid()
    ) -> Bool {
        userID == 0 && !(environment["INVOCATION_ID"] ?? "").isEmpty
    }

    /// The value of an XDG-style variable when it is set to an absolute path.
    static func absolutePath(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return value
    }

    /// `$HOME`, or the password database's home directory when `HOME` is unset.
    static func homeDirectory(_ environment: [String: String]) -> String {
        if let home = absolutePath(environment["HOME"]) { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// Joins path components without doubling the slash when the first ends with one.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
