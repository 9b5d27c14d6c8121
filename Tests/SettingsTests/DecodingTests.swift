import ForecastModel
import Foundation
import Testing

@testable import Settings

@Suite("Decoding valid files")
struct DecodingTests {
    @Test("the documented example with a pin decodes to its values")
    func documentedExample() throws {
        let text = """
            units = "metric"                # "metric" | "imperial"
            refresh_minutes = 15            # integer, 1...1440
            [location]
            mode = "auto"                   # "auto" (gpsd, then fallbacks) | "pinned" (the pin only)
            refresh_distance_km = 5.0       # a move farther than this refreshes the forecast early
            [location.pin]                  # optional table
            latitude = -34.9011             # -90...90
            longitude = -56.1645            # -180...180
            name = "Montevideo"             # optional display name
            [location.gpsd]
            enabled = true
            host = "127.0.0.1"
            port = 2947
            max_fix_age_seconds = 120
            [providers.open_meteo]
            url = "https://api.open-meteo.com/v1/forecast"
            timeout_seconds = 15
            [output]
            status_file = "/srv/forecastd/report.json"
            socket = "/srv/forecastd/forecastd.sock"
            """
        let settings = try Settings.decode(text, path: settingsPath, defaults: userDefaults)

        var expected = userDefaults
        expected.location.pin = Pin(
            coordinate: Coordinate(latitude: -34.9011, longitude: -56.1645), name: "Montevideo")
        expected.output = Settings.Output(
            statusFile: "/srv/forecastd/report.json", socket: "/srv/forecastd/forecastd.sock")
        #expect(settings == expected)
    }

    @Test("every key overrides its default")
    func everyKeyOverrides() throws {
        let text = """
            units = "imperial"
            refresh_minutes = 60
            [location]
            mode = "pinned"
            refresh_distance_km = 0.5
            pin = { latitude = 45, longitude = 7.5 }
            [location.gpsd]
            enabled = false
            host = "gps.lan"
            port = 3000
            max_fix_age_seconds = 30
            [providers.open_meteo]
            url = "http://localhost:8080/v1/forecast"
            timeout_seconds = 120
            [output]
            status_file = "/var/tmp/report.json"
            socket = "/var/tmp/f.sock"
            """
        let settings = try Settings.decode(text, path: settingsPath, defaults: userDefaults)
        #expect(settings.units == .imperial)
        #expect(settings.refreshInterval == .seconds(3600))
        #expect(settings.location.mode == .pinned)
        #expect(settings.location.refreshDistanceKm == 0.5)
        // Integers are accepted where degrees may have a fraction.
        #expect(settings.location.pin == Pin(coordinate: Coordinate(latitude: 45, longitude: 7.5)))
        #expect(
            settings.location.gpsd == Settings.Gpsd(enabled: false, host: "gps.lan", port: 3000, maxFixAgeSeconds: 30))
        #expect(settings.providers.openMeteo.url == URL(string: "http://localhost:8080/v1/forecast"))
        #expect(settings.providers.openMeteo.timeout == .seconds(120))
        #expect(settings.output == Settings.Output(statusFile: "/var/tmp/report.json", socket: "/var/tmp/f.sock"))
        #expect(settings.stateDirectory == userDefaults.stateDirectory)
    }

    @Test("an empty file, and a file of comments, change nothing")
    func emptyFile() throws {
        #expect(try Settings.decode("", path: settingsPath, defaults: userDefaults) == userDefaults)
        #expect(
            try Settings.decode("# nothing\n\n   # here\n", path: settingsPath, defaults: userDefaults) == userDefaults)
    }

    @Test("a byte order mark and Windows line endings are accepted")
    func byteOrderMarkAndCRLF() throws {
        let text =
            "\u{FEFF}units = \"imperial\"\r\n[location]\r\nmode = \"pinned\"\r\npin = { latitude = 1, longitude = 2 }\r\n"
        let settings = try Settings.decode(text, path: settingsPath, defaults: userDefaults)
        #expect(settings.units == .imperial)
        #expect(settings.location.pin?.coordinate == Coordinate(latitude: 1, longitude: 2))
    }

    @Test("keys the file leaves out keep the defaults they were given")
    func partialOverlay() throws {
        var base = userDefaults
        base.location.gpsd.port = 4000
        let settings = try Settings.decode(
            "[location.gpsd]\nhost = \"10.0.0.2\"\n", path: settingsPath, defaults: base)
        #expect(settings.location.gpsd.host == "10.0.0.2")
        #expect(settings.location.gpsd.port == 4000)
    }

    @Test("dotted keys and inline tables mean the same as table headers")
    func dottedKeys() throws {
        let text = """
            location.mode = "pinned"
            location.pin.latitude = 59.91
            location.pin.longitude = 10.75
            providers = { open_meteo = { timeout_seconds = 5 } }
            """
        let settings = try Settings.decode(text, path: settingsPath, defaults: userDefaults)
        #expect(settings.location.mode == .pinned)
        #expect(settings.location.pin?.coordinate == Coordinate(latitude: 59.91, longitude: 10.75))
        #expect(settings.location.pin?.name == nil)
        #expect(settings.providers.openMeteo.timeoutSeconds == 5)
    }

    @Test("load reads the file and lays it over the defaults for the environment")
    func loadFromFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("units = \"imperial\"\n", to: "forecastd.toml")
        let settings = try Settings.load(from: path, environment: userEnvironment, isSystemService: true)
        #expect(settings.units == .imperial)
        #expect(settings.output.socket == "/run/forecastd/forecastd.sock")
    }

    @Test("loading the built-in defaults source gives the defaults")
    func loadBuiltInDefaults() throws {
        let settings = try Settings.load(
            .builtInDefaults(searched: []), environment: userEnvironment, isSystemService: false)
        #expect(settings == Settings.defaults(environment: userEnvironment, isSystemService: false))
    }
}
