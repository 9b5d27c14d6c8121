import Foundation

/// What kind of link a network interface is, as far as telling a tunnel from a real network goes: what sysfs says of
/// it under `/sys/class/net/NAME/`.
public enum InterfaceKind: String, Sendable, Hashable, Codable {
    /// A WireGuard interface (`uevent`: `DEVTYPE=wireguard`).
    case wireguard
    /// A TUN device (OpenVPN, OpenConnect, most VPN clients): `tun_flags` without `IFF_TAP`.
    case tun
    /// A TAP device (OpenVPN's bridged mode): `tun_flags` with `IFF_TAP`.
    case tap
    /// A PPP link (`type` 512, `ARPHRD_PPP`): PPTP and L2TP VPNs, and dial-up.
    case ppp
    /// An IP-in-IP, GRE or SIT tunnel (`type` 768, 769, 776, 778, 823).
    case ipTunnel = "ip_tunnel"
    /// Anything else: Ethernet, Wi-Fi, a bridge, a mobile modem.
    case other

    /// Whether traffic through it leaves elsewhere than here: what an IP geolocation service sees is the far end.
    public var isTunnel: Bool { self != .other }

    /// How people call it, for the report's reason ("WireGuard").
    public var name: String {
        switch self {
        case .wireguard: "WireGuard"
        case .tun: "a TUN tunnel"
        case .tap: "a TAP tunnel"
        case .ppp: "PPP"
        case .ipTunnel: "an IP tunnel"
        case .other: "no tunnel"
        }
    }

    /// `IFF_TAP` in `tun_flags`.
    static let tapFlag = 0x0002
    /// `ARPHRD_PPP`.
    static let pppType = 512
    /// `ARPHRD_TUNNEL`, `ARPHRD_TUNNEL6`, `ARPHRD_SIT`, `ARPHRD_IPGRE`, `ARPHRD_IP6GRE`.
    static let ipTunnelTypes: Set<Int> = [768, 769, 776, 778, 823]

    /// The kind from the texts of the interface's sysfs files (nil for a file that is not there).
    ///
    /// - Parameters:
    ///   - type: `type`, the link's `ARPHRD_*` number.
    ///   - tunFlags: `tun_flags` (`0x1001`), present only on TUN and TAP devices.
    ///   - uevent: `uevent` (`DEVTYPE=wireguard` among its lines).
    public init(type: String?, tunFlags: String?, uevent: String?) {
        let devtype = uevent?.split(separator: "\n").first { $0.hasPrefix("DEVTYPE=") }?.dropFirst("DEVTYPE=".count)
        let typeNumber = type.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if devtype.map({ String($0).trimmingCharacters(in: .whitespacesAndNewlines) }) == "wireguard" {
            self = .wireguard
        } else if typeNumber == Self.pppType {
            // A PPP device is PPP whatever carries it (pppd over a TUN device in tests, over a serial line in life).
            self = .ppp
        } else if let tunFlags {
            let text = tunFlags.trimmingCharacters(in: .whitespacesAndNewlines)
            let flags = Int(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) ?? 0
            self = flags & Self.tapFlag != 0 ? .tap : .tun
        } else if let typeNumber, Self.ipTunnelTypes.contains(typeNumber) {
            self = .ipTunnel
        } else {
            self = .other
        }
    }
}
