import DBus
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// NetworkManager played by python-dbusmock's `networkmanager` template on a private system bus, with the few things
/// tests of a Wi-Fi locator do to it: Wi-Fi devices, access points coming and going (seen "now" by CLOCK_BOOTTIME,
/// as NetworkManager's `LastSeen` counts), and active connections, a VPN among them.
public final class NetworkManagerMock: Sendable {
    public let mock: DBusMock

    public static let busName = "org.freedesktop.NetworkManager"
    static let mainPath = "/org/freedesktop"
    static let settingsPath = "/org/freedesktop/NetworkManager/Settings"
    static let accessPointInterface = "org.freedesktop.NetworkManager.AccessPoint"

    private init(mock: DBusMock) {
        self.mock = mock
    }

    /// Starts the template on `bus` (a ``PrivateDBusDaemon`` playing the system bus) and returns once it owns
    /// NetworkManager's name.
    public static func start(on bus: PrivateDBusDaemon) async throws -> NetworkManagerMock {
        NetworkManagerMock(
            mock: try await DBusMock.start(on: bus, template: "networkmanager", name: busName, path: mainPath))
    }

    public func stop() {
        mock.stop()
    }

    /// Now by CLOCK_BOOTTIME in whole seconds, the clock of an access point's `LastSeen`.
    public static var bootTime: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec)
    }

    /// Adds a Wi-Fi device (`wlan0`) in the activated state; returns its path.
    @discardableResult
    public func addWiFiDevice(name: String = "wlan0", interface: String = "wlan0") async throws -> String {
        let reply = try await mock.mockCall("AddWiFiDevice", [.string(name), .string(interface), .int32(100)])
        return try reply.body(signature: "s")[0].string ?? ""
    }

    /// Adds an access point to `device`, seen `ageSeconds` ago; returns its path. `name` names its object.
    @discardableResult
    public func addAccessPoint(
        to device: String, name: String, ssid: String, bssid: String, frequency: UInt32 = 2412, strength: UInt8 = 60,
        ageSeconds: Int64 = 0
    ) async throws -> String {
        let reply = try await mock.mockCall(
            "AddAccessPoint",
            [
                .string(device), .string(name), .string(ssid), .string(bssid), .uint32(2), .uint32(frequency),
                .uint32(54_000), .byte(strength), .uint32(0x188),
            ])
        let path = try reply.body(signature: "s")[0].string ?? ""
        try await setLastSeen(of: path, secondsAgo: ageSeconds)
        return path
    }

    /// Sets an access point's `LastSeen` to `secondsAgo` before now (the template starts every one at 1 s after
    /// boot, which no scan of a running machine says).
    public func setLastSeen(of accessPoint: String, secondsAgo: Int64) async throws {
        try await mock.updateProperties(
            of: accessPoint, interface: Self.accessPointInterface,
            ["LastSeen": .int32(Int32(clamping: Self.bootTime - secondsAgo))])
    }

    /// Removes an access point, as a scan that no longer finds it does (`AccessPointRemoved`).
    public func removeAccessPoint(_ accessPoint: String, from device: String) async throws {
        try await mock.mockCall("RemoveAccessPoint", [.string(device), .string(accessPoint)])
    }

    /// Adds a connection of `type` (`vpn`, `wireguard`, `802-11-wireless`) to the settings and activates it
    /// (carrying the default route, as the template's active connections do); returns the active connection's path.
    @discardableResult
    public func activateConnection(name: String, type: String, devices: [String] = []) async throws -> String {
        let settings = DBusValue.dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant),
            [
                DBusDictionaryEntry(
                    key: .string("connection"),
                    value: .variantDictionary(["id": .string(name), "type": .string(type)]))
            ])
        let added = try await mock.control.call(
            DBusMethodCall(
                destination: Self.busName, path: Self.settingsPath,
                interface: "org.freedesktop.NetworkManager.Settings", member: "AddConnection", arguments: [settings]),
            timeout: .seconds(10))
        let connection = try added.body(signature: "o")[0].string ?? ""
        let objectName = "\(name.filter { $0.isLetter || $0.isNumber })\(UInt32.random(in: 1...999_999))"
        let reply = try await mock.mockCall(
            "AddActiveConnection",
            [.strings(devices), .string(connection), .string("/"), .string(objectName), .uint32(2)])
        return try reply.body(signature: "s")[0].string ?? ""
    }

    /// Takes an active connection down (`device`: one of the devices the template then marks disconnected).
    public func deactivate(_ activeConnection: String, device: String) async throws {
        try await mock.mockCall("RemoveActiveConnection", [.string(device), .string(activeConnection)])
    }
}
