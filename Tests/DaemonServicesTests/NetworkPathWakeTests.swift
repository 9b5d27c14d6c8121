import CSystemEvents
@testable import DaemonServices
import DaemonState
import ForecastModel
import Foundation
import Glibc
import Location
import Logging
import NetworkPath
import Settings
import Testing
import TestSupport

/// The VPN rule as the wake watch applies it: the way out read by `WakeService` (a fixture tree here) reaches the
/// state, and the route socket says when to read it again (real routes in a network namespace).
@Suite("A VPN is not a place: the way out judged on route changes", .onEventLoops)
struct NetworkPathWakeTests {
    let clock = TestClock()
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    /// A `proc/net` and `sys/class/net` whose IPv4 default route goes through `interface` (wlan0 or wg0).
    func writeTree(_ directory: URL, defaultThrough interface: String) throws -> NetworkPathReader {
        let proc = directory.appendingPathComponent("proc/net")
        let sys = directory.appendingPathComponent("sys/class/net")
        try FileManager.default.createDirectory(at: proc, withIntermediateDirectories: true)
        try (Self.header + "\(interface)\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n")
            .write(to: proc.appendingPathComponent("route"), atomically: true, encoding: .utf8)
        let kinds = [
            "wlan0": ["type": "1\n", "uevent": "DEVTYPE=wlan\nINTERFACE=wlan0\n"],
            "wg0": ["type": "65534\n", "uevent": "DEVTYPE=wireguard\nINTERFACE=wg0\n"],
        ]
        for (name, files) in kinds {
            let folder = sys.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (file, text) in files {
                try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
            }
        }
        return NetworkPathReader(procNet: proc.path, sysClassNet: sys.path, asksKernel: false)
    }

    @Test("Through WireGuard the IP position is not used, and locate and the report say why; with the tunnel gone it is again")
    func vpnVerdictReachesTheState() async throws {
        try await withTemporaryDirectory("vpn-wake") { directory in
            var settings = Settings.testing(pin: Coordinate(latitude: -34.9011, longitude: -56.1645), gpsd: false)
            settings.location.ip.enabled = true
            let clock = self.clock
            let state = ForecastState(
                settings: settings, places: FixedPlaces(), logger: Logger(label: "test"), clock: { clock.now })
            await state.handle(
                .fix(
                    LocationFix(
                        coordinate: Coordinate(latitude: 40.7128, longitude: -74.006), source: .ip,
                        accuracyMeters: 15_000, receivedAt: clock.now)))
            #expect(await state.report.location?.source == "ip")

            let throughVPN = try writeTree(directory, defaultThrough: "wg0")
            await WakeService(state: state, logger: Logger(label: "test"), pathReader: throughVPN).judgePath()
            #expect(await state.report.location?.source == "pinned")
            let ip = await state.locate().sources.first { $0.source == "ip" }
            #expect(ip?.detail.hasPrefix("not used: the IPv4 default route goes through wg0 (WireGuard)") == true)
            // The report says why, as a notice: the forecast does not turn stale, bars do not colour it as an error.
            let behind = await state.report
            let notice = try #require(behind.errors.first { $0.kind == "vpn" })
            #expect(notice.message.hasPrefix("IP geolocation is not used: the IPv4 default route goes through wg0 (WireGuard)"))
            #expect(ErrorKind.isNotice(notice.kind))

            let plain = try writeTree(directory, defaultThrough: "wlan0")
            await WakeService(state: state, logger: Logger(label: "test"), pathReader: plain).judgePath()
            #expect(await state.report.location?.source == "ip")
            #expect(await state.report.errors.allSatisfy { $0.kind != "vpn" })
        }
    }

    @Test("A NetworkManager VPN with no tunnel of its own (an IPsec plugin's) carrying the default route is a VPN too")
    func networkManagerVPN() async throws {
        try await withTemporaryDirectory("vpn-nm") { directory in
            try await withPrivateBus(kind: .system) { bus in
                let manager = try await NetworkManagerMock.start(on: bus)
                var settings = Settings.testing(pin: Coordinate(latitude: -34.9011, longitude: -56.1645), gpsd: false)
                settings.location.ip.enabled = true
                let clock = self.clock
                let state = ForecastState(
                    settings: settings, places: FixedPlaces(), logger: Logger(label: "test"), clock: { clock.now })
                await state.handle(
                    .fix(
                        LocationFix(
                            coordinate: Coordinate(latitude: 40.7128, longitude: -74.006), source: .ip,
                            accuracyMeters: 15_000, receivedAt: clock.now)))
                let service = WakeService(
                    state: state, logger: Logger(label: "test"), pathReader: try writeTree(directory, defaultThrough: "wlan0"),
                    networkManagerBus: bus.address)
                await service.judgePath()
                #expect(await state.report.location?.source == "ip")

                let following = Task { await service.followNetworkManager() }
                defer { following.cancel() }
                let office = try await manager.activateConnection(name: "Office VPN", type: "vpn")
                #expect(try await waitUntil { await state.report.location?.source == "pinned" })
                let ip = await state.locate().sources.first { $0.source == "ip" }
                #expect(ip?.detail.contains("NetworkManager's VPN connection \u{201C}Office VPN\u{201D} carries the default route") == true)

                let wlan0 = try await manager.addWiFiDevice()
                try await manager.deactivate(office, device: wlan0)
                #expect(try await waitUntil { await state.report.location?.source == "ip" })
                following.cancel()
                await following.value
                manager.stop()
            }
        }
    }

    /// Waits (far longer than a loaded machine needs) until `condition` holds; false when it never did.
    func waitUntil(_ condition: () async -> Bool) async throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test(
        "The route socket says a tunnel's routes coming and going changed the way out; only their coming may be the network's return",
        .enabled(if: NetworkNamespace.unavailableReason == nil, "network namespaces: \(NetworkNamespace.unavailableReason ?? "")"))
    func routeSocketSaysThePathChanged() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.destroy() }
        try namespace.run(
            """
            ip link set lo up
            ip tuntap add dev tun0 mode tun
            ip addr add 10.8.0.2/24 dev tun0
            ip link set tun0 up
            """)
        let descriptor = try namespace.inside { sysev_open_route_socket() }
        #expect(descriptor >= 0)
        defer { Glibc.close(descriptor) }
        _ = sysev_drain_route_socket(descriptor)

        try namespace.run("ip route add 0.0.0.0/1 dev tun0; ip route add 128.0.0.0/1 dev tun0")
        #expect(sysev_drain_route_socket(descriptor) == SYSEV_NETWORK_BACK | SYSEV_PATH_CHANGED)
        // Down: the way out changed, and nothing came back (the wake's jittered re-judgement is not asked for).
        try namespace.run("ip route del 0.0.0.0/1 dev tun0; ip route del 128.0.0.0/1 dev tun0")
        #expect(sysev_drain_route_socket(descriptor) == SYSEV_PATH_CHANGED)
        try namespace.run("ip link del tun0")
        #expect(sysev_drain_route_socket(descriptor) & SYSEV_PATH_CHANGED != 0)
        #expect(sysev_drain_route_socket(descriptor) == 0)
    }
}
