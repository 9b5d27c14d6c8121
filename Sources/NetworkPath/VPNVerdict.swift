/// Whether traffic to the internet leaves through a VPN, so that an IP geolocation service would see the VPN's exit
/// instead of where the machine is, and why. Pure: it judges what the reader and NetworkManager said.
///
/// A VPN is one of: an egress interface that is a tunnel (WireGuard, TUN, TAP, PPP, an IP tunnel), whichever family
/// (a request may go out over either); or a VPN connection NetworkManager reports active and carrying a default route
/// (its IPsec and other plugins' VPNs need no interface of their own).
public struct VPNVerdict: Sendable, Hashable {
    public var throughVPN: Bool
    /// One sentence for the report and the log: `the default route goes through wg0 (WireGuard)`.
    public var reason: String

    public init(throughVPN: Bool, reason: String) {
        self.throughVPN = throughVPN
        self.reason = reason
    }

    /// - Parameters:
    ///   - path: what ``NetworkPathReader`` read.
    ///   - networkManagerVPNs: the names of NetworkManager's activated VPN connections that carry a default route
    ///     (empty where NetworkManager does not run).
    public static func judge(path: NetworkPathReport, networkManagerVPNs: [String]) -> VPNVerdict {
        if let tunnel = path.tunnel {
            return VPNVerdict(
                throughVPN: true,
                reason: "the \(tunnel.family.rawValue) default route goes through \(tunnel.interface) (\(tunnel.kind.name))")
        }
        if let name = networkManagerVPNs.first {
            return VPNVerdict(
                throughVPN: true, reason: "NetworkManager's VPN connection \u{201C}\(name)\u{201D} carries the default route")
        }
        if path.egresses.isEmpty {
            return VPNVerdict(throughVPN: false, reason: "there is no default route")
        }
        let interfaces = path.egresses.map(\.interface).reduce(into: [String]()) { names, name in
            if !names.contains(name) { names.append(name) }
        }
        return VPNVerdict(
            throughVPN: false, reason: "the default route goes through \(interfaces.joined(separator: " and ")), no VPN")
    }
}
