import DBus
import Foundation
import NetworkManager
import TestSupport
import Testing

/// A peer that owns NetworkManager's name and describes its objects wrongly: what it gets right is read, what it
/// gets wrong is left out with a sentence saying why, and nothing it sends stops the client.
@Suite("NetworkManager sending junk", .timeLimit(.minutes(1)))
struct JunkTests {
    static let devicePath = "/org/freedesktop/NetworkManager/Devices/1"

    @Test("Access points of the wrong shape are left out with their reasons; the good one is read")
    func junkAccessPoints() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await DBusMock.start(
                on: bus, name: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                interface: "org.freedesktop.NetworkManager")
            let points = ["good", "string-strength", "long-ssid", "gone", "percent-200", "no-address"].map {
                "/org/freedesktop/NetworkManager/AccessPoint/\($0.replacingOccurrences(of: "-", with: "_"))"
            }
            try await peer.addMethod(
                "GetDevices", inSignature: "", outSignature: "ao", code: "ret = ['\(Self.devicePath)']")
            try await addObject(
                peer, Self.devicePath, "org.freedesktop.NetworkManager.Device",
                ["DeviceType": .uint32(2), "Interface": .string("wlan0")],
                methods: [])
            try await peer.mockCall(
                "AddMethod",
                [
                    .string("org.freedesktop.NetworkManager.Device.Wireless"), .string("GetAllAccessPoints"),
                    .string(""), .string("ao"),
                    .string("ret = [\(points.map { "'\($0)'" }.joined(separator: ", "))]"),
                ], path: Self.devicePath)
            let good: [String: DBusValue] = [
                "HwAddress": .string("00:25:9C:CF:1C:AC"), "Ssid": .array(.byte, Array("Home".utf8).map { .byte($0) }),
                "Strength": .byte(70), "Frequency": .uint32(2412), "LastSeen": .int32(100),
            ]
            try await addObject(peer, points[0], "org.freedesktop.NetworkManager.AccessPoint", good)
            var stringStrength = good
            stringStrength["Strength"] = .string("strong")
            try await addObject(peer, points[1], "org.freedesktop.NetworkManager.AccessPoint", stringStrength)
            var longSSID = good
            longSSID["Ssid"] = .array(.byte, Array(repeating: .byte(65), count: 40))
            try await addObject(peer, points[2], "org.freedesktop.NetworkManager.AccessPoint", longSSID)
            // points[3] has no object: gone between the list and the question, which is no problem.
            var overFull = good
            overFull["Strength"] = .byte(200)
            try await addObject(peer, points[4], "org.freedesktop.NetworkManager.AccessPoint", overFull)
            var noAddress = good
            noAddress["HwAddress"] = nil
            try await addObject(peer, points[5], "org.freedesktop.NetworkManager.AccessPoint", noAddress)

            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
            let snapshot = try await client.accessPoints()
            #expect(snapshot.accessPoints.map(\.path) == [points[0]])
            #expect(
                snapshot.unreadable == [
                    "the access point \(points[1]) has no Strength of type y",
                    "the access point \(points[2]) has an SSID of 40 bytes (at most 32)",
                    "the access point \(points[4]) has a Strength of 200 % (at most 100)",
                    "the access point \(points[5]) has no HwAddress of type s",
                ])
            peer.stop()
        }
    }

    @Test("Malformed signals change nothing and stop nothing; a later good one is still heard")
    func junkSignals() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await DBusMock.start(
                on: bus, name: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                interface: "org.freedesktop.NetworkManager")
            let client = NetworkManagerClient(bus: try await DBusConnection.connect(address: bus.address))
            let (heard, hear) = AsyncStream<NetworkManagerChanges>.makeStream()
            let (ready, isReady) = AsyncStream<Void>.makeStream()
            let following = Task {
                try await client.followChanges(ready: { isReady.yield() }, handle: { hear.yield($0) })
            }
            var readiness = ready.makeAsyncIterator()
            await readiness.next()
            // PropertiesChanged of the manager with a body of another shape, and one that changes nothing followed.
            try await peer.emitSignal(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", signature: "su",
                arguments: [.string("org.freedesktop.NetworkManager"), .uint32(7)])
            try await peer.emitSignal(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", signature: "sa{sv}as",
                arguments: [
                    .string("org.freedesktop.NetworkManager"), .variantDictionary(["Connectivity": .uint32(4)]),
                    .strings([]),
                ])
            try await peer.emitSignal(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", signature: "sa{sv}as",
                arguments: [
                    .string("org.freedesktop.NetworkManager"),
                    .variantDictionary(["ActiveConnections": .array(.objectPath, [])]), .strings([]),
                ])
            var changes = heard.makeAsyncIterator()
            #expect(await changes.next() == .connections)
            following.cancel()
            try await following.value
            peer.stop()
        }
    }

    private func addObject(
        _ peer: DBusMock, _ path: String, _ interface: String, _ properties: [String: DBusValue],
        methods: [(String, String, String, String)] = []
    ) async throws {
        let props = DBusValue.dictionary(
            key: .string, value: .variant,
            properties.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value)) })
        let methodList = DBusValue.array(
            .structure([.string, .string, .string, .string]),
            methods.map { .structure([.string($0.0), .string($0.1), .string($0.2), .string($0.3)]) })
        try await peer.mockCall("AddObject", [.string(path), .string(interface), props, methodList])
    }
}
