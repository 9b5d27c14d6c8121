import Foundation
import NetworkPath
import TestSupport
import Testing

/// The reader and the kernel probe on interfaces made for real in a network namespace of the test's own: a veth
/// uplink, TUN with OpenVPN's routes, a WireGuard-style policy-routed full tunnel (on a TUN device: this kernel has no
/// WireGuard module), TAP, and a PPP link (a TUN device given PPP's link type, as pppd's are). Needs root and
/// iproute2; skipped with the reason otherwise.
@Suite(
    "Network path on real interfaces in a namespace", .serialized,
    .enabled(if: NetworkNamespace.unavailableReason == nil, "network namespaces: \(NetworkNamespace.unavailableReason ?? "")"))
struct RealInterfaceTests {
    /// A namespace with an uplink, eth0 (a veth), with IPv4 and IPv6 default routes through it.
    func namespaceWithUplink() throws -> NetworkNamespace {
        let namespace = try NetworkNamespace()
        try namespace.run(
            """
            ip link set lo up
            ip link add eth0 type veth peer name peer0
            ip addr add 198.51.100.2/24 dev eth0
            ip link set eth0 up
            ip link set peer0 up
            ip route add default via 198.51.100.1 dev eth0 metric 600
            ip -6 addr add 2001:db8:100::2/64 dev eth0 nodad
            ip -6 route add default via 2001:db8:100::1 dev eth0 metric 600
            """)
        return namespace
    }

    func read(_ namespace: NetworkNamespace, asksKernel: Bool = true) throws -> NetworkPathReport {
        let reader = NetworkPathReader(
            procNet: namespace.procNet, sysClassNet: namespace.sysClassNet, asksKernel: asksKernel)
        return try namespace.inside { reader.read() }
    }

    @Test("The uplink alone: both families leave through eth0, found by the kernel; no VPN")
    func uplink() throws {
        let namespace = try namespaceWithUplink()
        defer { namespace.destroy() }
        let report = try read(namespace)
        #expect(
            report.egresses == [
                Egress(family: .ipv4, interface: "eth0", kind: .other, foundBy: .kernel),
                Egress(family: .ipv6, interface: "eth0", kind: .other, foundBy: .kernel),
            ])
        #expect(!VPNVerdict.judge(path: report, networkManagerVPNs: []).throughVPN)
        // The tables say the same.
        #expect(try read(namespace, asksKernel: false).egresses.map(\.interface) == ["eth0", "eth0"])
    }

    @Test("OpenVPN's def1 routes through tun0: a VPN, by the kernel and by the table; gone again when it goes down")
    func openVPN() throws {
        let namespace = try namespaceWithUplink()
        defer { namespace.destroy() }
        try namespace.run(
            """
            ip tuntap add dev tun0 mode tun
            ip addr add 10.8.0.2/24 dev tun0
            ip link set tun0 up
            ip route add 0.0.0.0/1 dev tun0
            ip route add 128.0.0.0/1 dev tun0
            """)
        for asksKernel in [true, false] {
            let report = try read(namespace, asksKernel: asksKernel)
            #expect(report.tunnel == Egress(family: .ipv4, interface: "tun0", kind: .tun, foundBy: asksKernel ? .kernel : .routeTable))
            #expect(
                VPNVerdict.judge(path: report, networkManagerVPNs: [])
                    == VPNVerdict(throughVPN: true, reason: "the IPv4 default route goes through tun0 (a TUN tunnel)"))
        }
        try namespace.run("ip route del 0.0.0.0/1 dev tun0; ip route del 128.0.0.0/1 dev tun0")
        #expect(!VPNVerdict.judge(path: try read(namespace), networkManagerVPNs: []).throughVPN)
    }

    @Test("A policy-routed full tunnel (wg-quick's rules) is invisible in /proc/net/route; the kernel's answer sees it")
    func policyRouted() throws {
        let namespace = try namespaceWithUplink()
        defer { namespace.destroy() }
        try namespace.run(
            """
            ip tuntap add dev tun1 mode tun
            ip addr add 10.2.0.2/32 dev tun1
            ip link set tun1 up
            ip route add default dev tun1 table 51820
            ip rule add not fwmark 51820 table 51820
            ip rule add table main suppress_prefixlength 0
            """)
        let byTable = try read(namespace, asksKernel: false)
        #expect(byTable.egresses.first?.interface == "eth0")
        #expect(byTable.tunnel == nil)
        let byKernel = try read(namespace)
        #expect(byKernel.tunnel == Egress(family: .ipv4, interface: "tun1", kind: .tun, foundBy: .kernel))
        #expect(VPNVerdict.judge(path: byKernel, networkManagerVPNs: []).throughVPN)
    }

    @Test("A TAP device and a PPP link carrying the default route are VPNs of their kinds")
    func tapAndPPP() throws {
        let namespace = try namespaceWithUplink()
        defer { namespace.destroy() }
        try namespace.run(
            """
            ip tuntap add dev tap0 mode tap
            ip addr add 10.9.0.2/24 dev tap0
            ip link set tap0 up
            ip route replace default dev tap0
            """)
        #expect(try read(namespace).tunnel == Egress(family: .ipv4, interface: "tap0", kind: .tap, foundBy: .kernel))
        // pppd's links are TUN-like devices of link type PPP; one made that way with TUNSETLINK.
        try namespace.run(
            """
            ip link del tap0
            python3 -c "
            import fcntl, os, struct
            tun = os.open('/dev/net/tun', os.O_RDWR)
            fcntl.ioctl(tun, 0x400454ca, struct.pack('16sH', b'ppp0', 0x1001))  # TUNSETIFF: IFF_TUN | IFF_NO_PI
            fcntl.ioctl(tun, 0x400454cd, 512)                                   # TUNSETLINK: ARPHRD_PPP
            fcntl.ioctl(tun, 0x400454cb, 1)                                     # TUNSETPERSIST
            "
            ip addr add 10.64.0.2/32 peer 10.64.0.1 dev ppp0
            ip link set ppp0 up
            ip route replace default dev ppp0
            """)
        let report = try read(namespace)
        #expect(report.tunnel == Egress(family: .ipv4, interface: "ppp0", kind: .ppp, foundBy: .kernel))
        #expect(VPNVerdict.judge(path: report, networkManagerVPNs: []).reason == "the IPv4 default route goes through ppp0 (PPP)")
    }
}
