import Foundation
import NetworkPath
import Testing

/// The tables' text as this machine's kernel (Linux 6.18) wrote it for a namespace with a veth uplink, OpenVPN's
/// `def1` routes through tun0, and IPv6 with its default through the uplink (the `lo` rejection of `::/0` and the
/// local addresses as the kernel lists them).
enum RecordedTables {
    /// The kernel pads every line of /proc/net/route to 127 characters with spaces.
    static func padded(_ line: String) -> String {
        line + String(repeating: " ", count: max(0, 127 - line.count))
    }

    static let ipv4 = [
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
        "tun0\t00000000\t00000000\t0001\t0\t0\t0\t00000080\t0\t0\t0",
        "eth0\t00000000\t016433C6\t0003\t0\t0\t600\t00000000\t0\t0\t0",
        "tun0\t0000080A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "tun0\t00000080\t00000000\t0001\t0\t0\t0\t00000080\t0\t0\t0",
        "eth0\t006433C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
    ].map(padded).joined(separator: "\n") + "\n"

    static let ipv6 = """
        20010db8010000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
        fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001    peer0
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 20010db8010000000000000000000001 00000258 00000001 00000000 00000003     eth0
        00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000003 00000000 80200001       lo
        20010db8010000000000000000000002 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001     eth0
        ff000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo

        """
}

@Suite("Route tables and interface kinds")
struct RouteTableTests {
    static let publicV4: [UInt8] = [192, 0, 2, 1]
    static let publicV6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]

    @Test("IPv4: OpenVPN's two /1 routes beat the default route, as the kernel picks them")
    func openVPNDef1() {
        let table = RouteTable.ipv4(RecordedTables.ipv4)
        #expect(table.routes.count == 5)
        let chosen = table.route(to: Self.publicV4)
        #expect(chosen?.interface == "tun0")
        #expect(chosen?.prefixLength == 1)
        #expect(table.route(to: [198, 51, 100, 7])?.interface == "eth0")
        #expect(table.route(to: [10, 8, 0, 9])?.interface == "tun0")
        // Without the /1 routes the default decides.
        let plain = RouteTable(routes: table.routes.filter { $0.interface == "eth0" })
        #expect(plain.route(to: Self.publicV4)?.isDefault == true)
    }

    @Test("IPv4: the lowest metric wins between defaults; a table with no default route reaches nothing public")
    func metrics() {
        let text = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
            enp0s31f6\t00000000\t0102A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
            wwan0\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0
            """
        // The rejecting route (flags 0x0201) is no way out, whatever its metric.
        #expect(RouteTable.ipv4(text).route(to: Self.publicV4)?.interface == "enp0s31f6")
        let linkOnly = RouteTable.ipv4("Iface\neth0\t006433C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n")
        #expect(linkOnly.routes.count == 1)
        #expect(linkOnly.route(to: Self.publicV4) == nil)
    }

    @Test("IPv6: every table listed, rejections and local addresses left out")
    func ipv6() {
        let table = RouteTable.ipv6(RecordedTables.ipv6)
        #expect(table.routes.allSatisfy { $0.interface != "lo" })
        let chosen = table.route(to: Self.publicV6)
        #expect(chosen?.interface == "eth0")
        #expect(chosen?.isDefault == true)
        #expect(chosen?.metric == 0x258)
        // A host whose only ::/0 is the kernel's rejection on lo has no IPv6 way out.
        let rejectionOnly = RouteTable.ipv6(String(RecordedTables.ipv6.split(separator: "\n").last!))
        #expect(rejectionOnly.route(to: Self.publicV6) == nil)
    }

    @Test("Lines that cannot be read are left out, not fatal")
    func garbage() {
        #expect(RouteTable.ipv4("").routes.isEmpty)
        #expect(RouteTable.ipv4("Iface\nwlan0\tZZ\t\t\n\u{0}\u{1}\n").routes.isEmpty)
        // A mask with holes is no prefix.
        #expect(RouteTable.ipv4("h\nwlan0\t00000000\t0\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0").routes.isEmpty)
        #expect(RouteTable.ipv6("zz 40 x\n" + String(repeating: "f", count: 33) + " 00 a b c 1 1 1 1 eth0").routes.isEmpty)
        #expect(RouteTable.ipv6(String(repeating: "0", count: 32) + " 81 0 0 0 1 1 1 1 eth0").routes.isEmpty)
    }

    @Test("Interface kinds from sysfs: WireGuard, TUN, TAP, PPP, IP tunnels, and the rest")
    func kinds() {
        #expect(InterfaceKind(type: "65534\n", tunFlags: nil, uevent: "DEVTYPE=wireguard\nINTERFACE=wg0\nIFINDEX=5\n") == .wireguard)
        #expect(InterfaceKind(type: "65534\n", tunFlags: "0x1001\n", uevent: "INTERFACE=tun0\nIFINDEX=7\n") == .tun)
        #expect(InterfaceKind(type: "1\n", tunFlags: "0x1802\n", uevent: "INTERFACE=tap0\n") == .tap)
        #expect(InterfaceKind(type: "512\n", tunFlags: nil, uevent: "INTERFACE=ppp0\n") == .ppp)
        #expect(InterfaceKind(type: "512\n", tunFlags: "0x1801\n", uevent: nil) == .ppp)
        #expect(InterfaceKind(type: "778\n", tunFlags: nil, uevent: "DEVTYPE=gre\n") == .ipTunnel)
        #expect(InterfaceKind(type: "1\n", tunFlags: nil, uevent: "DEVTYPE=wlan\nINTERFACE=wlp3s0\n") == .other)
        #expect(InterfaceKind(type: "1\n", tunFlags: nil, uevent: "DEVTYPE=bridge\n") == .other)
        #expect(InterfaceKind(type: nil, tunFlags: nil, uevent: nil) == .other)
        #expect(InterfaceKind(type: "garbage", tunFlags: nil, uevent: "DEVTYPE") == .other)
    }
}
