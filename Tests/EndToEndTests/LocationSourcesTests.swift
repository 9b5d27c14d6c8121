import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// The choosing order with the real daemon: gpsd through gpsfake, a real static file, IP geolocation
/// services replayed by a local server, the pin; and `forecastctl locate` saying what each one knows.
@Suite("Location sources end to end", .serialized, .timeLimit(.minutes(3)))
struct LocationSourcesTests {
    let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    func forecastRoute(_ server: ReplayServer) throws {
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
    }

    @Test("no gpsd, no static file: IP geolocation places the machine (approximate), once, and a restart asks again no sooner than an hour")
    func ipGeolocation() async throws {
        let server = try await ReplayServer.start()
        try forecastRoute(server)
        server.setRoute(path: "/ipinfo", .html("<html><body>502 Bad Gateway</body></html>"))
        server.setRoute(path: "/ipapi", try .fixture("ip-geolocation/ipapi-mountain-view.json"))
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = settingsText(
            gpsdPort: try closedPort(), openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
            pin: (-34.9011, -56.1645, "Montevideo"),
            ipServices: [("ipinfo", server.url("/ipinfo")), ("ipapi", server.url("/ipapi"))])

        let first = try DaemonProcess.start(config: config, in: directory)
        try await first.waitForSocket()
        var report = try await socketReport(first.socketPath)
        try await first.wait(for: "the IP position with a forecast") {
            report = try await socketReport(first.socketPath)
            // The pin serves first, while the lookup runs; then the IP position gets its own forecast.
            return report.location?.source == "ip" && report.current != nil
                && server.requests().contains { $0.uri.contains("latitude=37.42&longitude=-122.08&") }
        }
        // IP geolocation outranks the pin in auto mode, and says it is approximate.
        #expect(report.location?.approximate == true)
        #expect(report.location?.accuracyM == 15_000)
        #expect(report.location?.latitude == 37.42301)
        #expect(report.place?.name == "Mountain View")
        #expect(report.place?.countryCode == "US")
        let schema = try await validateAgainstSchema(try await socketReportLine(first.socketPath))
        #expect(schema.valid, "\(schema.output)")

        let locate = try await runTool(ctl, ["locate", "--config", first.configPath], environment: DaemonProcess.environment(for: directory))
        #expect(locate.status == 0, "\(locate.stderr)")
        let lines = locate.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("mode auto: using ip (gpsd has no fix and there is no static file; using IP geolocation (approximate))") == true)
        #expect(lines.contains { $0.hasPrefix("* ip ") && $0.contains("37.42301, -122.08335 ±15 km") })
        #expect(lines.contains { $0.hasPrefix("  gpsd ") && $0.contains("problem") })
        #expect(lines.contains { $0.hasPrefix("  static_file ") && $0.contains("switched off") })
        #expect(lines.contains { $0.hasPrefix("  pinned ") && $0.contains("-34.90110, -56.16450") && $0.contains("\"Montevideo\"") })
        #expect(await first.stop() == 0)
        #expect(server.requestCount(path: "/ipinfo") == 1)
        #expect(server.requestCount(path: "/ipapi") == 1)

        // A restart within the hour uses the saved lookup: no service is asked again.
        let second = try DaemonProcess.start(config: config, in: directory)
        try await second.waitForSocket()
        try await second.wait(for: "the saved IP position") {
            try await socketReport(second.socketPath).location?.source == "ip"
        }
        #expect(second.log.contains("IP geolocation placed") == false)
        #expect(server.requestCount(path: "/ipinfo") == 1)
        #expect(server.requestCount(path: "/ipapi") == 1)
        #expect(await second.stop() == 0)
        try await server.shutdown()
    }

    @Test("a static file beats IP geolocation, which is then never asked")
    func staticFileBeatsIP() async throws {
        let server = try await ReplayServer.start()
        try forecastRoute(server)
        server.setRoute(path: "/ipinfo", try .fixture("ip-geolocation/ipinfo-mountain-view.json"))
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staticPath = directory.path + "/geolocation"
        try "# the cabin\n60.3913   # latitude\n5.3221    # longitude\n12\n25\n".write(toFile: staticPath, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), staticFile: staticPath,
                ipServices: [("ipinfo", server.url("/ipinfo"))]),
            in: directory)
        try await daemon.waitForSocket()
        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the static position with a forecast") {
            report = try await socketReport(daemon.socketPath)
            return report.location?.source == "static_file" && report.current != nil
        }
        #expect(report.location?.accuracyM == 25)
        #expect(report.location?.approximate == nil)
        #expect(report.place?.name == "Bergen")
        #expect(await daemon.stop() == 0)
        // Over the daemon's whole life (no sleep: a lookup would have been asked when the sources were chosen).
        #expect(server.requestCount(path: "/ipinfo") == 0)
        try await server.shutdown()
    }

    @Test("a fresh gpsd fix beats the static file and IP; locate shows every source and why gpsd wins")
    func gpsdBeatsTheRest() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { gps in
            let server = try await ReplayServer.start()
            try forecastRoute(server)
            server.setRoute(path: "/ipinfo", try .fixture("ip-geolocation/ipinfo-mountain-view.json"))
            let directory = try DaemonProcess.makeDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let staticPath = directory.path + "/geolocation"
            try "60.3913\n5.3221\n".write(toFile: staticPath, atomically: true, encoding: .utf8)
            let daemon = try DaemonProcess.start(
                config: settingsText(
                    gpsdPort: gps.port, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), staticFile: staticPath,
                    ipServices: [("ipinfo", server.url("/ipinfo"))]),
                in: directory)
            try await daemon.waitForSocket()
            try await daemon.wait(for: "the gpsd position") {
                try await socketReport(daemon.socketPath).location?.source == "gpsd"
            }
            let locate = try await runTool(ctl, ["locate", "--json", "--config", daemon.configPath], environment: DaemonProcess.environment(for: directory))
            #expect(locate.status == 0, "\(locate.stderr)")
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let answer = try decoder.decode(LocateAnswer.self, from: Data(locate.stdout.utf8))
            #expect(answer.chosen == "gpsd")
            #expect(answer.reason.hasPrefix("gpsd fix "))
            #expect(answer.sources.map(\.source) == ["gpsd", "wifi", "static_file", "geoclue", "ip", "pinned"])
            #expect(answer.sources.filter(\.used).map(\.source) == ["gpsd"])
            #expect(answer.sources[1].detail == "switched off ([location.wifi] enabled = false)")
            #expect(answer.sources[2].state == .position && answer.sources[2].latitude == 60.3913)
            #expect(answer.sources[3].state == .none)
            #expect(answer.sources[4].detail == "not asked: a better source knows the position")
            #expect(answer.sources[5].detail == "no pin is set")
            #expect(server.requestCount(path: "/ipinfo") == 0)
            #expect(await daemon.stop() == 0)
            try await server.shutdown()
        }
    }

    @Test("forecastctl locate without a daemon says so and exits 69")
    func locateWithoutDaemon() async throws {
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await runTool(ctl, ["locate"], environment: DaemonProcess.environment(for: directory))
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("forecastctl: "))
    }
}
