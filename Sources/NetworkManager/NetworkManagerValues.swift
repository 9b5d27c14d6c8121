import DBus

/// The names NetworkManager's D-Bus API uses (its documentation: networkmanager.dev/docs/api/latest/).
public enum NetworkManagerNames {
    public static let bus = "org.freedesktop.NetworkManager"
    public static let managerPath = "/org/freedesktop/NetworkManager"
    public static let manager = "org.freedesktop.NetworkManager"
    public static let device = "org.freedesktop.NetworkManager.Device"
    public static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    public static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"
    public static let activeConnection = "org.freedesktop.NetworkManager.Connection.Active"

    /// `NM_DEVICE_TYPE_WIFI`, a device's `DeviceType`.
    public static let wifiDeviceType: UInt32 = 2
    /// `NM_ACTIVE_CONNECTION_STATE_ACTIVATED`.
    public static let activatedState: UInt32 = 2
}

/// A Wi-Fi device NetworkManager manages.
public struct WirelessDevice: Sendable, Hashable {
    /// Its object path (`/org/freedesktop/NetworkManager/Devices/3`).
    public var path: String
    /// The kernel's name for it (`wlan0`, `wlp3s0`).
    public var interface: String

    public init(path: String, interface: String) {
        self.path = path
        self.interface = interface
    }
}

/// An access point NetworkManager last saw in a scan, as it describes it: read, not judged (what may be sent to a
/// geolocation service is decided elsewhere).
public struct AccessPoint: Sendable, Hashable {
    public var path: String
    /// `HwAddress`: the BSSID as NetworkManager writes it (`01:23:45:67:89:AB`).
    public var hardwareAddress: String
    /// `Ssid`: the network's name, bytes as broadcast (empty for a hidden network); at most 32.
    public var ssid: [UInt8]
    /// `Strength`: signal quality in percent, 0 to 100.
    public var strength: UInt8
    /// `Frequency`: the channel's frequency in MHz.
    public var frequency: UInt32
    /// `LastSeen`: when a scan last found it, in seconds of CLOCK_BOOTTIME; -1 when no scan ever did.
    public var lastSeen: Int32

    public init(
        path: String, hardwareAddress: String, ssid: [UInt8], strength: UInt8, frequency: UInt32, lastSeen: Int32
    ) {
        self.path = path
        self.hardwareAddress = hardwareAddress
        self.ssid = ssid
        self.strength = strength
        self.frequency = frequency
        self.lastSeen = lastSeen
    }
}

/// One of NetworkManager's active connections, as far as deciding whether traffic leaves through a VPN goes.
public struct ActiveConnection: Sendable, Hashable {
    public var path: String
    /// `Id`: the connection's name, as the user knows it ("Work VPN").
    public var name: String
    /// `Type`: the connection's type (`802-11-wireless`, `vpn`, `wireguard`, …).
    public var type: String
    /// `Vpn`: NetworkManager's own flag for connections of its VPN plugins.
    public var vpnFlag: Bool
    /// `Default` or `Default6`: the connection carries the default route of IPv4 or IPv6.
    public var carriesDefaultRoute: Bool
    /// `State`: ``NetworkManagerNames/activatedState`` once it is up.
    public var state: UInt32

    public init(path: String, name: String, type: String, vpnFlag: Bool, carriesDefaultRoute: Bool, state: UInt32) {
        self.path = path
        self.name = name
        self.type = type
        self.vpnFlag = vpnFlag
        self.carriesDefaultRoute = carriesDefaultRoute
        self.state = state
    }

    /// A VPN in NetworkManager's view: one of its VPN plugins' connections (`Vpn`, type `vpn`) or a WireGuard
    /// connection (type `wireguard`, which NetworkManager runs as a device of its own, so `Vpn` is false).
    public var isVPN: Bool { vpnFlag || type == "vpn" || type == "wireguard" }

    /// Up and running, not activating or going down.
    public var isActivated: Bool { state == NetworkManagerNames.activatedState }
}

/// Why NetworkManager could not be asked.
public enum NetworkManagerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody owns NetworkManager's name on the bus: it is not installed, not running, or restarting.
    case absent
    /// The bus failed the request (the connection is gone, NetworkManager timed out or answered with an error).
    case bus(DBusError)

    public var description: String {
        switch self {
        case .absent: "NetworkManager is not running on the system bus."
        case .bus(let error): "NetworkManager could not be asked: \(error)"
        }
    }

    /// Absent when the bus says nobody has the name; the error as it is otherwise.
    init(_ error: DBusError) {
        switch error.remoteName {
        case DBusErrorName.serviceUnknown?, DBusErrorName.nameHasNoOwner?: self = .absent
        default: self = .bus(error)
        }
    }
}
