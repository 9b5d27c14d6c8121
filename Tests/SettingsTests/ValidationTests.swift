import Foundation
import Testing

@testable import Settings

/// Every message is checked whole: the path, line and column must point at what to fix.
@Suite("Rejecting invalid files")
struct ValidationTests {
    let p = settingsPath

    @Test("a name that is not a unit system")
    func badUnits() {
        let text = """
            # forecastd
            refresh_minutes = 15
            units = "kelvin"
            """
        #expect(
            problems(in: text) == [#"\#(p):3:9: units: "kelvin" is not a unit system (allowed: "metric", "imperial", "uk", "si")"#])
    }

    @Test("a name that is not a location mode")
    func badMode() {
        #expect(
            problems(in: "[location]\nmode = 'gps'\n")
                == [#"\#(p):2:8: location.mode: "gps" is not a location mode (allowed: "auto", "pinned")"#])
    }

    @Test("a string where an integer belongs")
    func stringForInteger() {
        let text = """
            units = "metric"
            refresh_minutes = "15"
            """
        #expect(problems(in: text) == ["\(p):2:19: refresh_minutes: expected an integer, found a string"])
    }

    @Test("a fraction where an integer belongs")
    func floatForInteger() {
        #expect(
            problems(in: "[location.gpsd]\nport = 2947.0\n")
                == ["\(p):2:8: location.gpsd.port: expected an integer, found a floating-point number"])
    }

    @Test("wrong types for booleans, numbers, strings and tables")
    func otherWrongTypes() {
        let text = """
            location = { gpsd = { enabled = "yes" }, refresh_distance_km = "far" }
            providers = "open-meteo"
            output.socket = 42
            """
        #expect(
            problems(in: text) == [
                "\(p):1:33: location.gpsd.enabled: expected a boolean, found a string",
                "\(p):1:64: location.refresh_distance_km: expected a number, found a string",
                "\(p):2:13: providers: expected a table, found a string",
                "\(p):3:17: output.socket: expected a string, found an integer",
            ])
    }

    @Test("numbers out of range, with the range that is allowed")
    func outOfRange() {
        let text = """
            refresh_minutes = 0

            [location]
            refresh_distance_km = nan

            [location.pin]
            latitude = 95.0
            longitude = -181

            [location.gpsd]
            port = 65536
            max_fix_age_seconds = 86401

            [providers.open_meteo]
            timeout_seconds = 121
            """
        #expect(
            problems(in: text) == [
                "\(p):1:19: refresh_minutes: 0 is out of range (allowed: 1...1440)",
                "\(p):4:23: location.refresh_distance_km: nan is out of range (allowed: 0.1...1000)",
                "\(p):7:12: location.pin.latitude: 95.0 is out of range (allowed: -90...90)",
                "\(p):8:13: location.pin.longitude: -181 is out of range (allowed: -180...180)",
                "\(p):11:8: location.gpsd.port: 65536 is out of range (allowed: 1...65535)",
                "\(p):12:23: location.gpsd.max_fix_age_seconds: 86401 is out of range (allowed: 1...86400)",
                "\(p):15:19: providers.open_meteo.timeout_seconds: 121 is out of range (allowed: 1...120)",
            ])
    }

    @Test("an unknown key at the top level")
    func unknownTopLevelKey() {
        #expect(
            problems(in: "units = \"metric\"\ncolour = \"red\"\n")
                == [
                    "\(p):2:1: colour: unknown key (allowed: units, refresh_minutes, location, providers, output, display, history, "
                    + "warnings, nowcast, air, notifications, mqtt, map, cities)"
                ])
    }

    @Test("unknown keys in nested tables, headers, dotted keys and inline tables")
    func unknownNestedKeys() {
        let text = """
            [location]
            mode = "auto"
            pin = { latitude = 1.5, longitude = 2.5, nmae = "Home" }

            [location.gpsd]
              hots = "localhost"   # indented, with a comment

            [providers]
            open_meteo.urll = "https://example.com"

            [location.pinn]
            latitude = 1.0
            """
        #expect(
            problems(in: text) == [
                "\(p):3:42: location.pin.nmae: unknown key (allowed: latitude, longitude, name)",
                "\(p):6:3: location.gpsd.hots: unknown key "
                    + "(allowed: enabled, host, port, max_fix_age_seconds, recent_fix_minutes)",
                "\(p):9:1: providers.open_meteo.urll: unknown key (allowed: url, timeout_seconds, geocoding_url)",
                "\(p):11:1: location.pinn: unknown key "
                    + "(allowed: mode, refresh_distance_km, naming, static_file, max_speed_kmh, pin, gpsd, wifi, geoclue, ip)",
            ])
    }

    @Test("a quoted unknown key is shown quoted")
    func quotedUnknownKey() {
        #expect(
            problems(in: "[output]\n\"status file\" = \"/x\"\n")
                == [
                    #"\#(p):2:1: output."status file": unknown key (allowed: status_file, socket, socket_group, max_clients, files)"#
                ])
    }

    @Test("a TOML syntax error is reported where the parser found it")
    func syntaxError() {
        let text = """
            refresh_minutes = 15
            units = metric
            """
        #expect(
            problems(in: text)
                == ["\(p):2:9: invalid TOML: error while parsing value: could not determine value type"])
    }

    /// toml++ (inside TOMLKit) aborts the whole process on an assertion for these headers: the daemon
    /// reloading such a file died, and so did forecastctl. Found by scripts/fuzz (FuzzSettings).
    @Test(
        "a header or key starting with a character no key may have is an error, not a crash",
        arguments: ["[;providers]\n", "[display]\n[ ;x]\n", "[[cities]]\n[output. ;x]\n", "[output.{x]\n"])
    func malformedKey(text: String) {
        let found = problems(in: text)
        #expect(found.count == 1)
        #expect(found.first?.contains("invalid TOML: a key is letters, digits, \"_\" and \"-\", or a quoted string") == true)
    }

    /// toml++ aborts the process on an assertion when an array's value starts with `}`: a settings file
    /// (or a value given to `set`, from forecastctl or the socket) like these killed the daemon. Found by
    /// scripts/fuzz (FuzzSettings, `u=[}`).
    @Test(
        "a \"}\" where an array's value belongs is an error with its place, not a crash",
        arguments: [
            ("u = [}", "1:6"), ("u = [1, }", "1:9"), ("[location]\nx = [\n  }]\n", "3:3"), ("u = [[}]]", "1:7"),
            ("u = { a = [}] }", "1:12"), ("refresh_minutes = 15 # [}\nu = [ # c\n}", "3:1"),
        ])
    func strayBraceInArray(text: String, place: String) {
        #expect(
            problems(in: text) == ["\(p):\(place): invalid TOML: \"}\" where an array's value or its closing \"]\" belongs"])
    }

    @Test("a key given twice is a syntax error")
    func duplicateKey() {
        #expect(
            problems(in: "units = \"metric\"\nunits = \"imperial\"\n")
                == [
                    "\(p):2:9: invalid TOML: error while parsing key-value pair: cannot redefine existing string 'units'"
                ])
    }

    @Test("a pin without longitude, or without latitude, names what is missing")
    func incompletePin() {
        let text = """
            [location]
            mode = "pinned"

            [location.pin]
            latitude = 12.5
            name = "Somewhere"
            """
        #expect(
            problems(in: text) == [
                "\(p):4:1: location.pin.longitude: missing; a pin needs both latitude and longitude (allowed: -180...180)"
            ])
        #expect(
            problems(in: "location.pin = { longitude = 3.0 }")
                == [
                    "\(p):1:16: location.pin.latitude: missing; a pin needs both latitude and longitude (allowed: -90...90)"
                ])
    }

    @Test("a pin at (0, 0) is rejected as null island")
    func nullIsland() {
        let text = """
            [location.pin]
            latitude = 0
            longitude = 0.0
            """
        #expect(
            problems(in: text) == [
                #"\#(p):1:1: location.pin: 0.0, 0.0 is "null island", where receivers without a fix claim to be (allowed: any other point)"#
            ])
    }

    @Test("an empty pin name or gpsd host is rejected")
    func emptyStrings() {
        let text = """
            [location.pin]
            latitude = 1
            longitude = 2
            name = ""
            [location.gpsd]
            host = "  "
            """
        #expect(
            problems(in: text) == [
                "\(p):4:8: location.pin.name: must not be empty (allowed: a non-empty name, or no name key at all)",
                "\(p):6:8: location.gpsd.host: must not be empty (allowed: a host name or IP address)",
            ])
    }

    @Test("pinned mode without a pin")
    func pinnedWithoutPin() {
        #expect(
            problems(in: "[location]\nmode = \"pinned\"\n")
                == [
                    "\(p):2:8: location.mode: \"pinned\" needs a [location.pin] table with latitude and longitude"
                ])
    }

    @Test(
        "URLs that are not http or https with a host",
        arguments: ["ftp://example.com/forecast", "api.open-meteo.com/v1/forecast", "https://", "not a url"])
    func badURL(url: String) {
        let text = "[providers.open_meteo]\nurl = \"\(url)\"\n"
        #expect(
            problems(in: text) == [
                "\(p):2:7: providers.open_meteo.url: \"\(url)\" is not an http or https URL (allowed: a URL such as \"https://api.open-meteo.com/v1/forecast\")"
            ])
    }

    @Test("output paths must be absolute, and the socket short enough for a Unix socket")
    func outputPaths() {
        let long = "/" + String(repeating: "s", count: 120)
        let text = """
            [output]
            status_file = "report.json"
            socket = "\(long)"
            """
        #expect(
            problems(in: text) == [
                #"\#(p):2:15: output.status_file: "report.json" is not an absolute path to a file (allowed: a path starting with "/")"#,
                "\(p):3:10: output.socket: is 121 bytes long, too long for a Unix socket path (allowed: at most 107 bytes)",
            ])
    }

    @Test("every problem in a file is reported, in file order")
    func severalProblems() {
        let text = """
            # My settings
            units = "kelvin"   # oops
            refresh_minutes = 15.5

            [location]
            refresh_distance_km = 2000
            pin = { latitude = 95 }

            [location.gpsd]
            port = "2947"
            colour = true
            """
        #expect(
            problems(in: text) == [
                #"\#(p):2:9: units: "kelvin" is not a unit system (allowed: "metric", "imperial", "uk", "si")"#,
                "\(p):3:19: refresh_minutes: expected an integer, found a floating-point number",
                "\(p):6:23: location.refresh_distance_km: 2000 is out of range (allowed: 0.1...1000)",
                "\(p):7:7: location.pin.longitude: missing; a pin needs both latitude and longitude (allowed: -180...180)",
                "\(p):7:20: location.pin.latitude: 95 is out of range (allowed: -90...90)",
                "\(p):10:8: location.gpsd.port: expected an integer, found a string",
                "\(p):11:1: location.gpsd.colour: unknown key "
                    + "(allowed: enabled, host, port, max_fix_age_seconds, recent_fix_minutes)",
            ])
    }

    @Test("the error's description is one problem per line")
    func errorDescription() {
        do {
            _ = try Settings.decode("units = 1\nrefresh_minutes = 0\n", path: "f.toml", defaults: userDefaults)
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.count == 2)
            #expect(
                error.description == """
                    f.toml:1:9: units: expected a string, found an integer
                    f.toml:2:19: refresh_minutes: 0 is out of range (allowed: 1...1440)
                    """)
        }
    }

    @Test("a NUL character is rejected instead of silently ending the file")
    func nulCharacter() {
        #expect(
            problems(in: "units = \"metric\"\nrefresh_minutes = 5\u{0}0\n")
                == ["\(p):2:20: contains a NUL character, which TOML does not allow"])
    }

    @Test("files that cannot be read are named with the reason")
    func unreadableFiles() throws {
        let directory = try TemporaryDirectory()
        func loadError(_ path: String) -> String? {
            do {
                _ = try Settings.load(from: path, environment: userEnvironment, isSystemService: false)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(loadError(directory.path + "/absent.toml") == "\(directory.path)/absent.toml: no such file")
        #expect(loadError(directory.path) == "\(directory.path): is a directory, not a settings file")

        let latin1 = directory.path + "/latin1.toml"
        try Data([0x6E, 0x61, 0x6D, 0x65, 0x3D, 0x22, 0xE9, 0x22]).write(to: URL(fileURLWithPath: latin1))
        #expect(loadError(latin1) == "\(latin1): is not UTF-8 text (allowed: a UTF-8 TOML file)")

        let bad = try directory.write("[location]\nmode = \"manual\"\n", to: "bad.toml")
        #expect(
            loadError(bad)
                == #"\#(bad):2:8: location.mode: "manual" is not a location mode (allowed: "auto", "pinned")"#)
    }
}
