import Foundation
import NetworkPath
import TestSupport
import Testing

/// The reader on fixture trees (a `proc/net` and a `sys/class/net` of the test's making, for links this kernel cannot
/// make: WireGuard), and the verdict it leads to.
@Suite("Network path on fixture trees")
struct NetworkPathReaderTests {
    /// Writes a tree: the route tables and, per interface, its sysfs files.
    func tree(
        in directory: URL, ipv4: String, ipv6: String?, interfaces: [String: [String: String]]
    ) throws -> NetworkPathReader {
        let proc = directory.appendingPathComponent("proc/net")
        let sys = directory.appendingPathComponent("sys/class/net")
        try FileManager.default.createDirectory(at: proc, withIntermediateDirectories: true)
        try ipv4.write(to: proc.appendingPathComponent("route"), atomically: true, encoding: .utf8)
        if let ipv6 { try ipv6.write(to: proc.appendingPathComponent("ipv6_route"), atomically: true, encoding: .utf8) }
        for (name, files) in interfaces {
            let folder = sys.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (file, text) in files {
                try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
            }
        }
        return NetworkPathReader(procNet: proc.path, sysClassNet: sys.path, asksKernel: false)
    }

    static let wlan = ["type": "1\n", "uevent": "DEVTYPE=wlan\nINTERFACE=wlp3s0\nIFINDEX=3\n"]
    static let wireguard = ["type": "65534\n", "uevent": "DEVTYPE=wireguard\nINTERFACE=wg0\nIFINDEX=9\n"]
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    @Test("A laptop on Wi-Fi: no VPN, the reason names the interface")
    func wifiOnly() async throws {
        try await withTemporaryDirectory("netpath") { directory in
            let reader = try tree(
                in: directory, ipv4: Self.header + "wlp3s0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n",
                ipv6: "", interfaces: ["wlp3s0": Self.wlan])
            let report = reader.read()
            #expect(report.egresses == [Egress(family: .ipv4, interface: "wlp3s0", kind: .other, foundBy: .routeTable)])
            #expect(report.problems.isEmpty)
            let verdict = VPNVerdict.judge(path: report, networkManagerVPNs: [])
            #expect(verdict == VPNVerdict(throughVPN: false, reason: "the default route goes through wlp3s0, no VPN"))
        }
    }

    @Test("WireGuard carrying the IPv6 default only is still a VPN")
    func wireguardIPv6() async throws {
        try await withTemporaryDirectory("netpath") { directory in
            let ipv6 =
                "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
                + "00000000000000000000000000000000 00000400 00000001 00000000 00000001      wg0\n"
            let reader = try tree(
                in: directory, ipv4: Self.header + "wlp3s0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n",
                ipv6: ipv6, interfaces: ["wlp3s0": Self.wlan, "wg0": Self.wireguard])
            let verdict = VPNVerdict.judge(path: reader.read(), networkManagerVPNs: [])
            #expect(verdict == VPNVerdict(throughVPN: true, reason: "the IPv6 default route goes through wg0 (WireGuard)"))
        }
    }

    @Test("NetworkManager's VPN counts where no tunnel interface shows (an IPsec plugin's)")
    func networkManagerVPN() async throws {
        try await withTemporaryDirectory("netpath") { directory in
            let reader = try tree(
                in: directory, ipv4: Self.header + "wlp3s0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n",
                ipv6: nil, interfaces: ["wlp3s0": Self.wlan])
            let verdict = VPNVerdict.judge(path: reader.read(), networkManagerVPNs: ["Office"])
            #expect(verdict.throughVPN)
            #expect(verdict.reason == "NetworkManager's VPN connection \u{201C}Office\u{201D} carries the default route")
        }
    }

    @Test("No tables, no default route, an interface name that would leave the directory: no VPN, nothing read astray")
    func nothingThere() async throws {
        try await withTemporaryDirectory("netpath") { directory in
            let reader = try tree(in: directory, ipv4: Self.header, ipv6: nil, interfaces: [:])
            let report = reader.read()
            #expect(report.egresses.isEmpty)
            #expect(VPNVerdict.judge(path: report, networkManagerVPNs: []).reason == "there is no default route")
            #expect(reader.kind(of: "../../../etc") == .other)
            #expect(reader.kind(of: "..") == .other)
            let missing = NetworkPathReader(
                procNet: directory.appendingPathComponent("none").path, sysClassNet: "/nonexistent", asksKernel: false)
            #expect(missing.read() == NetworkPathReport(egresses: []))
        }
    }
}
