import ForecastModel
import Foundation

/// Everything forecastd reads from `forecastd.toml`, with every default already applied.
///
/// The shape mirrors the file: `units`, `refresh_minutes`, `[location]` with `[location.pin]`,
/// `[location.gpsd]` and `[location.ip]`, `[providers]` with a table per weather service, `[output]`
/// with any number of `[[output.files]]`, `[display]`, `[history]`, `[warnings]` with a table per
/// warning service, `[nowcast]`, `[air]`, `[notifications]`, `[mqtt]` and any number of `[[cities]]`.
/// Build one with ``defaults(environment:isSystemService:userID:)``,
/// ``load(from:environment:isSystemService:)`` or ``decode(_:path:defaults:)``.
///
/// Each field's initial value is its key's default; the key itself (type, range, documentation,
/// whether it applies live) is its row in the settings table, declared beside the struct
/// (``SettingsTable``). `config/forecastd.toml` is generated from them.
public struct Settings: Sendable, Hashable {
    /// `units`: the units reports are written in, a preset (`units = "uk"`) or a `[units]` table with a
    /// preset and quantities set apart from it; the clock follows the locale unless `[units] time` says.
    public var units = UnitPreferences.metric
    /// `refresh_minutes`: how often the forecast is fetched again, in minutes.
    public var refreshMinutes = 15
    /// `[location]`: where forecasts are for.
    public var location = Location()
    /// `[providers]`: the weather services.
    public var providers = Providers()
    /// `[output]`: where the daemon publishes.
    public var output: Output
    /// `[display]`: how reports look in bars.
    public var display = Display()
    /// `[history]`: how long favourite cities' readings are kept.
    public var history = History()
    /// `[[cities]]`: the places the user follows, in the file's order; no two share an id.
    public var cities: [City] = []
    /// `[warnings]`: official weather warnings.
    public var warnings = Warnings()
    /// `[nowcast]`: rain soon.
    public var nowcast = Nowcast()
    /// `[air]`: air quality, UV and pollen.
    public var air = Air()
    /// `[notifications]`: desktop notifications, off by default.
    public var notifications = Notifications()
    /// `[mqtt]`: the report on an MQTT broker, off by default.
    public var mqtt = MQTT()
    /// `[map]`: the map of `forecastctl pick`.
    public var map = Map()
    /// Where the daemon keeps state between runs (the last forecast, the last place).
    ///
    /// Not a key of the file yet: `$XDG_STATE_HOME/forecastd` (`~/.local/state/forecastd` when unset),
    /// or `/var/lib/forecastd` for a system service.
    public var stateDirectory: String

    /// ``refreshMinutes`` as a duration.
    public var refreshInterval: Duration { .seconds(refreshMinutes * 60) }

    /// The keys outside any table, and the file's opening comment.
    static let rootTable = SettingsTable.Table(
        [], \Settings.self,
        documentation: """
            forecastd settings.

            Every key is shown at its default, so this file as shipped changes nothing; delete what you do
            not change, or keep it as a reference. Keys that are not listed here are rejected, and every
            problem is reported with its line and column, so a typo is never silently ignored.

            forecastd reads the first of these that exists:
              1. the file named by `--config PATH`
              2. the file named by $FORECASTD_CONFIG
              3. $XDG_CONFIG_HOME/forecastd/forecastd.toml (~/.config/forecastd/forecastd.toml when unset)
              4. /etc/forecastd/forecastd.toml
            A path given by flag or variable must exist; with none of them, the defaults below apply. A
            settings file may be at most 1 MiB.

            The daemon follows this file: a saved change applies at once, and so do SIGHUP and
            `forecastctl reload`, except for the keys "read at start", which take effect when forecastd
            restarts. A change with a mistake is not applied; the last good settings keep running and the
            report says what to fix. `forecastctl set KEY VALUE` (and `units`, `pin`, `unpin`, `mode`) edit
            this file for you, leaving comments and layout as they are. `forecastctl config default` prints
            this file as shipped.
            """,
        [
            .key(
                "units", \.units.preset, .choice(UnitSystem.self, noun: "a unit system"), .live,
                """
                Units for temperatures, wind, pressure, precipitation and distances, a preset:
                {allowed}.
                metric: °C, km/h, hPa, mm, km; imperial: °F, mph, inHg, in, mi;
                uk: °C, mph, hPa, mm, mi; si: °C, m/s, hPa, mm, km. To choose a unit for one quantity,
                write a [units] table instead (below); `forecastctl units wind kn` makes it for you.
                """),
            .key(
                "refresh_minutes", \.refreshMinutes, .integer(1...1440), .live,
                "How often to fetch the forecast again, in minutes ({allowed})."),
        ])
}

// MARK: - Defaults

extension Settings {
    /// The environment variable that gives the OpenWeatherMap API key when the file gives none.
    public static let openWeatherMapKeyVariable = "FORECASTD_OPENWEATHERMAP_API_KEY"
    /// The environment variable that, set to `0`, `off`, `no` or `false`, turns IP geolocation off in the
    /// built-in defaults: for a whole machine (a systemd drop-in) or a test harness, without a settings file.
    /// A settings file's `[location.ip] enabled` still wins.
    public static let ipGeolocationVariable = "FORECASTD_IP_GEOLOCATION"
    /// The same for Wi-Fi positioning (`[location.wifi] enabled`).
    public static let wifiGeolocationVariable = "FORECASTD_WIFI_GEOLOCATION"

    /// The settings used when no file exists, and the base every file is laid over.
    ///
    /// Only paths and the API key depend on the environment:
    /// - runtime files (`status_file`, `socket`) go in `$XDG_RUNTIME_DIR/forecastd/`; a system service,
    ///   or root without `XDG_RUNTIME_DIR`, uses `/run/forecastd/`; a user without `XDG_RUNTIME_DIR`
    ///   gets `/tmp/forecastd-<uid>/`, which the daemon must create with mode 0700 and check it owns,
    ///   because anyone can create that name first in `/tmp`.
    /// - ``stateDirectory`` is `$XDG_STATE_HOME/forecastd`, else `$HOME/.local/state/forecastd`, or
    ///   `/var/lib/forecastd` for a system service.
    /// - the OpenWeatherMap key is `$FORECASTD_OPENWEATHERMAP_API_KEY` when that is set and not empty.
    /// - IP geolocation is off when `$FORECASTD_IP_GEOLOCATION` is `0`, `off`, `no` or `false`; Wi-Fi positioning
    ///   when `$FORECASTD_WIFI_GEOLOCATION` is.
    /// - clock times are shown on the locale's clock (``TimeFormat/fromLocale(_:)``) unless `[units] time` says.
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

        let environmentKey = environment[openWeatherMapKeyVariable].flatMap { value -> Secret? in
            let key = value.trimmingCharacters(in: .whitespacesAndNewlines)
            return key.isEmpty ? nil : Secret(key, origin: .environment(variable: openWeatherMapKeyVariable))
        }

        var settings = Settings(
            output: Output(
                statusFile: join(runtimeDirectory, "report.json"), socket: join(runtimeDirectory, "forecastd.sock")),
            stateDirectory: stateDirectory)
        settings.providers.openWeatherMap.apiKey = environmentKey
        settings.units.localeTime = TimeFormat.fromLocale(environment)
        if ["0", "off", "no", "false"].contains(environment[ipGeolocationVariable]?.lowercased() ?? "") {
            settings.location.ip.enabled = false
        }
        if ["0", "off", "no", "false"].contains(environment[wifiGeolocationVariable]?.lowercased() ?? "") {
            settings.location.wifi.enabled = false
        }
        return settings
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
