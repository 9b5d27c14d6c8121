import DBus
import ForecastModel
import Foundation
import GeoClue
import GeoClueLocation
import Location
import Logging
import TestSupport
import Testing

/// The GeoClue source against the tests' GeoClue 2 mock (`Tests/Fixtures/dbusmock/geoclue2.py`) on a private system
/// bus, with and without an agent.
@Suite("GeoClue as a position source", .timeLimit(.minutes(2)))
struct GeoClueLocationProviderTests {
    static let template = Fixtures.url("dbusmock/geoclue2.py").path

    /// The first event the provider delivers, within a deadline far longer than a loaded machine needs.
    func firstEvent(on bus: PrivateDBusDaemon) async -> LocationEvent? {
        let provider = GeoClueLocationProvider(busAddress: bus.address, logger: Logger(label: "test"))
        let (events, deliver) = AsyncStream.makeStream(of: LocationEvent.self)
        return await withTaskGroup(of: LocationEvent?.self) { group in
            group.addTask {
                await provider.run { deliver.yield($0) }
                return nil
            }
            group.addTask {
                var iterator = events.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            var first: LocationEvent?
            for await event in group {
                if let event {
                    first = event
                    break
                }
            }
            group.cancelAll()
            deliver.finish()
            return first
        }
    }

    @Test("With an agent: one fix with GeoClue's accuracy, DesktopId forecastd, and the client stopped")
    func fixWithAgent() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let geoclue = try await DBusMock.start(
                on: bus, template: Self.template, name: GeoClueNames.bus, path: GeoClueNames.managerPath,
                parameters: #"{"agent": true, "latitude": 48.8584, "longitude": 2.2945, "accuracy": 35, "description": "WiFi"}"#)
            let event = await firstEvent(on: bus)
            guard case .fix(let fix) = event else {
                Issue.record("expected a fix, got \(String(describing: event))")
                return
            }
            #expect(fix.source == .geoclue)
            #expect(fix.coordinate == Coordinate(latitude: 48.8584, longitude: 2.2945))
            #expect(fix.accuracyMeters == 35)
            let client = "/org/freedesktop/GeoClue2/Client/1"
            // Stop goes out without a reply awaited: give the mock the moment it takes to record it.
            let deadline = Date(timeIntervalSinceNow: 30)
            while Date() < deadline, try await !geoclue.calledMethods(on: client).contains("Stop") {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await geoclue.calledMethods(on: client).contains("Stop"))
            geoclue.stop()
        }
    }

    @Test("Without an agent, and with no GeoClue at all: skipped, said once as unavailable")
    func skippedWithoutAgent() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let absent = await firstEvent(on: bus)
            #expect(absent == .unavailable(source: .geoclue, reason: "GeoClue is not available on the system bus"))
            let geoclue = try await DBusMock.start(
                on: bus, template: Self.template, name: GeoClueNames.bus, path: GeoClueNames.managerPath,
                parameters: #"{"agent": false}"#)
            let event = await firstEvent(on: bus)
            guard case .unavailable(.geoclue, let reason) = event else {
                Issue.record("expected GeoClue skipped, got \(String(describing: event))")
                return
            }
            #expect(reason.hasPrefix("GeoClue has no agent for this user"))
            geoclue.stop()
        }
    }
}
