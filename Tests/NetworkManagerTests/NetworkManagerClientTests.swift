import DBus
import Foundation
import NetworkManager
import TestSupport
import Testing

/// The client against python-dbusmock's `networkmanager` template on a private system bus, and against a peer that
/// owns NetworkManager's name but describes its objects wrongly.
@Suite("NetworkManager client on a private system bus", .timeLimit(.minutes(2)))
struct NetworkManagerClientTests {
    @Test("Reads every Wi-Fi device's access points: address, SSID bytes, strength, frequency, LastSeen")
    func readsAccessPoints() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let manager = try await NetworkManagerMock.start(on: bus)
            let wlan0 = try await manager.addWiFiDevice(name: "wlan0", interface: "wlan0")
            let first = try await manager.addAccessPoint(
                to: wlan0, name: "home", ssid: "Home", bssid: "00:25:9C:CF:1C:AC", frequency: 2437, strength: 82,
                ageSeconds: 3)
            try await manager.addAccessPoint(
                to: wlan0, name: "cafe", ssid: "Café_nomap", bssid: "84:1B:5E:00:00:01", frequency: 5180, strength: 40,
                ageSeconds: 20)
            try await manager.mock.mockCall("AddEthernetDevice", [.string("eth0"), .string("eth0"), .int32(100)])
            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))

            let snapshot = try await client.accessPoints()
            #expect(snapshot.devices == [WirelessDevice(path: wlan0, interface: "wlan0")])
            #expect(snapshot.unreadable.isEmpty)
            let home = try #require(snapshot.accessPoints.first { $0.path == first })
            #expect(home.hardwareAddress == "00:25:9C:CF:1C:AC")
            #expect(home.ssid == Array("Home".utf8))
            #expect(home.strength == 82)
            #expect(home.frequency == 2437)
            let age = NetworkManagerMock.bootTime - Int64(home.lastSeen)
            #expect((3...5).contains(age))
            #expect(snapshot.accessPoints.map { String(decoding: $0.ssid, as: UTF8.self) }.sorted() == ["Café_nomap", "Home"])
            manager.stop()
        }
    }

    @Test("Active connections: a VPN plugin's and a WireGuard connection are VPNs, Wi-Fi is not")
    func vpnView() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let manager = try await NetworkManagerMock.start(on: bus)
            let wlan0 = try await manager.addWiFiDevice()
            try await manager.addAccessPoint(to: wlan0, name: "home", ssid: "Home", bssid: "00:25:9C:CF:1C:AC")
            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
            #expect(try await client.activeConnections().connections.isEmpty)

            try await manager.activateConnection(name: "Home", type: "802-11-wireless", devices: [wlan0])
            let office = try await manager.activateConnection(name: "Office VPN", type: "vpn")
            try await manager.activateConnection(name: "wg-home", type: "wireguard")
            let snapshot = try await client.activeConnections()
            #expect(snapshot.unreadable.isEmpty)
            let byName = Dictionary(uniqueKeysWithValues: snapshot.connections.map { ($0.name, $0) })
            #expect(byName["Home"]?.isVPN == false)
            #expect(byName["Office VPN"]?.isVPN == true)
            #expect(byName["Office VPN"]?.vpnFlag == true)
            #expect(byName["wg-home"]?.isVPN == true)
            #expect(byName["wg-home"]?.vpnFlag == false)
            #expect(snapshot.defaultRouteVPNs.map(\.name).sorted() == ["Office VPN", "wg-home"])

            try await manager.deactivate(office, device: wlan0)
            #expect(try await client.activeConnections().defaultRouteVPNs.map(\.name) == ["wg-home"])
            manager.stop()
        }
    }

    @Test("Absent NetworkManager: every read fails at once as absent, and the bus is never asked to start it")
    func absent() async throws {
        // The bus could start NetworkManager on demand, with a command that would leave a mark if it ran.
        try await withTemporaryDirectory("nm-absent") { directory in
            let mark = directory.appendingPathComponent("started")
            try await withPrivateBus(
                activatable: ["org.freedesktop.NetworkManager": "/usr/bin/touch \(mark.path)"], kind: .system
            ) { bus in
                let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
                await #expect(throws: NetworkManagerError.absent) { try await client.accessPoints() }
                await #expect(throws: NetworkManagerError.absent) { try await client.activeConnections() }
                #expect(!FileManager.default.fileExists(atPath: mark.path))
                #expect(NetworkManagerError.absent.description == "NetworkManager is not running on the system bus.")
            }
        }
    }

    @Test("Signals become batches of what to read again: access points, connections, NetworkManager restarting")
    func followsChanges() async throws {
        try await withPrivateBus(kind: .system) { bus in
            var manager = try await NetworkManagerMock.start(on: bus)
            let wlan0 = try await manager.addWiFiDevice()
            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
            let (heard, hear) = AsyncStream<NetworkManagerChanges>.makeStream()
            let (ready, isReady) = AsyncStream<Void>.makeStream()
            let following = Task {
                try await client.followChanges(ready: { isReady.yield() }, handle: { hear.yield($0) })
            }
            var readiness = ready.makeAsyncIterator()
            await readiness.next()
            var changes = heard.makeAsyncIterator()

            let ap = try await manager.addAccessPoint(to: wlan0, name: "a1", ssid: "One", bssid: "00:25:9C:00:00:01")
            #expect(try await next(&changes, containing: .accessPoints))
            try await manager.removeAccessPoint(ap, from: wlan0)
            #expect(try await next(&changes, containing: .accessPoints))
            try await manager.activateConnection(name: "Office VPN", type: "vpn")
            #expect(try await next(&changes, containing: .connections))

            // NetworkManager restarts: gone, then back under a new unique name.
            manager.stop()
            #expect(try await next(&changes, containing: .owner))
            manager = try await NetworkManagerMock.start(on: bus)
            #expect(try await next(&changes, containing: .owner))
            following.cancel()
            try await following.value
            manager.stop()
        }
    }

    @Test("A burst of 300 access points reaches a slow follower as a few batches, never a queue of 300")
    func burstIsGathered() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let manager = try await NetworkManagerMock.start(on: bus)
            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
            let batches = Counter()
            let (ready, isReady) = AsyncStream<Void>.makeStream()
            let following = Task {
                try await client.followChanges(ready: { isReady.yield() }) { _ in
                    batches.add()
                    // A follower busy reading NetworkManager after each batch.
                    try? await Task.sleep(for: .milliseconds(300))
                }
            }
            var readiness = ready.makeAsyncIterator()
            await readiness.next()
            for number in 0..<300 {
                try await manager.mock.emitSignal(
                    interface: "org.freedesktop.NetworkManager.Device.Wireless", member: "AccessPointAdded",
                    signature: "o", arguments: [.objectPath("/org/freedesktop/NetworkManager/AccessPoint/b\(number)")])
            }
            following.cancel()
            try await following.value
            #expect(batches.value >= 1)
            #expect(batches.value < 50)
            manager.stop()
        }
    }

    /// The next batch, which must hold `expected` (batches may hold more, never less).
    private func next(_ changes: inout AsyncStream<NetworkManagerChanges>.Iterator, containing expected: NetworkManagerChanges)
        async throws -> Bool
    {
        guard let batch = await changes.next() else { return false }
        return batch.contains(expected)
    }
}

/// A count shared with a follower's closure.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
