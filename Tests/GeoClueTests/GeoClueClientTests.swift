import DBus
import Foundation
import GeoClue
import TestSupport
import Testing

/// The client against a GeoClue 2 mock on a private system bus (`Tests/Fixtures/dbusmock/geoclue2.py`: python-dbusmock
/// has no GeoClue template), with and without an agent.
@Suite("GeoClue client on a private system bus", .timeLimit(.minutes(1)))
struct GeoClueClientTests {
    static let template = Fixtures.url("dbusmock/geoclue2.py").path
    static let clientPath = "/org/freedesktop/GeoClue2/Client/1"

    func startGeoClue(on bus: PrivateDBusDaemon, _ parameters: String) async throws -> DBusMock {
        try await DBusMock.start(
            on: bus, template: Self.template, name: GeoClueNames.bus, path: GeoClueNames.managerPath,
            parameters: parameters)
    }

    @Test("With an agent: DesktopId and the accuracy level set, one fix taken, the client stopped")
    func fixWithAgent() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let geoclue = try await startGeoClue(
                on: bus, #"{"agent": true, "latitude": 48.8584, "longitude": 2.2945, "accuracy": 35, "description": "WiFi"}"#)
            let connection = try await DBusConnection.connect(address: bus.address)
            let client = GeoClueClient(bus: connection, desktopID: "forecastd")
            let clientCalls = try await calls(on: geoclue)
            let outcome = await client.locateOnce(accuracy: .exact)
            guard case .fix(let fix) = outcome else {
                Issue.record("expected a fix, got \(outcome)")
                return
            }
            #expect(fix.latitude == 48.8584 && fix.longitude == 2.2945 && fix.accuracyMeters == 35)
            #expect(fix.description == "WiFi")
            #expect(abs(try #require(fix.timestamp).timeIntervalSinceNow) < 30)

            let properties = try await connection.allProperties(
                destination: GeoClueNames.bus, path: Self.clientPath, interface: GeoClueNames.client)
            #expect(properties["DesktopId"] == .string("forecastd"))
            #expect(properties["RequestedAccuracyLevel"] == .uint32(GeoClueAccuracyLevel.exact.rawValue))
            // Stopped: no location icon left lit. Stop is sent without waiting, so wait for the mock to take it.
            try await waitFor("Stop", in: clientCalls)
            #expect(
                try await connection.property(
                    "Active", destination: GeoClueNames.bus, path: Self.clientPath, interface: GeoClueNames.client)
                    == .boolean(false))
            #expect(try await geoclue.calledMethods(on: Self.clientPath) == ["Start", "Stop"])
            geoclue.stop()
        }
    }

    @Test("Without an agent: GeoClue's refusal is told apart, and once an agent registers the fix comes")
    func noAgent() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let geoclue = try await startGeoClue(on: bus, #"{"agent": false}"#)
            let client = GeoClueClient(bus: try await DBusConnection.connect(address: bus.address), desktopID: "forecastd")
            let outcome = await client.locateOnce(accuracy: .city)
            guard case .noAgent(let message) = outcome else {
                Issue.record("expected no agent, got \(outcome)")
                return
            }
            #expect(message.hasPrefix("'forecastd' disallowed, no agent for UID "))
            #expect(outcome.description.hasPrefix("GeoClue has no agent for this user"))

            // The desktop's agent starts (GNOME Shell's registers itself with AddAgent).
            _ = try await geoclue.control.call(
                DBusMethodCall(
                    destination: GeoClueNames.bus, path: GeoClueNames.managerPath, interface: GeoClueNames.manager,
                    member: "AddAgent", arguments: [.string("geoclue-demo-agent")]))
            guard case .fix = await client.locateOnce(accuracy: .city) else {
                Issue.record("expected a fix once an agent is registered")
                return
            }
            geoclue.stop()
        }
    }

    @Test("An agent that refuses, and geolocation turned off, are refusals, not a missing agent")
    func refusals() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let rejecting = try await startGeoClue(on: bus, #"{"agent": true, "authorize": false}"#)
            let client = GeoClueClient(bus: try await DBusConnection.connect(address: bus.address), desktopID: "forecastd")
            guard case .refused(let message) = await client.locateOnce() else {
                Issue.record("expected a refusal")
                return
            }
            #expect(message.hasPrefix("Agent rejected 'forecastd'"))
            rejecting.stop()

            let off = try await startGeoClue(on: bus, #"{"agent": true, "max_accuracy": 0}"#)
            guard case .refused(let reason) = await client.locateOnce() else {
                Issue.record("expected a refusal")
                return
            }
            #expect(reason.hasPrefix("Geolocation disabled for UID"))
            off.stop()
        }
    }

    @Test("No GeoClue on the bus, none to start: absent")
    func absent() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let client = GeoClueClient(bus: try await DBusConnection.connect(address: bus.address), desktopID: "forecastd")
            #expect(await client.locateOnce() == .absent)
        }
    }

    @Test("Cancelled while waiting for a fix: Stop still goes out")
    func cancelledWait() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let geoclue = try await startGeoClue(on: bus, #"{"agent": true, "delay": 600}"#)
            let connection = try await DBusConnection.connect(address: bus.address)
            let client = GeoClueClient(bus: connection, desktopID: "forecastd")
            let started = try await geoclue.control.signals(
                matching: DBusProperties.changes(sender: GeoClueNames.bus, interface: GeoClueNames.client))
            let clientCalls = try await calls(on: geoclue)
            let waiting = Task { await client.locateOnce() }
            // Wait until the client is active (Start done), then give up on it.
            for try await signal in started {
                if try DBusPropertiesChange(signal).changed["Active"] == .boolean(true) { break }
            }
            waiting.cancel()
            guard case .failed = await waiting.value else {
                Issue.record("expected the wait to end without a fix")
                return
            }
            try await waitFor("Stop", in: clientCalls)
            #expect(
                try await connection.property(
                    "Active", destination: GeoClueNames.bus, path: Self.clientPath, interface: GeoClueNames.client)
                    == .boolean(false))
            geoclue.stop()
        }
    }

    /// The mock's `MethodCalled` signals from the client object, subscribed before the client exists.
    private func calls(on geoclue: DBusMock) async throws -> DBusSignals {
        try await geoclue.control.signals(
            matching: DBusSignalMatch(
                sender: GeoClueNames.bus, path: Self.clientPath, interface: DBusMock.mockInterface,
                member: "MethodCalled"))
    }

    /// Returns once the mock has taken a call of `method` (a call sent without a reply arrives after the sender has
    /// moved on).
    private func waitFor(_ method: String, in calls: DBusSignals) async throws {
        for try await call in calls where call.body.first == .string(method) { return }
    }
}
