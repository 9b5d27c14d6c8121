import DBus

/// Reads what NetworkManager knows, over the system bus, with no privileges: its Wi-Fi devices, the access points
/// their scans found, and its active connections (the VPN among them). Reading needs no permission and starts no
/// scan of its own: NetworkManager scans anyway, and ``followChanges(ready:handle:)`` says when it has.
///
/// Everything NetworkManager says is bounded and checked: at most ``maxDevices`` devices, ``maxAccessPoints``
/// access points a device and ``maxConnections`` active connections are read; a property of the wrong type or an
/// SSID over 32 bytes leaves its object out, and the reason is in the snapshot's ``AccessPointSnapshot/unreadable``,
/// for the caller to log. NetworkManager is never started for a question (no D-Bus activation): on a machine that
/// does not run it, every read fails at once with ``NetworkManagerError/absent``.
public struct NetworkManagerClient: Sendable {
    public static let maxDevices = 16
    public static let maxAccessPoints = 256
    public static let maxConnections = 32
    /// How long one question may take: NetworkManager answers in milliseconds, and a stuck one must not hold the
    /// caller for sd-bus's 25 s default.
    public static let callTimeout: Duration = .seconds(5)

    public let bus: DBusConnection

    public init(bus: DBusConnection) {
        self.bus = bus
    }

    // MARK: Devices and access points

    /// The access points of every Wi-Fi device, read afresh.
    public func accessPoints() async throws(NetworkManagerError) -> AccessPointSnapshot {
        var snapshot = AccessPointSnapshot()
        for device in try await wirelessDevices(problems: &snapshot.unreadable) {
            snapshot.devices.append(device)
            try await readAccessPoints(of: device, into: &snapshot)
        }
        return snapshot
    }

    /// The Wi-Fi devices NetworkManager manages.
    public func wirelessDevices() async throws(NetworkManagerError) -> [WirelessDevice] {
        var problems: [String] = []
        return try await wirelessDevices(problems: &problems)
    }

    private func wirelessDevices(problems: inout [String]) async throws(NetworkManagerError) -> [WirelessDevice] {
        let reply = try await call(NetworkManagerNames.managerPath, NetworkManagerNames.manager, "GetDevices")
        let paths = try objectPaths(reply, what: "GetDevices")
        if paths.count > Self.maxDevices {
            problems.append("NetworkManager listed \(paths.count) devices; the first \(Self.maxDevices) were read")
        }
        var devices: [WirelessDevice] = []
        for path in paths.prefix(Self.maxDevices) {
            guard let properties = try await propertiesIfPresent(path, NetworkManagerNames.device) else { continue }
            guard let type = properties["DeviceType"]?.uint32, let interface = properties["Interface"]?.string else {
                problems.append("the device \(path) has no readable DeviceType and Interface")
                continue
            }
            if type == NetworkManagerNames.wifiDeviceType {
                devices.append(WirelessDevice(path: path, interface: String(interface.prefix(64))))
            }
        }
        return devices
    }

    private func readAccessPoints(of device: WirelessDevice, into snapshot: inout AccessPointSnapshot)
        async throws(NetworkManagerError)
    {
        let reply: DBusMessage
        do throws(DBusError) {
            reply = try await bus.call(
                DBusMethodCall(
                    destination: NetworkManagerNames.bus, path: device.path, interface: NetworkManagerNames.wireless,
                    member: "GetAllAccessPoints", allowsAutoStart: false),
                timeout: Self.callTimeout)
        } catch {
            // The device went away between the two questions (a USB dongle pulled out): nothing to read.
            if Self.isGone(error) { return }
            throw NetworkManagerError(error)
        }
        let paths = try objectPaths(reply, what: "GetAllAccessPoints of \(device.interface)")
        if paths.count > Self.maxAccessPoints {
            snapshot.unreadable.append(
                "\(device.interface) listed \(paths.count) access points; the first \(Self.maxAccessPoints) were read")
        }
        for path in paths.prefix(Self.maxAccessPoints) {
            guard let properties = try await propertiesIfPresent(path, NetworkManagerNames.accessPoint) else { continue }
            switch Self.accessPoint(path, properties) {
            case .success(let point): snapshot.accessPoints.append(point)
            case .failure(let problem): snapshot.unreadable.append(problem.text)
            }
        }
    }

    /// An access point from its properties, or why it cannot be read.
    static func accessPoint(_ path: String, _ properties: [String: DBusValue]) -> Result<AccessPoint, Unreadable> {
        func missing(_ name: String, _ type: String) -> Result<AccessPoint, Unreadable> {
            .failure(Unreadable(text: "the access point \(path) has no \(name) of type \(type)"))
        }
        guard let address = properties["HwAddress"]?.string else { return missing("HwAddress", "s") }
        guard address.utf8.count <= 64 else {
            return .failure(Unreadable(text: "the access point \(path) has a HwAddress of \(address.utf8.count) bytes"))
        }
        guard case .array(.byte, let ssidValues)? = properties["Ssid"] else { return missing("Ssid", "ay") }
        guard ssidValues.count <= 32 else {
            return .failure(
                Unreadable(text: "the access point \(path) has an SSID of \(ssidValues.count) bytes (at most 32)"))
        }
        guard let strength = properties["Strength"]?.byte else { return missing("Strength", "y") }
        guard strength <= 100 else {
            return .failure(Unreadable(text: "the access point \(path) has a Strength of \(strength) % (at most 100)"))
        }
        guard let frequency = properties["Frequency"]?.uint32 else { return missing("Frequency", "u") }
        guard let lastSeen = properties["LastSeen"]?.int32 else { return missing("LastSeen", "i") }
        return .success(
            AccessPoint(
                path: path, hardwareAddress: address, ssid: ssidValues.compactMap(\.byte), strength: strength,
                frequency: frequency, lastSeen: lastSeen))
    }

    // MARK: Connections

    /// The active connections, each read afresh.
    public func activeConnections() async throws(NetworkManagerError) -> ConnectionSnapshot {
        var snapshot = ConnectionSnapshot()
        let value: DBusValue
        do throws(DBusError) {
            value = try await bus.property(
                "ActiveConnections", destination: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
                interface: NetworkManagerNames.manager, allowsAutoStart: false, timeout: Self.callTimeout)
        } catch {
            throw NetworkManagerError(error)
        }
        guard case .array(.objectPath, let elements) = value else {
            snapshot.unreadable.append("NetworkManager's ActiveConnections is not a list of object paths")
            return snapshot
        }
        let paths = elements.compactMap(\.string)
        if paths.count > Self.maxConnections {
            snapshot.unreadable.append(
                "NetworkManager listed \(paths.count) active connections; the first \(Self.maxConnections) were read")
        }
        for path in paths.prefix(Self.maxConnections) {
            guard let properties = try await propertiesIfPresent(path, NetworkManagerNames.activeConnection) else {
                continue
            }
            guard let name = properties["Id"]?.string, let type = properties["Type"]?.string,
                let state = properties["State"]?.uint32
            else {
                snapshot.unreadable.append("the active connection \(path) has no readable Id, Type and State")
                continue
            }
            let carriesDefault = properties["Default"]?.boolean == true || properties["Default6"]?.boolean == true
            snapshot.connections.append(
                ActiveConnection(
                    path: path, name: String(name.prefix(256)), type: String(type.prefix(64)),
                    vpnFlag: properties["Vpn"]?.boolean == true, carriesDefaultRoute: carriesDefault, state: state))
        }
        return snapshot
    }

    // MARK: Reading

    private func call(_ path: String, _ interface: String, _ member: String) async throws(NetworkManagerError)
        -> DBusMessage
    {
        do throws(DBusError) {
            return try await bus.call(
                DBusMethodCall(
                    destination: NetworkManagerNames.bus, path: path, interface: interface, member: member,
                    allowsAutoStart: false),
                timeout: Self.callTimeout)
        } catch {
            throw NetworkManagerError(error)
        }
    }

    /// An object's properties; nil when the object went away before the question reached it (an access point
    /// dropped from the scan list meanwhile), which is no problem.
    private func propertiesIfPresent(_ path: String, _ interface: String) async throws(NetworkManagerError)
        -> [String: DBusValue]?
    {
        do throws(DBusError) {
            return try await bus.allProperties(
                destination: NetworkManagerNames.bus, path: path, interface: interface, allowsAutoStart: false,
                timeout: Self.callTimeout)
        } catch {
            if Self.isGone(error) { return nil }
            throw NetworkManagerError(error)
        }
    }

    private func objectPaths(_ reply: DBusMessage, what: String) throws(NetworkManagerError) -> [String] {
        guard reply.signature == "ao", case .array(_, let elements)? = reply.body.first else {
            throw .bus(.unexpectedReply("\(what) returned \"\(reply.signature)\", expected \"ao\""))
        }
        return elements.compactMap(\.string)
    }

    /// The object a question was about no longer exists (NetworkManager answers UnknownObject or UnknownMethod).
    private static func isGone(_ error: DBusError) -> Bool {
        switch error.remoteName {
        case DBusErrorName.unknownObject?, DBusErrorName.unknownMethod?, DBusErrorName.unknownInterface?: true
        default: false
        }
    }
}

/// What one reading of the access points found.
public struct AccessPointSnapshot: Sendable, Hashable {
    public var devices: [WirelessDevice] = []
    public var accessPoints: [AccessPoint] = []
    /// A sentence for each object that was left out (wrong types, out of bounds), for the caller to log.
    public var unreadable: [String] = []

    public init(devices: [WirelessDevice] = [], accessPoints: [AccessPoint] = [], unreadable: [String] = []) {
        self.devices = devices
        self.accessPoints = accessPoints
        self.unreadable = unreadable
    }
}

/// What one reading of the active connections found.
public struct ConnectionSnapshot: Sendable, Hashable {
    public var connections: [ActiveConnection] = []
    public var unreadable: [String] = []

    public init(connections: [ActiveConnection] = [], unreadable: [String] = []) {
        self.connections = connections
        self.unreadable = unreadable
    }

    /// The activated VPNs that carry a default route: traffic to the internet leaves through them.
    public var defaultRouteVPNs: [ActiveConnection] {
        connections.filter { $0.isVPN && $0.isActivated && $0.carriesDefaultRoute }
    }
}

/// Why one object NetworkManager described was left out.
struct Unreadable: Error, Hashable {
    var text: String
}
