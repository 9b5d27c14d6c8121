import ForecastModel
import Foundation
import Location
import Testing

@Suite("PinnedLocationProvider delivers the pin")
struct PinnedLocationProviderTests {
    @Test("a pin is delivered once as a pinned fix carrying its name, and run returns when cancelled")
    func deliversPin() async throws {
        let provider = PinnedLocationProvider(
            coordinate: Coordinate(latitude: 38.7373, longitude: -9.1406), name: "Areeiro")
        let before = Date()
        let events = await running(provider) { recorder in
            _ = await recorder.first(within: 5) { $0.isFix }
            // Watch a little longer: the pin must not be repeated.
            try? await Task.sleep(for: .milliseconds(200))
            return recorder.all
        }
        #expect(events.count == 1)
        guard case .fix(let fix) = try #require(events.first) else {
            Issue.record("expected a fix, got \(events)")
            return
        }
        #expect(fix.coordinate == Coordinate(latitude: 38.7373, longitude: -9.1406))
        #expect(fix.source == .pinned)
        #expect(fix.label == "Areeiro")
        #expect(fix.receivedAt >= before && fix.receivedAt <= Date())
    }

    @Test("without a pin the provider says it is unavailable")
    func noPin() async {
        let events = await running(PinnedLocationProvider(coordinate: nil)) { recorder in
            _ = await recorder.first(within: 5) { _ in true }
            return recorder.all
        }
        #expect(events == [.unavailable(source: .pinned, reason: "No pin is set.")])
    }

    @Test("a pin at (0, 0) is refused with a reason that names the allowed values")
    func implausiblePin() async throws {
        let provider = PinnedLocationProvider(coordinate: Coordinate(latitude: 0, longitude: 0), name: "Nowhere")
        let events = await running(provider) { recorder in
            _ = await recorder.first(within: 5) { _ in true }
            return recorder.all
        }
        guard case .unavailable(.pinned, let reason) = try #require(events.first) else {
            Issue.record("expected unavailable, got \(events)")
            return
        }
        #expect(reason.contains("(0.0, 0.0)"))
        #expect(reason.contains("-90...90"))
        #expect(events.count == 1)
    }
}
