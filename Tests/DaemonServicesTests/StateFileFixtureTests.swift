import DaemonServices
import DaemonState
import Foundation
import Logging
import Notifications
import TestSupport
import Testing

@testable import Location

/// State files written by the daemon before the files moved onto `VersionedJSONFile` (fixtures in
/// `Tests/Fixtures/state-files`, written by the earlier encoders) read in this one and are written back
/// byte for byte: an upgrade neither loses nor rewrites anyone's state.
@Suite("State files from earlier daemons", .onEventLoops)
struct StateFileFixtureTests {
    let logger = Logger(label: "test")

    /// A directory holding a copy of the fixture `name`, and the copy's bytes.
    func copy(_ name: String) throws -> (directory: String, bytes: Data) {
        let directory = NSTemporaryDirectory() + "state-fixture-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let bytes = try Fixtures.data("state-files/" + name)
        try bytes.write(to: URL(fileURLWithPath: directory + "/" + name))
        return (directory, bytes)
    }

    func written(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("state.json with a forecast, a fix and two cities")
    func state() throws {
        let (directory, bytes) = try copy("state.json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(directory: directory, logger: logger)
        let saved = try #require(store.load())
        #expect(saved.forecast != nil && saved.fix != nil && saved.cities?.count == 2)
        try FileManager.default.removeItem(atPath: store.path)
        try store.save(saved)
        #expect(try written(store.path) == bytes)
    }

    @Test("notifications.json with two warnings (one without expiry, closed) and a rain episode")
    func notifications() throws {
        let (directory, bytes) = try copy("notifications.json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = NotificationStore(directory: directory, logger: logger)
        let loaded = store.load()
        #expect(!loaded.wasDamaged)
        #expect(loaded.ledger.warnings.count == 2 && loaded.ledger.rain?.notified == true)
        #expect(loaded.ledger.lastSummaryDate == "2026-11-28")
        try FileManager.default.removeItem(atPath: store.path)
        try store.save(loaded.ledger)
        #expect(try written(store.path) == bytes)
    }

    @Test("ip-location.json (ISO 8601 dates, pretty-printed) with a blocked service")
    func ipLocation() throws {
        let (directory, bytes) = try copy("ip-location.json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ip-location.json"
        let cache = IPLocationCache.load(from: path, logger: logger)
        #expect(cache.result?.city == "Paris" && cache.blockedUntil["ipapi"] != nil && cache.lookedUpAt != nil)
        try FileManager.default.removeItem(atPath: path)
        cache.save(to: path, logger: logger)
        #expect(try written(path) == bytes)
    }
}
