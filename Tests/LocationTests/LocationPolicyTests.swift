import ForecastModel
import Foundation
import Location
import Testing

@Suite("LocationPolicy picks the position to forecast for")
struct LocationPolicyTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    let saintOuen = Coordinate(latitude: 48.9043, longitude: 2.3330)
    let lisbon = Coordinate(latitude: 38.7223, longitude: -9.1393)

    func gpsdFix(ageSeconds: Double, at coordinate: Coordinate? = nil) -> LocationFix {
        LocationFix(
            coordinate: coordinate ?? saintOuen, source: .gpsd, accuracyMeters: 12,
            receivedAt: now.addingTimeInterval(-ageSeconds))
    }

    var pin: LocationFix {
        LocationFix(coordinate: lisbon, source: .pinned, receivedAt: now, label: "Home")
    }

    @Test("auto: a fresh gpsd fix wins over the pin")
    func freshGPSDWins() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(300))
        let fix = gpsdFix(ageSeconds: 3)
        let choice = policy.choose(gpsd: fix, pin: pin, now: now)
        #expect(choice.fix == fix)
        #expect(choice.reason == "gpsd fix 3 s old")
    }

    @Test("auto: a gpsd fix exactly maxFixAge old still counts as fresh")
    func boundaryIsFresh() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(300))
        let fix = gpsdFix(ageSeconds: 300)
        #expect(policy.choose(gpsd: fix, pin: pin, now: now).fix == fix)
    }

    @Test("auto: a stale gpsd fix gives way to the pin, and the reason says how stale")
    func staleGPSDFallsBackToPin() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(300))
        let choice = policy.choose(gpsd: gpsdFix(ageSeconds: 301), pin: pin, now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "gpsd has no fresh fix: gpsd's last fix is 301 s old (limit 300 s); using the pin")
    }

    @Test("auto: without any gpsd fix the pin is used")
    func noGPSDUsesPin() {
        let choice = LocationPolicy(mode: .auto).choose(gpsd: nil, pin: pin, now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "gpsd has no fix; using the pin")
    }

    @Test("auto: no gpsd fix and no pin means no position")
    func nothingKnown() {
        let choice = LocationPolicy(mode: .auto).choose(gpsd: nil, pin: nil, now: now)
        #expect(choice.fix == nil)
        #expect(choice.reason == "no position: gpsd has no fix and no pin is set")
    }

    @Test("auto: a stale gpsd fix and no pin means no position, not the stale fix")
    func staleAndNoPin() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(60))
        let choice = policy.choose(gpsd: gpsdFix(ageSeconds: 3600), pin: nil, now: now)
        #expect(choice.fix == nil)
        #expect(choice.reason == "no position: gpsd's last fix is 3600 s old (limit 60 s) and no pin is set")
    }

    @Test("auto: a fix received after `now` (clock set back) counts as fresh")
    func futureFixIsFresh() {
        let fix = gpsdFix(ageSeconds: -30)
        let choice = LocationPolicy(mode: .auto).choose(gpsd: fix, pin: pin, now: now)
        #expect(choice.fix == fix)
        #expect(choice.reason == "gpsd fix 0 s old")
    }

    @Test("pinned: the pin is used even when gpsd has a fresh fix")
    func pinnedIgnoresGPSD() {
        let choice = LocationPolicy(mode: .pinned).choose(gpsd: gpsdFix(ageSeconds: 1), pin: pin, now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "pinned mode: using the pin")
    }

    @Test("pinned: without a pin there is no position, whatever gpsd says")
    func pinnedWithoutPin() {
        let choice = LocationPolicy(mode: .pinned).choose(gpsd: gpsdFix(ageSeconds: 1), pin: nil, now: now)
        #expect(choice.fix == nil)
        #expect(choice.reason == "no position: the mode is pinned and no pin is set")
    }

    @Test(
        "an implausible gpsd fix is never chosen",
        arguments: [
            Coordinate(latitude: 0, longitude: 0),
            Coordinate(latitude: .nan, longitude: 2.3),
            Coordinate(latitude: 48.9, longitude: .infinity),
            Coordinate(latitude: 91, longitude: 2.3),
            Coordinate(latitude: 48.9, longitude: -181),
        ])
    func implausibleGPSDRejected(coordinate: Coordinate) {
        let policy = LocationPolicy(mode: .auto)
        let fresh = gpsdFix(ageSeconds: 1, at: coordinate)
        #expect(policy.choose(gpsd: fresh, pin: pin, now: now).fix == pin)
        let alone = policy.choose(gpsd: fresh, pin: nil, now: now)
        #expect(alone.fix == nil)
        #expect(alone.reason == "no position: gpsd has no fix and no pin is set")
    }

    @Test("an implausible pin is treated as no pin in either mode", arguments: LocationPolicy.Mode.allCases)
    func implausiblePinRejected(mode: LocationPolicy.Mode) {
        let nullIsland = LocationFix(
            coordinate: Coordinate(latitude: 0, longitude: 0), source: .pinned, receivedAt: now)
        let choice = LocationPolicy(mode: mode).choose(gpsd: nil, pin: nullIsland, now: now)
        #expect(choice.fix == nil)
    }
}
