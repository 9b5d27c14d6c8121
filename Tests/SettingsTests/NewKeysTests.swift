import ForecastModel
import Foundation
import Testing

@testable import Settings

@Suite("Keys for location sources, providers, outputs and display")
struct NewKeysTests {
    let p = settingsPath

    @Test("their defaults")
    func defaults() {
        let settings = userDefaults
        #expect(settings.location.naming == .city)
        #expect(settings.location.staticFile == "/etc/geolocation")
        #expect(settings.location.maxSpeedKmh == 1200)
        #expect(settings.location.gpsd.recentFixMinutes == 30)
        #expect(settings.location.gpsd.recentFixWindow == .seconds(1800))
        #expect(settings.location.ip.enabled)
        #expect(settings.location.ip.services == [.ipinfo, .ipapi])
        #expect(settings.location.ip.url(for: .ipinfo).absoluteString == "https://ipinfo.io/json")
        #expect(settings.location.ip.url(for: .ipapi).absoluteString == "https://ipapi.co/json/")
        #expect(settings.location.ip.url(for: .ifconfig).absoluteString == "https://ifconfig.co/json")
        #expect(settings.location.ip.url(for: .ipAPI).absoluteString == "http://ip-api.com/json/")
        #expect(settings.providers.order == [.openMeteo, .metNorway])
        #expect(settings.providers.effectiveOrder == [.openMeteo, .metNorway])
        #expect(settings.providers.coordinatePrecision == 2)
        #expect(
            settings.providers.metNorway.url.absoluteString
                == "https://api.met.no/weatherapi/locationforecast/2.0/compact")
        #expect(settings.providers.metNorway.contact == "")
        #expect(settings.providers.metNorway.timeout == .seconds(15))
        #expect(settings.providers.openWeatherMap.url.absoluteString == "https://api.openweathermap.org")
        #expect(settings.providers.openWeatherMap.apiKey == nil)
        #expect(settings.providers.openWeatherMap.apiKeyFile == nil)
        #expect(settings.providers.openWeatherMap.oneCall == false)
        #expect(settings.output.socketGroup == nil)
        #expect(settings.output.maxClients == 64)
        #expect(settings.output.files == [])
        #expect(settings.display == Settings.Display(icons: .emoji, hotCelsius: 30, coldCelsius: 0))
    }

    @Test("every key overrides its default")
    func overrides() throws {
        let text = """
            [location]
            naming = "nearest"
            static_file = ""
            max_speed_kmh = 300
            [location.gpsd]
            recent_fix_minutes = 0
            [location.ip]
            enabled = false
            services = ["ip-api", "ifconfig"]
            ip_api_url = "http://127.0.0.1:8080/json/"
            [providers]
            order = ["met-norway", "openweathermap", "open-meteo"]
            coordinate_precision = 4
            [providers.met_norway]
            url = "http://127.0.0.1:9/compact"
            contact = " me@example.org "
            timeout_seconds = 5
            [providers.openweathermap]
            url = "http://127.0.0.1:9"
            api_key = "k-123"
            one_call = true
            timeout_seconds = 7
            [output]
            socket_group = "forecastd"
            max_clients = 200
            [[output.files]]
            path = "/run/user/1000/forecastd/waybar.json"
            format = "waybar"
            [[output.files]]
            path = "/run/user/1000/forecastd/tmux.txt"
            format = "template"
            template = "%c %t"
            icons = "emoji-safe"
            [display]
            icons = "nerd"
            hot_celsius = 25.5
            cold_celsius = -5
            """
        let settings = try Settings.decode(text, path: p, defaults: userDefaults)
        #expect(settings.location.naming == .nearest)
        #expect(settings.location.staticFile == nil)
        #expect(settings.location.maxSpeedKmh == 300)
        #expect(settings.location.gpsd.recentFixMinutes == 0)
        #expect(settings.location.ip.enabled == false)
        #expect(settings.location.ip.services == [.ipAPI, .ifconfig])
        #expect(settings.location.ip.url(for: .ipAPI).absoluteString == "http://127.0.0.1:8080/json/")
        #expect(settings.location.ip.url(for: .ipinfo).absoluteString == "https://ipinfo.io/json")
        #expect(settings.providers.order == [.metNorway, .openWeatherMap, .openMeteo])
        #expect(settings.providers.effectiveOrder == [.metNorway, .openWeatherMap, .openMeteo])
        #expect(settings.providers.coordinatePrecision == 4)
        #expect(settings.providers.metNorway.contact == "me@example.org")
        #expect(settings.providers.metNorway.timeoutSeconds == 5)
        #expect(settings.providers.openWeatherMap.apiKey?.revealed == "k-123")
        #expect(settings.providers.openWeatherMap.apiKey?.origin == .settingsFile)
        #expect(settings.providers.openWeatherMap.oneCall)
        #expect(settings.providers.openWeatherMap.timeoutSeconds == 7)
        #expect(settings.output.socketGroup == "forecastd")
        #expect(settings.output.maxClients == 200)
        #expect(
            settings.output.files == [
                Settings.StatusFile(path: "/run/user/1000/forecastd/waybar.json", format: .waybar),
                Settings.StatusFile(
                    path: "/run/user/1000/forecastd/tmux.txt", format: .template, template: "%c %t", icons: .emojiSafe),
            ])
        #expect(settings.display == Settings.Display(icons: .nerd, hotCelsius: 25.5, coldCelsius: -5))
    }

    @Test("invalid values name the key, the place and what is allowed")
    func invalidValues() {
        let text = """
            [location]
            naming = "town"
            static_file = "geolocation"
            max_speed_kmh = 0
            [location.gpsd]
            recent_fix_minutes = -1
            [location.ip]
            services = ["ipinfo", "ipinfo"]
            ipinfo_url = "ftp://ipinfo.io"
            [providers]
            order = []
            coordinate_precision = 5
            [output]
            socket_group = "wheel group"
            max_clients = 0
            [display]
            icons = "ascii"
            """
        #expect(
            problems(in: text) == [
                #"\#(p):2:10: location.naming: "town" is not a naming rule (allowed: "city", "nearest")"#,
                #"\#(p):3:15: location.static_file: "geolocation" is not an absolute path to a file (allowed: a path starting with "/")"#,
                "\(p):4:17: location.max_speed_kmh: 0 is out of range (allowed: 1...100000)",
                "\(p):6:22: location.gpsd.recent_fix_minutes: -1 is out of range (allowed: 0...1440)",
                #"\#(p):8:12: location.ip.services: "ipinfo" is listed twice (allowed: "ipinfo", "ipapi", "ifconfig", "ip-api")"#,
                #"\#(p):9:14: location.ip.ipinfo_url: "ftp://ipinfo.io" is not an http or https URL (allowed: a URL such as "https://api.open-meteo.com/v1/forecast")"#,
                #"\#(p):11:9: providers.order: must name at least one (allowed: "open-meteo", "met-norway", "openweathermap")"#,
                "\(p):12:24: providers.coordinate_precision: 5 is out of range (allowed: 0...4)",
                #"\#(p):14:16: output.socket_group: "wheel group" is not a group name (allowed: a group name such as "forecastd", or "" for the owner only)"#,
                "\(p):15:15: output.max_clients: 0 is out of range (allowed: 1...10000)",
                #"\#(p):17:9: display.icons: "ascii" is not an icon set (allowed: "emoji", "emoji-safe", "nerd", "text")"#,
            ])
    }

    @Test("unknown names in lists, and lists of the wrong type")
    func badLists() {
        #expect(
            problems(in: "[providers]\norder = [\"open-meteo\", \"darksky\"]\n") == [
                #"\#(p):2:9: providers.order: "darksky" is not a weather provider (allowed: "open-meteo", "met-norway", "openweathermap")"#
            ])
        #expect(
            problems(in: "[location.ip]\nservices = \"ipinfo\"\n") == [
                #"\#(p):2:12: location.ip.services: expected an array of names, found a string (allowed: "ipinfo", "ipapi", "ifconfig", "ip-api")"#
            ])
        #expect(
            problems(in: "[location.ip]\nservices = [1]\n") == [
                #"\#(p):2:12: location.ip.services: expected names in quotes, found an integer (allowed: "ipinfo", "ipapi", "ifconfig", "ip-api")"#
            ])
    }

    @Test("openweathermap in the order needs a key; with a key and not listed it joins at the end")
    func openWeatherMapOrder() throws {
        #expect(
            problems(in: "[providers]\norder = [\"openweathermap\"]\n") == [
                "\(p):2:9: providers.order: \"openweathermap\" needs an API key (allowed: set "
                    + "providers.openweathermap.api_key or api_key_file, or $FORECASTD_OPENWEATHERMAP_API_KEY)"
            ])
        let settings = try Settings.decode(
            "[providers.openweathermap]\napi_key = \"abc\"\n", path: p, defaults: userDefaults)
        #expect(settings.providers.order == [.openMeteo, .metNorway])
        #expect(settings.providers.effectiveOrder == [.openMeteo, .metNorway, .openWeatherMap])
    }

    @Test("cold must be below hot")
    func coldBelowHot() {
        #expect(
            problems(in: "[display]\nhot_celsius = 10.0\ncold_celsius = 10\n") == [
                "\(p):3:16: display.cold_celsius: cold_celsius (10) must be below hot_celsius (10)"
            ])
        #expect(
            problems(in: "[display]\nhot_celsius = -3\n") == [
                "\(p):2:15: display.hot_celsius: cold_celsius (0) must be below hot_celsius (-3)"
            ])
    }

    @Test("problems in [[output.files]] are placed in the right table and numbered from 1")
    func statusFileProblems() {
        let text = """
            [[output.files]]
            path = "/run/a.json"
            format = "waybar"

            [[output.files]]
            path = "relative.txt"
            format = "template"
            colour = "red"

            [[output.files]]
            path = "/run/a.json"
            format = "bar"

            [[output.files]]
            format = "json"
            """
        #expect(
            problems(in: text) == [
                #"\#(p):6:8: output.files[2].path: "relative.txt" is not an absolute path to a file (allowed: a path starting with "/")"#,
                #"\#(p):7:10: output.files[2].format: "template" needs a template (allowed: a template key such as template = "%c %t")"#,
                "\(p):8:1: output.files[2].colour: unknown key (allowed: path, format, template, icons)",
                #"\#(p):11:8: output.files[3].path: "/run/a.json" is already the path of output.files[1] (allowed: a different file for each [[output.files]] table)"#,
                #"\#(p):12:10: output.files[3].format: "bar" is not an output format (allowed: "json", "waybar", "i3blocks", "polybar", "i3status-rust", "tmux", "text", "template")"#,
                "\(p):14:1: output.files[4].path: missing; every [[output.files]] table needs a path and a format",
            ])
        #expect(
            problems(in: "[output]\nfiles = \"x\"\n") == [
                "\(p):2:9: output.files: expected [[output.files]] tables, found a string"
            ])
    }
}

@Suite("The OpenWeatherMap key: from the file, a key file or the environment, and never shown")
struct SecretTests {
    let p = settingsPath

    @Test("api_key wins over api_key_file, which wins over the environment")
    func precedence() throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("from-file\nsecond line\n", to: "owm.key")
        var environment = userEnvironment
        environment["FORECASTD_OPENWEATHERMAP_API_KEY"] = "from-env"
        let defaults = Settings.defaults(environment: environment, isSystemService: false, userID: 1000)
        #expect(defaults.providers.openWeatherMap.apiKey?.revealed == "from-env")
        #expect(
            defaults.providers.openWeatherMap.apiKey?.origin
                == .environment(variable: "FORECASTD_OPENWEATHERMAP_API_KEY"))

        let fromFile = try Settings.decode(
            "[providers.openweathermap]\napi_key = \"\"\napi_key_file = \"\(keyFile)\"\n", path: p, defaults: defaults)
        #expect(fromFile.providers.openWeatherMap.apiKey?.revealed == "from-file")
        #expect(fromFile.providers.openWeatherMap.apiKey?.origin == .keyFile(path: keyFile))
        #expect(fromFile.providers.openWeatherMap.apiKeyFile == keyFile)

        let fromSettings = try Settings.decode(
            "[providers.openweathermap]\napi_key = \"inline\"\napi_key_file = \"\(keyFile)\"\n", path: p,
            defaults: defaults)
        #expect(fromSettings.providers.openWeatherMap.apiKey?.revealed == "inline")

        let fromEnvironment = try Settings.decode(
            "[providers.openweathermap]\napi_key = \"\"\n", path: p, defaults: defaults)
        #expect(fromEnvironment.providers.openWeatherMap.apiKey?.revealed == "from-env")
    }

    @Test("a key file that is missing, unreadable or empty is an error naming the file")
    func badKeyFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/nope.key"
        #expect(
            problems(in: "[providers.openweathermap]\napi_key_file = \"\(missing)\"\n") == [
                "\(p):2:16: providers.openweathermap.api_key_file: \"\(missing)\" does not exist "
                    + "(allowed: a readable file whose first line is the API key)"
            ])
        let empty = try directory.write("\n\n", to: "empty.key")
        #expect(
            problems(in: "[providers.openweathermap]\napi_key_file = \"\(empty)\"\n") == [
                "\(p):2:16: providers.openweathermap.api_key_file: \"\(empty)\" is empty "
                    + "(allowed: a file whose first line is the API key)"
            ])
        #expect(
            problems(in: "[providers.openweathermap]\napi_key_file = \"key.txt\"\n") == [
                #"\#(p):2:16: providers.openweathermap.api_key_file: "key.txt" is not an absolute path to a file (allowed: a path starting with "/")"#
            ])
    }

    @Test("description, debugDescription, interpolation, dump and config show never reveal the key")
    func neverShown() throws {
        let secretValue = "sk-very-secret-0042"
        let settings = try Settings.decode(
            "[providers.openweathermap]\napi_key = \"\(secretValue)\"\n", path: p, defaults: userDefaults)
        let key = try #require(settings.providers.openWeatherMap.apiKey)
        #expect(key.description == "(secret)")
        #expect(key.debugDescription == "(secret)")
        #expect("\(key)" == "(secret)")
        var dumped = ""
        dump(settings, to: &dumped)
        var dumpedKey = ""
        dump(key, to: &dumpedKey)
        for text in [dumped, dumpedKey, "\(settings)", String(reflecting: settings), settings.toml(origin: "x")] {
            #expect(!text.contains(secretValue))
        }
        #expect(settings.toml(origin: "x").contains("api_key = \"(set)\"\n"))
    }

    @Test("config show says where the key comes from")
    func shownAs() throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("k\n", to: "owm.key")
        let settings = try Settings.decode(
            "[providers.openweathermap]\napi_key_file = \"\(keyFile)\"\n", path: p, defaults: userDefaults)
        #expect(settings.value(at: ["providers", "openweathermap", "api_key"]) == .string("(from file \(keyFile))"))
        var environment = userEnvironment
        environment["FORECASTD_OPENWEATHERMAP_API_KEY"] = "e"
        let fromEnvironment = Settings.defaults(environment: environment, isSystemService: false)
        #expect(
            fromEnvironment.value(at: ["providers", "openweathermap", "api_key"])
                == .string("(from $FORECASTD_OPENWEATHERMAP_API_KEY)"))
        #expect(userDefaults.value(at: ["providers", "openweathermap", "api_key"]) == .string(""))
    }

    @Test("a settings file or key file with a key that others can read gets a warning")
    func readableKeyWarning() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("[providers.openweathermap]\napi_key = \"abc\"\n", to: "forecastd.toml")
        chmod(path, 0o644)
        let loaded = try Settings.loadWithWarnings(
            .file(path: path, origin: .commandLine, searched: [path]), environment: userEnvironment,
            isSystemService: false)
        #expect(loaded.settings.providers.openWeatherMap.apiKey?.revealed == "abc")
        #expect(
            loaded.warnings.map(\.description) == [
                "\(path): holds an API key and is readable by other users; chmod 600 \(path)"
            ])
        chmod(path, 0o600)
        let quiet = try Settings.loadWithWarnings(
            .file(path: path, origin: .commandLine, searched: [path]), environment: userEnvironment,
            isSystemService: false)
        #expect(quiet.warnings.isEmpty)

        let keyFile = try directory.write("abc\n", to: "owm.key")
        chmod(keyFile, 0o640)
        let settingsPath = try directory.write(
            "[providers.openweathermap]\napi_key_file = \"\(keyFile)\"\n", to: "other.toml")
        chmod(settingsPath, 0o644)
        let viaFile = try Settings.loadWithWarnings(
            .file(path: settingsPath, origin: .commandLine, searched: [settingsPath]), environment: userEnvironment,
            isSystemService: false)
        #expect(
            viaFile.warnings.map(\.description) == [
                "\(keyFile): holds an API key and is readable by other users; chmod 600 \(keyFile)"
            ])
        // A file without a key may be readable by anyone.
        let plain = try directory.write("units = \"metric\"\n", to: "plain.toml")
        chmod(plain, 0o644)
        let none = try Settings.loadWithWarnings(
            .file(path: plain, origin: .commandLine, searched: [plain]), environment: userEnvironment,
            isSystemService: false)
        #expect(none.warnings.isEmpty)
    }
}

@Suite("Keys and values typed on the command line")
struct SettingsKeyTests {
    @Test("values are read by the key's type")
    func parsing() throws {
        #expect(try SettingsKey("units").parse("imperial") == .string("imperial"))
        #expect(try SettingsKey("units").parse("\"imperial\"") == .string("imperial"))
        #expect(try SettingsKey("refresh_minutes").parse("30") == .integer(30))
        #expect(try SettingsKey("location.gpsd.port").parse(" 2948 ") == .integer(2948))
        #expect(try SettingsKey("location.max_speed_kmh").parse("900") == .number(900))
        #expect(try SettingsKey("location.pin.latitude").parse("-34.9011") == .number(-34.9011))
        #expect(try SettingsKey("location.ip.enabled").parse("false") == .boolean(false))
        #expect(try SettingsKey("location.ip.enabled").parse("Yes") == .boolean(true))
        #expect(
            try SettingsKey("providers.order").parse(#"["met-norway","open-meteo"]"#)
                == .strings(["met-norway", "open-meteo"]))
        #expect(
            try SettingsKey("providers.order").parse("met-norway, open-meteo")
                == .strings(["met-norway", "open-meteo"]))
        #expect(try SettingsKey("providers.order").parse("open-meteo") == .strings(["open-meteo"]))
    }

    @Test("a value of the wrong type names the key, the type and an example")
    func wrongTypes() {
        #expect(throws: SettingsEditError(.invalidRequest, #"refresh_minutes: "soon" is not an integer (example: 15)"#))
        {
            try SettingsKey("refresh_minutes").parse("soon")
        }
        #expect(
            throws: SettingsEditError(
                .invalidRequest, #"location.gpsd.enabled: "maybe" is not true or false (example: true)"#)
        ) {
            try SettingsKey("location.gpsd.enabled").parse("maybe")
        }
        #expect(
            throws: SettingsEditError(.invalidRequest, #"display.hot_celsius: "nan" is not a number (example: 30.0)"#)
        ) {
            try SettingsKey("display.hot_celsius").parse("nan")
        }
        #expect(
            throws: SettingsEditError(
                .invalidRequest,
                #"providers.order: "[1, 2]" is not a list of names (example: ["open-meteo", "met-norway"] or open-meteo,met-norway)"#
            )
        ) {
            try SettingsKey("providers.order").parse("[1, 2]")
        }
    }

    @Test("unknown keys list the keys of their table; tables and [[output.files]] are refused")
    func unknownKeys() {
        #expect(
            throws: SettingsEditError(
                .invalidRequest,
                "location.gpsd.prot is not a settings key (allowed: location.gpsd.enabled, location.gpsd.host, "
                    + "location.gpsd.port, location.gpsd.max_fix_age_seconds, location.gpsd.recent_fix_minutes)")
        ) {
            try SettingsKey("location.gpsd.prot")
        }
        #expect(throws: SettingsEditError.self) { try SettingsKey("location") }
        #expect(throws: SettingsEditError.self) { try SettingsKey("output.files.path") }
        #expect(throws: SettingsEditError.self) { try SettingsKey("cities.favorite") }
        // The keys of [[output.files]] (4) and [[cities]] (8) cannot be set by key path.
        #expect(SettingsKey.all.count == SettingsTable.keys.count - 12)
        #expect(
            SettingsTable.keys.filter { !SettingsKey.all.map(\.path).contains($0.path) }.map(\.description)
                == ["output.files.path", "output.files.format", "output.files.template", "output.files.icons"]
                + ["name", "admin1", "country", "latitude", "longitude", "favorite", "added", "id"].map { "cities." + $0 })
    }

    @Test("every effective value reads back as the same settings")
    func showRoundTrip() throws {
        var settings = userDefaults
        settings.units = .imperial
        settings.location.pin = Pin(
            coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522), name: "Paris")
        settings.location.staticFile = nil
        settings.output.files = [Settings.StatusFile(path: "/run/w.json", format: .waybar, icons: .nerd)]
        settings.display.hotCelsius = 28.5
        let shown = settings.toml(origin: "a test")
        #expect(shown.hasPrefix("# The settings in effect, from a test.\nunits = \"imperial\"\nrefresh_minutes = 15\n"))
        #expect(try Settings.decode(shown, path: "shown", defaults: userDefaults) == settings)
        #expect(
            try Settings.decode(userDefaults.toml(origin: "x"), path: "shown", defaults: userDefaults) == userDefaults)
    }
}

@Suite("Large settings files")
struct LargeFileTests {
    @Test("a file of nearly 1 MiB of comments is read; one over 1 MiB is refused by name")
    func sizeLimit() throws {
        let directory = try TemporaryDirectory()
        let comment = "# " + String(repeating: "padding ", count: 12) + "\n"
        let large = "units = \"imperial\"\n" + String(repeating: comment, count: 10_000)
        let path = try directory.write(large, to: "large.toml")
        #expect(try Settings.load(from: path, environment: userEnvironment, isSystemService: false).units == .imperial)

        let huge = try directory.write(String(repeating: comment, count: 11_000), to: "huge.toml")
        #expect(
            throws: SettingsError(
                SettingsProblem(path: huge, message: "is larger than a settings file can be", allowed: "at most 1 MiB")
            )
        ) {
            try Settings.load(from: huge, environment: userEnvironment, isSystemService: false)
        }
    }
}
