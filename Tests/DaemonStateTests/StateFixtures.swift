// Shared by DaemonStateTests and DaemonServicesTests (a symbolic link there): the parts every test of a
// state needs.

import DaemonState
import ForecastModel
import Foundation
import Logging
import Settings
import Synchronization

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_795_343_400)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Names every point "Testville" with its distance from a fixed centre, so tests see place updates.
struct FixedPlaces: PlaceNaming {
    func nearestPlace(to coordinate: Coordinate) -> Place? {
        let centre = Coordinate(latitude: 48.9, longitude: 2.33)
        return Place(
            name: "Testville", admin1: nil, country: "France", countryCode: "FR", population: 1000, coordinate: centre,
            timezone: "Europe/Paris", distanceKm: centre.distanceKm(to: coordinate))
    }
}

extension Settings {
    /// The defaults with only the sources a test asks for: metric, refreshed every 15 minutes, gpsd on
    /// 127.0.0.1 unless switched off, no static file, no Wi-Fi, GeoClue or IP geolocation, no grace for a fix once it is no
    /// longer fresh (`recent_fix_minutes = 0`); no file is written.
    static func testing(pin: Coordinate? = nil, gpsd: Bool = true, mode: LocationMode = .auto) -> Settings {
        var settings = Settings.defaults(isSystemService: false)
        settings.location.mode = mode
        settings.location.pin = pin.map { Pin(coordinate: $0, name: nil) }
        settings.location.gpsd.enabled = gpsd
        settings.location.gpsd.recentFixMinutes = 0
        settings.location.staticFile = nil
        settings.location.ip.enabled = false
        settings.location.wifi.enabled = false
        settings.location.geoclue.enabled = false
        settings.output.statusFile = "/nonexistent"
        settings.output.socket = "/nonexistent"
        return settings
    }
}

/// A test with a clock it moves by hand, and states and forecasts on that clock.
protocol OnTestClock {
    var clock: TestClock { get }
}

extension OnTestClock {
    func makeState(_ settings: Settings) -> ForecastState {
        let clock = self.clock
        return ForecastState(
            settings: settings, places: FixedPlaces(), logger: Logger(label: "test"), clock: { clock.now })
    }

    func forecast() -> Forecast {
        Forecast(
            provider: "open-meteo", attribution: "test", coordinate: Coordinate(latitude: 48.9, longitude: 2.33),
            fetchedAt: clock.now, utcOffsetSeconds: 3600, timezone: nil,
            current: CurrentConditions(time: clock.now, temperature: 10), hourly: [], daily: [])
    }
}

/// A state's clock for a test of something else.
struct TestState: OnTestClock {
    let clock = TestClock()
}
