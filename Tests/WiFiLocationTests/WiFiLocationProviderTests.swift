import AsyncHTTPClient
import DBus
import ForecastModel
import Foundation
import Location
import Logging
import NetworkManager
import TestSupport
import Testing
import WiFiLocation

/// The Wi-Fi source end to end but for the radio: python-dbusmock's `networkmanager` template on a private system
/// bus plays NetworkManager, and a local server replays the geolocation service's answers.
@Suite("Wi-Fi positioning through NetworkManager", .timeLimit(.minutes(3)))
struct WiFiLocationProviderTests {
    static let userAgent = "forecastd/0.0.0-test (weather daemon for status bars)"
    static let berlin = Coordinate(latitude: 52.516275, longitude: 13.377704)
    static let rio = Coordinate(latitude: -22.7539192, longitude: -43.4371081)

    /// The events a provider delivered, read in order with a deadline.
    final class Events: Sendable {
        let stream: AsyncStream<LocationEvent>
        let continuation: AsyncStream<LocationEvent>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: LocationEvent.self) }

        /// The next event (nil when none came within `seconds`: far more than a loaded machine needs).
        func next(within seconds: Double = 30) async -> LocationEvent? {
            await withTaskGroup(of: LocationEvent?.self) { group in
                group.addTask {
                    var iterator = self.stream.makeAsyncIterator()
                    return await iterator.next()
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        /// The next fix, skipping other events.
        func nextFix(within seconds: Double = 30) async -> LocationFix? {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while Date() < deadline {
                guard let event = await next(within: deadline.timeIntervalSinceNow) else { return nil }
                if case .fix(let fix) = event { return fix }
            }
            return nil
        }
    }

    /// The provider's clock: now, moved on by what the test says (the rule's minute between two requests would
    /// otherwise hold a move made seconds after the last answer).
    final class Clock: @unchecked Sendable {
        // `lock` guards `offset`; that is what makes the unchecked Sendable sound.
        private let lock = NSLock()
        private var offset: TimeInterval = 0
        func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
        var now: Date { lock.withLock { Date().addingTimeInterval(offset) } }
    }

    /// Runs a provider on `bus` asking `server`, with `body`, and stops it.
    func withProvider(
        bus: PrivateDBusDaemon, server: ReplayServer, client: HTTPClient, clock: Clock = Clock(),
        memoryPath: String? = nil, _ body: (Events) async throws -> Void
    ) async throws {
        let provider = WiFiLocationProvider(
            geolocation: WiFiGeolocationClient(
                url: server.url("/v1/geolocate"), client: client, userAgent: Self.userAgent,
                logger: Logger(label: "test")),
            busAddress: bus.address, memoryPath: memoryPath, logger: Logger(label: "test"), clock: { clock.now })
        let events = Events()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await provider.run { events.continuation.yield($0) } }
            try await body(events)
            group.cancelAll()
        }
    }

    func bodies(_ server: ReplayServer) -> [String] {
        server.requests().filter { $0.path == "/v1/geolocate" }.map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test("Locates from NetworkManager's access points: one request, no SSID, _nomap and randomised left out")
    func locates() async throws {
        try await ReplayServer.withClient { server, client in
            server.setRoute(path: "/v1/geolocate", try .fixture("geolocation/beacondb-200-position.json"))
            try await withPrivateBus(kind: .system) { bus in
                let manager = try await NetworkManagerMock.start(on: bus)
                let wlan0 = try await manager.addWiFiDevice()
                try await manager.addAccessPoint(
                    to: wlan0, name: "home", ssid: "Home", bssid: "00:25:9C:CF:1C:AC", frequency: 2437, strength: 80)
                try await manager.addAccessPoint(
                    to: wlan0, name: "cafe", ssid: "Cafe", bssid: "84:1B:5E:00:00:01", frequency: 5180, strength: 40)
                try await manager.addAccessPoint(
                    to: wlan0, name: "flat", ssid: "Flat_nomap", bssid: "00:25:9C:CF:1C:AD", strength: 90)
                try await manager.addAccessPoint(
                    to: wlan0, name: "phone", ssid: "Pixel", bssid: "DA:A1:19:00:00:01", strength: 95)
                try await withProvider(bus: bus, server: server, client: client) { events in
                    let fix = try #require(await events.nextFix())
                    #expect(fix.source == .wifi)
                    #expect(fix.coordinate == Self.berlin)
                    #expect(fix.accuracyMeters == 50)
                }
                let sent = bodies(server)
                #expect(sent.count == 1)
                let body = try #require(sent.first)
                #expect(body.hasPrefix(#"{"considerIp":false,"wifiAccessPoints":[{"macAddress":"00:25:9c:cf:1c:ac","#))
                #expect(body.contains(#""macAddress":"84:1b:5e:00:00:01""#))
                for leaked in ["Home", "Cafe", "Flat", "Pixel", "1c:ad", "da:a1"] { #expect(!body.contains(leaked)) }
                manager.stop()
            }
        }
    }

    @Test("Moving between places: a new place is asked about at once, a place answered before is not asked again")
    func movesBetweenPlaces() async throws {
        try await ReplayServer.withClient { server, client in
            server.setRoute(
                path: "/v1/geolocate",
                sequence: [
                    try .fixture("geolocation/beacondb-200-position.json"),
                    try .fixture("geolocation/ichnaea-docs-200-position.json"),
                ])
            try await withPrivateBus(kind: .system) { bus in
                let manager = try await NetworkManagerMock.start(on: bus)
                let wlan0 = try await manager.addWiFiDevice()
                var home: [String] = []
                for (index, bssid) in ["00:25:9C:CF:1C:AC", "00:25:9C:CF:1C:AE"].enumerated() {
                    home.append(
                        try await manager.addAccessPoint(to: wlan0, name: "home\(index)", ssid: "Home", bssid: bssid))
                }
                let clock = Clock()
                try await withProvider(bus: bus, server: server, client: client, clock: clock) { events in
                    #expect(await events.nextFix()?.coordinate == Self.berlin)

                    // Two minutes later, a new place: the old access points go, two new ones come. Asked about at
                    // once, not in 10 minutes.
                    clock.advance(120)
                    for path in home { try await manager.removeAccessPoint(path, from: wlan0) }
                    var away: [String] = []
                    for (index, bssid) in ["84:1B:5E:00:00:01", "84:1B:5E:00:00:02"].enumerated() {
                        away.append(
                            try await manager.addAccessPoint(
                                to: wlan0, name: "away\(index)", ssid: "Hotel", bssid: bssid))
                    }
                    var fix = await events.nextFix()
                    // The first of the new access points may be judged alone, with the old ones half gone.
                    if fix?.coordinate == Self.berlin { fix = await events.nextFix() }
                    #expect(fix?.coordinate == Self.rio)
                    #expect(fix?.accuracyMeters == 100)

                    // Home again: the answer kept for home serves, with no request.
                    for path in away { try await manager.removeAccessPoint(path, from: wlan0) }
                    for (index, bssid) in ["00:25:9C:CF:1C:AC", "00:25:9C:CF:1C:AE"].enumerated() {
                        try await manager.addAccessPoint(to: wlan0, name: "back\(index)", ssid: "Home", bssid: bssid)
                    }
                    var back = await events.nextFix()
                    while let seen = back, seen.coordinate != Self.berlin { back = await events.nextFix(within: 10) }
                    #expect(back?.coordinate == Self.berlin)
                }
                #expect(bodies(server).count == 2)
                manager.stop()
            }
        }
    }

    @Test("Answers are kept across a restart in wifi-location.json: the same place is not asked about again")
    func keepsAnswersAcrossRestarts() async throws {
        try await withTemporaryDirectory("wifi-memory") { directory in
            let memory = directory.appendingPathComponent("wifi-location.json").path
            try await ReplayServer.withClient { server, client in
                server.setRoute(path: "/v1/geolocate", try .fixture("geolocation/beacondb-200-position.json"))
                try await withPrivateBus(kind: .system) { bus in
                    let manager = try await NetworkManagerMock.start(on: bus)
                    let wlan0 = try await manager.addWiFiDevice()
                    try await manager.addAccessPoint(to: wlan0, name: "a", ssid: "A", bssid: "00:25:9C:CF:1C:AC")
                    try await manager.addAccessPoint(to: wlan0, name: "b", ssid: "B", bssid: "00:25:9C:CF:1C:AE")
                    for _ in 0..<2 {
                        try await withProvider(bus: bus, server: server, client: client, memoryPath: memory) { events in
                            #expect(await events.nextFix()?.coordinate == Self.berlin)
                        }
                    }
                    manager.stop()
                }
                #expect(server.requestCount(path: "/v1/geolocate") == 1)
            }
            var info = stat()
            #expect(stat(memory, &info) == 0 && info.st_mode & 0o777 == 0o600)
            let saved = try String(contentsOfFile: memory, encoding: .utf8)
            #expect(saved.contains("00:25:9c:cf:1c:ac") && saved.contains("52.516275"))
        }
    }

    @Test("No system bus at all: unavailable once, and the source ends, keeping no timer")
    func noSystemBus() async throws {
        try await withTemporaryDirectory("no-bus") { directory in
            try await ReplayServer.withClient { server, client in
                let provider = WiFiLocationProvider(
                    geolocation: WiFiGeolocationClient(
                        url: server.url("/v1/geolocate"), client: client, userAgent: Self.userAgent,
                        logger: Logger(label: "test")),
                    busAddress: "unix:path=" + directory.path + "/absent", memoryPath: nil, logger: Logger(label: "test"))
                let events = Events()
                let ended = await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        await provider.run { events.continuation.yield($0) }
                        return true
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(30))
                        return false
                    }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                #expect(ended)
                guard case .unavailable(.wifi, let reason) = await events.next(within: 1) else {
                    Issue.record("expected the Wi-Fi source unavailable")
                    return
                }
                #expect(reason.contains("cannot be reached"))
            }
        }
    }

    @Test("NetworkManager absent, then started: unavailable first, then located when it takes its name")
    func networkManagerStartsLater() async throws {
        try await ReplayServer.withClient { server, client in
            server.setRoute(path: "/v1/geolocate", try .fixture("geolocation/beacondb-200-position.json"))
            try await withPrivateBus(kind: .system) { bus in
                try await withProvider(bus: bus, server: server, client: client) { events in
                    let first = await events.next()
                    guard case .unavailable(.wifi, let reason) = first else {
                        Issue.record("expected NetworkManager to be unavailable first, got \(String(describing: first))")
                        return
                    }
                    #expect(reason.contains("NetworkManager is not running"))
                    let manager = try await NetworkManagerMock.start(on: bus)
                    let wlan0 = try await manager.addWiFiDevice()
                    try await manager.addAccessPoint(to: wlan0, name: "a", ssid: "A", bssid: "00:25:9C:CF:1C:AC")
                    try await manager.addAccessPoint(to: wlan0, name: "b", ssid: "B", bssid: "00:25:9C:CF:1C:AE")
                    #expect(await events.nextFix()?.coordinate == Self.berlin)
                    manager.stop()
                }
            }
        }
    }

    @Test("A 429 with Retry-After: no second request while it holds, however the access points change")
    func honoursRetryAfter() async throws {
        try await ReplayServer.withClient { server, client in
            server.setRoute(
                path: "/v1/geolocate",
                .json(#"{"error":{"code":429,"message":"Too Many Requests"}}"#, status: 429,
                    headers: [("Retry-After", "3600")]))
            try await withPrivateBus(kind: .system) { bus in
                let manager = try await NetworkManagerMock.start(on: bus)
                let wlan0 = try await manager.addWiFiDevice()
                try await manager.addAccessPoint(to: wlan0, name: "a", ssid: "A", bssid: "00:25:9C:CF:1C:AC")
                try await manager.addAccessPoint(to: wlan0, name: "b", ssid: "B", bssid: "00:25:9C:CF:1C:AE")
                try await withProvider(bus: bus, server: server, client: client) { events in
                    #expect(await events.next() == .noFix(source: .wifi))
                    // A new place while the service's wait holds: judged, not asked.
                    try await manager.addAccessPoint(to: wlan0, name: "c", ssid: "C", bssid: "84:1B:5E:00:00:01")
                    try await manager.addAccessPoint(to: wlan0, name: "d", ssid: "D", bssid: "84:1B:5E:00:00:02")
                    try await manager.addAccessPoint(to: wlan0, name: "e", ssid: "E", bssid: "84:1B:5E:00:00:03")
                    // The mock's own record of the reads proves the provider judged the change.
                    let deadline = Date(timeIntervalSinceNow: 30)
                    while Date() < deadline, try await manager.mock.calledMethods(on: wlan0).filter({
                        $0 == "GetAllAccessPoints"
                    }).count < 2 {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    #expect(
                        try await manager.mock.calledMethods(on: wlan0).filter { $0 == "GetAllAccessPoints" }.count
                            >= 2)
                }
                #expect(server.requestCount(path: "/v1/geolocate") == 1)
                manager.stop()
            }
        }
    }
}
