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
        let choice = policy.choose(.init(gpsd: fix, pin: pin), now: now)
        #expect(choice.fix == fix)
        #expect(choice.reason == "gpsd fix 3 s old")
    }

    @Test("auto: a gpsd fix exactly maxFixAge old still counts as fresh")
    func boundaryIsFresh() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(300))
        let fix = gpsdFix(ageSeconds: 300)
        #expect(policy.choose(.init(gpsd: fix, pin: pin), now: now).fix == fix)
    }

    @Test("auto: a stale gpsd fix gives way to the pin, and the reason says how stale")
    func staleGPSDFallsBackToPin() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(300))
        let choice = policy.choose(.init(gpsd: gpsdFix(ageSeconds: 301), pin: pin), now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "gpsd's last fix is 5 min old (limit 5 min), no static file and no IP position; using the pin")
    }

    @Test("auto: without any gpsd fix the pin is used")
    func noGPSDUsesPin() {
        let choice = LocationPolicy(mode: .auto).choose(.init(gpsd: nil, pin: pin), now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "gpsd has no fix, no static file and no IP position; using the pin")
    }

    @Test("auto: no gpsd fix and no pin means no position")
    func nothingKnown() {
        let choice = LocationPolicy(mode: .auto).choose(.init(gpsd: nil, pin: nil), now: now)
        #expect(choice.fix == nil)
        #expect(choice.reason == "no position: gpsd has no fix, no static file, no IP position and no pin")
    }

    @Test("auto: a stale gpsd fix and no pin means no position, not the stale fix")
    func staleAndNoPin() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(60))
        let choice = policy.choose(.init(gpsd: gpsdFix(ageSeconds: 3600), pin: nil), now: now)
        #expect(choice.fix == nil)
        #expect(choice.reason == "no position: gpsd's last fix is 60 min old (limit 60 s), no static file, no IP position and no pin")
    }

    @Test("auto: a fix received after `now` (clock set back) counts as fresh")
    func futureFixIsFresh() {
        let fix = gpsdFix(ageSeconds: -30)
        let choice = LocationPolicy(mode: .auto).choose(.init(gpsd: fix, pin: pin), now: now)
        #expect(choice.fix == fix)
        #expect(choice.reason == "gpsd fix 0 s old")
    }

    @Test("pinned: the pin is used even when gpsd has a fresh fix")
    func pinnedIgnoresGPSD() {
        let choice = LocationPolicy(mode: .pinned).choose(.init(gpsd: gpsdFix(ageSeconds: 1), pin: pin), now: now)
        #expect(choice.fix == pin)
        #expect(choice.reason == "pinned mode: using the pin")
    }

    @Test("pinned: without a pin there is no position, whatever gpsd says")
    func pinnedWithoutPin() {
        let choice = LocationPolicy(mode: .pinned).choose(.init(gpsd: gpsdFix(ageSeconds: 1), pin: nil), now: now)
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
        #expect(policy.choose(.init(gpsd: fresh, pin: pin), now: now).fix == pin)
        let alone = policy.choose(.init(gpsd: fresh, pin: nil), now: now)
        #expect(alone.fix == nil)
        #expect(alone.reason == "no position: gpsd has no fix, no static file, no IP position and no pin")
    }

    @Test("an implausible pin is treated as no pin in either mode", arguments: LocationMode.allCases)
    func implausiblePinRejected(mode: LocationMode) {
        let nullIsland = LocationFix(
            coordinate: Coordinate(latitude: 0, longitude: 0), source: .pinned, receivedAt: now)
        let choice = LocationPolicy(mode: mode).choose(.init(gpsd: nil, pin: nullIsland), now: now)
        #expect(choice.fix == nil)
    }

    // MARK: The whole order

    var staticFix: LocationFix {
        LocationFix(coordinate: Coordinate(latitude: 40.6893, longitude: -74.0446), source: .staticFile, accuracyMeters: 1.8, receivedAt: now)
    }

    var ipFix: LocationFix {
        LocationFix(coordinate: Coordinate(latitude: 37.4056, longitude: -122.0775), source: .ip, accuracyMeters: 15_000, receivedAt: now.addingTimeInterval(-1200))
    }

    @Test("auto: each source gives way only to the ones above it: fresh gpsd, recent gpsd, static file, IP, pin")
    func wholeOrder() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(120), recentFixWindow: .seconds(30 * 60))
        let fresh = gpsdFix(ageSeconds: 10)
        let recent = gpsdFix(ageSeconds: 20 * 60)
        let old = gpsdFix(ageSeconds: 3 * 3600)
        let all = LocationPolicy.Candidates(gpsd: fresh, staticFile: staticFix, ip: ipFix, pin: pin)
        #expect(policy.choose(all, now: now).fix == fresh)

        var candidates = all
        candidates.gpsd = recent
        let recentChoice = policy.choose(candidates, now: now)
        #expect(recentChoice.fix == recent)
        #expect(recentChoice.reason == "gpsd has no fresh fix; its last one, 20 min old, is recent enough")

        candidates.gpsd = old
        let staticChoice = policy.choose(candidates, now: now)
        #expect(staticChoice.fix == staticFix)
        #expect(staticChoice.reason == "gpsd's last fix is 3 h old (limit 32 min); using the static file")

        candidates.staticFile = nil
        let ipChoice = policy.choose(candidates, now: now)
        #expect(ipChoice.fix == ipFix)
        #expect(ipChoice.reason == "gpsd's last fix is 3 h old (limit 32 min) and there is no static file; using IP geolocation (approximate)")

        candidates.ip = nil
        #expect(policy.choose(candidates, now: now).fix == pin)

        candidates.pin = nil
        #expect(policy.choose(candidates, now: now).fix == nil)
    }

    @Test("auto: with recent_fix_minutes = 0 a fix that is no longer fresh gives way at once")
    func noRecentWindow() {
        let policy = LocationPolicy(mode: .auto, maxFixAge: .seconds(120), recentFixWindow: .zero)
        let choice = policy.choose(.init(gpsd: gpsdFix(ageSeconds: 121), ip: ipFix), now: now)
        #expect(choice.fix == ipFix)
    }

    @Test("pinned: the static file and IP are ignored like gpsd")
    func pinnedIgnoresEverythingElse() {
        let choice = LocationPolicy(mode: .pinned).choose(.init(gpsd: gpsdFix(ageSeconds: 1), staticFile: staticFix, ip: ipFix, pin: pin), now: now)
        #expect(choice.fix == pin)
        let none = LocationPolicy(mode: .pinned).choose(.init(staticFile: staticFix, ip: ipFix), now: now)
        #expect(none.fix == nil)
    }

    @Test("auto: an implausible static or IP position is skipped, never used")
    func implausibleOthersSkipped() {
        var nullStatic = staticFix
        nullStatic.coordinate = Coordinate(latitude: 0, longitude: 0)
        var nanIP = ipFix
        nanIP.coordinate = Coordinate(latitude: .nan, longitude: 1)
        let choice = LocationPolicy(mode: .auto).choose(.init(staticFile: nullStatic, ip: nanIP, pin: pin), now: now)
        #expect(choice.fix == pin)
    }
}
