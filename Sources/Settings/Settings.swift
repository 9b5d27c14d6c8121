import ForecastModel
import Foundation

/// Everything forecastd reads from `forecastd.toml`, with every default already applied.
///
/// The shape mirrors the file: `units`, `refresh_minutes`, `[location]` with `[location.pin]`,
/// `[location.gpsd]` and `[location.ip]`, `[providers]` with a table per weather service, `[output]`
/// with any number of `[[output.files]]`, `[display]`, `[history]` and any number of `[[cities]]`.
/// Build one with
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
    /// `[display]`: how reports look in bars.
    public var display: Display
    /// `[history]`: how long favourite cities' readings are kept.
    public var history: History
    /// `[[cities]]`: the places the user follows, in the file's order; no two share an id.
    public var cities: [City]
    /// Where the daemon keeps state between runs (the last forecast, the last place).
    ///
    /// Not a key of the file yet: `$XDG_STATE_HOME/forecastd` (`~/.local/state/forecastd` when unset),
    /// or `/var/lib/forecastd` for a system service.
    public var stateDirectory: String

    public init(
        units: UnitSystem, refreshMinutes: Int, location: Location, providers: Providers, output: Output,
        display: Display = Display(), stateDirectory: String, history: History = History(), cities: [City] = []
    ) {
        self.units = units
        self.refreshMinutes = refreshMinutes
        self.location = location
        self.providers = providers
        self.output = output
        self.display = display
        self.stateDirectory = stateDirectory
        self.history = history
        self.cities = cities
    }

    /// ``refreshMinutes`` as a duration.
    public var refreshInterval: Duration { .seconds(refreshMinutes * 60) }

    /// Which name a position gets: `location.naming`.
    public enum PlaceNaming: String, Sendable, Hashable, CaseIterable {
        /// The city whose area plausibly covers the point (Paris for Saint-Ouen), weighing population
        /// against distance.
        case city
        /// The nearest locality in the gazetteer, however small.
        case nearest
    }

    /// `[location]`: where forecasts are for.
    public struct Location: Sendable, Hashable {
        /// `mode`.
        public var mode: LocationMode
        /// `refresh_distance_km`: a move farther than this refreshes the forecast before its interval ends.
        public var refreshDistanceKm: Double
        /// `naming`: which place name a position gets.
        public var naming: PlaceNaming
        /// `static_file`: a GeoClue static-source file (latitude, longitude, altitude, accuracy, one per
        /// line, `#` comments); `nil` when the key is `""`, which disables it.
        public var staticFile: String?
        /// `max_speed_kmh`: a jump implying a faster move is ignored unless following fixes confirm it.
        public var maxSpeedKmh: Double
        /// `[location.pin]`: a fixed place, when the user gave one.
        public var pin: Pin?
        /// `[location.gpsd]`.
        public var gpsd: Gpsd
        /// `[location.ip]`.
        public var ip: IPGeolocation

        public init(
            mode: LocationMode, refreshDistanceKm: Double, naming: PlaceNaming = .city,
            staticFile: String? = Settings.defaultStaticFile, maxSpeedKmh: Double = 1200, pin: Pin?, gpsd: Gpsd,
            ip: IPGeolocation = IPGeolocation()
        ) {
            self.mode = mode
            self.refreshDistanceKm = refreshDistanceKm
            self.naming = naming
            self.staticFile = staticFile
            self.maxSpeedKmh = maxSpeedKmh
            self.pin = pin
            self.gpsd = gpsd
            self.ip = ip
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
        /// `recent_fix_minutes`: once the last fix is older than ``maxFixAgeSeconds``, it is still
        /// preferred over the static file, IP geolocation and the pin for this long (0: not at all).
        public var recentFixMinutes: Int

        public init(enabled: Bool, host: String, port: Int, maxFixAgeSeconds: Int, recentFixMinutes: Int = 30) {
            self.enabled = enabled
            self.host = host
            self.port = port
            self.maxFixAgeSeconds = maxFixAgeSeconds
            self.recentFixMinutes = recentFixMinutes
        }

        /// ``maxFixAgeSeconds`` as a duration.
        public var maxFixAge: Duration { .seconds(maxFixAgeSeconds) }

        /// ``recentFixMinutes`` as a duration.
        public var recentFixWindow: Duration { .seconds(recentFixMinutes * 60) }

        /// ``host`` and ``port``.
        public var address: GPSDAddress { GPSDAddress(host: host, port: port) }
    }

    /// `[location.ip]`: the position of the network's public address, city-level at best.
    public struct IPGeolocation: Sendable, Hashable {
        /// `enabled`: whether to ask IP geolocation services at all (off for privacy).
        public var enabled: Bool
        /// `services`: tried in this order; never empty, no service twice.
        public var services: [IPGeolocationService]
        /// `ipinfo_url`, `ipapi_url`, `ifconfig_url` and `ip_api_url`: each service's endpoint.
        public var urls: [IPGeolocationService: URL]

        public init(
            enabled: Bool = true, services: [IPGeolocationService] = [.ipinfo, .ipapi],
            urls: [IPGeolocationService: URL] = Settings.defaultIPServiceURLs
        ) {
            self.enabled = enabled
            self.services = services
            self.urls = urls
        }

        /// The endpoint of `service`.
        public func url(for service: IPGeolocationService) -> URL {
            urls[service] ?? Settings.defaultIPServiceURLs[service]!
        }
    }

    /// `[providers]`.
    public struct Providers: Sendable, Hashable {
        /// `order`: the services tried, first to last; never empty, no service twice.
        public var order: [ProviderName]
        /// `coordinate_precision`: the decimals of latitude and longitude sent to providers (0...4);
        /// 2 is about a kilometre, all a forecast needs, and it makes caching effective.
        public var coordinatePrecision: Int
        /// `[providers.open_meteo]`.
        public var openMeteo: OpenMeteo
        /// `[providers.met_norway]`.
        public var metNorway: MetNorway
        /// `[providers.openweathermap]`.
        public var openWeatherMap: OpenWeatherMap

        public init(
            order: [ProviderName] = [.openMeteo, .metNorway], coordinatePrecision: Int = 2, openMeteo: OpenMeteo,
            metNorway: MetNorway = MetNorway(), openWeatherMap: OpenWeatherMap = OpenWeatherMap()
        ) {
            self.order = order
            self.coordinatePrecision = coordinatePrecision
            self.openMeteo = openMeteo
            self.metNorway = metNorway
            self.openWeatherMap = openWeatherMap
        }

        /// The services to try, in order: ``order``, with OpenWeatherMap joining at the end when it has
        /// an API key and the order does not name it.
        public var effectiveOrder: [ProviderName] {
            guard openWeatherMap.apiKey != nil, !order.contains(.openWeatherMap) else { return order }
            return order + [.openWeatherMap]
        }
    }

    /// `[providers.open_meteo]`.
    public struct OpenMeteo: Sendable, Hashable {
        /// `url`: the forecast endpoint; always http or https with a host.
        public var url: URL
        /// `timeout_seconds`: the deadline for one request (1...120).
        public var timeoutSeconds: Int
        /// `geocoding_url`: Open-Meteo's place search, which `forecastctl cities add` asks for places the
        /// offline gazetteer lacks; nil (the key is `""`, the default) keeps name searches offline.
        public var geocodingURL: URL?

        public init(url: URL, timeoutSeconds: Int, geocodingURL: URL? = nil) {
            self.url = url
            self.timeoutSeconds = timeoutSeconds
            self.geocodingURL = geocodingURL
        }

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    /// `[providers.met_norway]`: MET Norway's Locationforecast 2.0.
    public struct MetNorway: Sendable, Hashable {
        /// `url`: the `compact` endpoint; always http or https with a host.
        public var url: URL
        /// `contact`: an e-mail address or URL for the User-Agent, as MET Norway's terms ask; may be empty.
        public var contact: String
        /// `timeout_seconds` (1...120).
        public var timeoutSeconds: Int

        public init(url: URL = Settings.defaultMetNorwayURL, contact: String = "", timeoutSeconds: Int = 15) {
            self.url = url
            self.contact = contact
            self.timeoutSeconds = timeoutSeconds
        }

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    /// `[providers.openweathermap]`: needs the user's own API key.
    public struct OpenWeatherMap: Sendable, Hashable {
        /// `url`: the API's base URL; always http or https with a host.
        public var url: URL
        /// The key from `api_key`, else from the file `api_key_file`, else from
        /// `$FORECASTD_OPENWEATHERMAP_API_KEY`; `nil` when none gives one.
        public var apiKey: Secret?
        /// `api_key_file`: the file named for the key (`nil` when the key is `""`).
        public var apiKeyFile: String?
        /// `one_call`: use One Call 3.0 instead of current weather plus the 5-day forecast.
        public var oneCall: Bool
        /// `timeout_seconds` (1...120).
        public var timeoutSeconds: Int

        public init(
            url: URL = Settings.defaultOpenWeatherMapURL, apiKey: Secret? = nil, apiKeyFile: String? = nil,
            oneCall: Bool = false, timeoutSeconds: Int = 15
        ) {
            self.url = url
            self.apiKey = apiKey
            self.apiKeyFile = apiKeyFile
            self.oneCall = oneCall
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
        /// `socket_group`: for a system service, the group allowed to read the socket (mode 0660);
        /// `nil` when the key is `""`: the owner only (0600).
        public var socketGroup: String?
        /// `max_clients`: socket clients served at once (1...10000); more are refused with a message.
        public var maxClients: Int
        /// `[[output.files]]`: extra status files in bars' formats, in the order the file lists them.
        public var files: [StatusFile]

        public init(
            statusFile: String, socket: String, socketGroup: String? = nil, maxClients: Int = 64,
            files: [StatusFile] = []
        ) {
            self.statusFile = statusFile
            self.socket = socket
            self.socketGroup = socketGroup
            self.maxClients = maxClients
            self.files = files
        }
    }

    /// One `[[output.files]]` table: a file rewritten atomically on every change, in one format.
    public struct StatusFile: Sendable, Hashable {
        /// `path`: absolute; no two status files share one.
        public var path: String
        /// `format`.
        public var format: OutputFormat
        /// `template`: for ``OutputFormat/template``, where it must not be empty; e.g. `"%c %t"`.
        public var template: String
        /// `icons`.
        public var icons: IconSet

        public init(path: String, format: OutputFormat, template: String = "", icons: IconSet = .emoji) {
            self.path = path
            self.format = format
            self.template = template
            self.icons = icons
        }
    }

    /// `[display]`: how reports look in bars and in `forecastctl`.
    public struct Display: Sendable, Hashable {
        /// `icons`: the icon set of the socket's formats and of `forecastctl`.
        public var icons: IconSet
        /// `hot_celsius`: at or above this temperature a bar gets the class `hot`.
        public var hotCelsius: Double
        /// `cold_celsius`: at or below this temperature a bar gets the class `cold`; below ``hotCelsius``.
        public var coldCelsius: Double

        public init(icons: IconSet = .emoji, hotCelsius: Double = 30, coldCelsius: Double = 0) {
            self.icons = icons
            self.hotCelsius = hotCelsius
            self.coldCelsius = coldCelsius
        }
    }
}

// MARK: - Defaults

extension Settings {
    /// The Open-Meteo forecast endpoint used when the file does not name one.
    public static let defaultOpenMeteoURL = URL(string: "https://api.open-meteo.com/v1/forecast")!
    /// MET Norway's Locationforecast 2.0 `compact` endpoint.
    public static let defaultMetNorwayURL = URL(string: "https://api.met.no/weatherapi/locationforecast/2.0/compact")!
    /// OpenWeatherMap's API base URL.
    public static let defaultOpenWeatherMapURL = URL(string: "https://api.openweathermap.org")!
    /// Each IP geolocation service's endpoint: HTTPS where the service offers it (ip-api.com's free
    /// tier is HTTP only).
    public static let defaultIPServiceURLs: [IPGeolocationService: URL] = [
        .ipinfo: URL(string: "https://ipinfo.io/json")!,
        .ipapi: URL(string: "https://ipapi.co/json/")!,
        .ifconfig: URL(string: "https://ifconfig.co/json")!,
        .ipAPI: URL(string: "http://ip-api.com/json/")!,
    ]
    /// Where GeoClue's static source reads a fixed position.
    public static let defaultStaticFile = "/etc/geolocation"
    /// The environment variable that gives the OpenWeatherMap API key when the file gives none.
    public static let openWeatherMapKeyVariable = "FORECASTD_OPENWEATHERMAP_API_KEY"
    /// The environment variable that, set to `0`, `off`, `no` or `false`, turns IP geolocation off in the
    /// built-in defaults: for a whole machine (a systemd drop-in) or a test harness, without a settings file.
    /// A settings file's `[location.ip] enabled` still wins.
    public static let ipGeolocationVariable = "FORECASTD_IP_GEOLOCATION"

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
    /// - IP geolocation is off when `$FORECASTD_IP_GEOLOCATION` is `0`, `off`, `no` or `false`.
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

        return Settings(
            units: .metric,
            refreshMinutes: 15,
            location: Location(
                mode: .auto,
                refreshDistanceKm: 5.0,
                naming: .city,
                staticFile: defaultStaticFile,
                maxSpeedKmh: 1200,
                pin: nil,
                gpsd: Gpsd(enabled: true, host: "127.0.0.1", port: 2947, maxFixAgeSeconds: 120, recentFixMinutes: 30),
                ip: IPGeolocation(
                    enabled: !["0", "off", "no", "false"].contains(environment[ipGeolocationVariable]?.lowercased() ?? ""),
                    services: [.ipinfo, .ipapi], urls: defaultIPServiceURLs)
            ),
            providers: Providers(
                order: [.openMeteo, .metNorway],
                coordinatePrecision: 2,
                openMeteo: OpenMeteo(url: defaultOpenMeteoURL, timeoutSeconds: 15),
                metNorway: MetNorway(url: defaultMetNorwayURL, contact: "", timeoutSeconds: 15),
                openWeatherMap: OpenWeatherMap(
                    url: defaultOpenWeatherMapURL, apiKey: environmentKey, apiKeyFile: nil, oneCall: false,
                    timeoutSeconds: 15)
            ),
            output: Output(
                statusFile: join(runtimeDirectory, "report.json"),
                socket: join(runtimeDirectory, "forecastd.sock"),
                socketGroup: nil,
                maxClients: 64,
                files: []
            ),
            display: Display(icons: .emoji, hotCelsius: 30, coldCelsius: 0),
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
