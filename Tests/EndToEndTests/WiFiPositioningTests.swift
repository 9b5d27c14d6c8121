import Control
import ForecastModel
import Foundation
import TestSupport
import Testing

/// Wi-Fi positioning with the real daemon: python-dbusmock's `networkmanager` template on a private system bus (the
/// daemon finds it through `DBUS_SYSTEM_BUS_ADDRESS`) and the geolocation service replayed by a local server.
@Suite("Wi-Fi positioning end to end", .serialized, .timeLimit(.minutes(3)))
struct WiFiPositioningTests {
    let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    @Test("A laptop with NetworkManager and no GPS: the report's place comes from Wi-Fi with its accuracy, once asked")
    func wifiPlacesTheMachine() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let directory = try DaemonProcess.makeDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let laptop = try await WiFiLaptop.start(on: bus, in: directory) { manager, wlan0 in
                try await manager.addAccessPoint(
                    to: wlan0, name: "c", ssid: "Flat_nomap", bssid: "00:25:9C:CF:1C:AD", strength: 90)
            }
            let (manager, server, daemon) = (laptop.manager, laptop.server, laptop.daemon)
            var report = try await socketReport(daemon.socketPath)
            try await daemon.wait(for: "the Wi-Fi position with a forecast") {
                report = try await socketReport(daemon.socketPath)
                return report.location?.source == "wifi" && report.current != nil
                    && server.requests().contains { $0.uri.contains("latitude=52.52&longitude=13.38&") }
            }
            #expect(report.location?.accuracyM == 50)
            #expect(report.location?.approximate != true)
            let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
            #expect(schema.valid, "\(schema.output)")

            let locate = try await runTool(
                ctl, ["locate", "--config", daemon.configPath], environment: DaemonProcess.environment(for: directory))
            #expect(locate.status == 0, "\(locate.stderr)")
            let lines = locate.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("mode auto: using wifi (gpsd has no fix; using Wi-Fi positioning, ±50 m)") == true)
            #expect(lines.contains { $0.hasPrefix("* wifi ") && $0.contains("±50 m") })
            #expect(await daemon.stop() == 0)
            // One request, with neither the names nor the opted-out network in it.
            let sent = server.requests().filter { $0.path == "/v1/geolocate" }
            #expect(sent.count == 1)
            let body = String(decoding: sent.first?.body ?? [], as: UTF8.self)
            #expect(body.contains("00:25:9c:cf:1c:ac") && body.contains("84:1b:5e:00:00:01"))
            #expect(!body.contains("Home") && !body.contains("Cafe") && !body.contains("1c:ad"))
            manager.stop()
            try await server.shutdown()
        }
    }
}
