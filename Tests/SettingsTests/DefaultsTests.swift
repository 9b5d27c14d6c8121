import ForecastModel
import Foundation
import Testing

@testable import Settings

@Suite("Defaults")
struct DefaultsTests {
    @Test("a user session keeps runtime files in XDG_RUNTIME_DIR and state under ~/.local/state")
    func userSession() {
        let settings = Settings.defaults(environment: userEnvironment, isSystemService: false, userID: 1000)
        #expect(settings.units == .metric)
        #expect(settings.refreshMinutes == 15)
        #expect(settings.refreshInterval == .seconds(900))
        #expect(settings.location.mode == .auto)
        #expect(settings.location.refreshDistanceKm == 5.0)
        #expect(settings.location.pin == nil)
        #expect(
            settings.location.gpsd
                == Settings.Gpsd(enabled: true, host: "127.0.0.1", port: 2947, maxFixAgeSeconds: 120))
        #expect(settings.location.gpsd.maxFixAge == .seconds(120))
        #expect(settings.providers.openMeteo.url.absoluteString == "https://api.open-meteo.com/v1/forecast")
        #expect(settings.providers.openMeteo.timeout == .seconds(15))
        #expect(settings.output.statusFile == "/run/user/1000/forecastd/report.json")
        #expect(settings.output.socket == "/run/user/1000/forecastd/forecastd.sock")
        #expect(settings.stateDirectory == "/home/u/.local/state/forecastd")
    }

    @Test("XDG_STATE_HOME moves the state directory")
    func stateHome() {
        var environment = userEnvironment
        environment["XDG_STATE_HOME"] = "/data/state/"
        let settings = Settings.defaults(environment: environment, isSystemService: false, userID: 1000)
        #expect(settings.stateDirectory == "/data/state/forecastd")
    }

    @Test("a system service uses /run/forecastd and /var/lib/forecastd whatever the environment says")
    func systemService() {
        let environment = ["XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/x", "HOME": "/root"]
        let settings = Settings.defaults(environment: environment, isSystemService: true, userID: 0)
        #expect(settings.output.statusFile == "/run/forecastd/report.json")
        #expect(settings.output.socket == "/run/forecastd/forecastd.sock")
        #expect(settings.stateDirectory == "/var/lib/forecastd")
    }

    @Test("without XDG_RUNTIME_DIR a user gets a private /tmp directory named by uid")
    func noRuntimeDirectoryForUser() {
        let settings = Settings.defaults(environment: ["HOME": "/home/u"], isSystemService: false, userID: 1000)
        #expect(settings.output.statusFile == "/tmp/forecastd-1000/report.json")
        #expect(settings.output.socket == "/tmp/forecastd-1000/forecastd.sock")
    }

    @Test("without XDG_RUNTIME_DIR root uses /run/forecastd but keeps its state at home")
    func noRuntimeDirectoryForRoot() {
        let settings = Settings.defaults(environment: ["HOME": "/root"], isSystemService: false, userID: 0)
        #expect(settings.output.socket == "/run/forecastd/forecastd.sock")
        #expect(settings.stateDirectory == "/root/.local/state/forecastd")
    }

    @Test("relative XDG paths are ignored, as the XDG specification requires")
    func relativeXDGPathsIgnored() {
        let environment = ["HOME": "/home/u", "XDG_RUNTIME_DIR": "run", "XDG_STATE_HOME": "state"]
        let settings = Settings.defaults(environment: environment, isSystemService: false, userID: 1000)
        #expect(settings.output.socket == "/tmp/forecastd-1000/forecastd.sock")
        #expect(settings.stateDirectory == "/home/u/.local/state/forecastd")
    }

    @Test(
        "only root started by systemd looks like a system service",
        arguments: [
            (["INVOCATION_ID": "5f2c"], UInt32(0), true),
            (["INVOCATION_ID": "5f2c"], UInt32(1000), false),
            ([:], UInt32(0), false),
            (["INVOCATION_ID": ""], UInt32(0), false),
        ])
    func systemServiceDetection(environment: [String: String], userID: UInt32, expected: Bool) {
        #expect(Settings.isLikelySystemService(environment: environment, userID: userID) == expected)
    }
}
