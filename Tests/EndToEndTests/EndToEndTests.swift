import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// The real forecastd binary against real peers: gpsd fed by gpsfake, a local HTTP server
/// replaying recorded Open-Meteo responses, and its own Unix socket and status file.
@Suite("forecastd end to end", .serialized)
struct EndToEndTests {
    @Test("gpsd position → offline place → recorded forecast → socket and status file agree")
    func gpsdToReport() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { gps in
            try await gpsdToReport(gps)
        }
    }

    func gpsdToReport(_ gps: GPSFake) async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/v1/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))

        let daemon = try DaemonProcess.start(config: settingsText(gpsdPort: gps.port, openMeteoURL: server.baseURL.appendingPathComponent("v1/forecast")))
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()

        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "a report with the gpsd position and the forecast") {
            report = try await socketReport(daemon.socketPath)
            return report.location?.source == "gpsd" && report.current != nil
        }

        // Position from the recorded receiver, named offline.
        let location = try #require(report.location)
        #expect(abs(location.latitude - 48.9043) < 0.01)
        #expect(abs(location.longitude - 2.3330) < 0.01)
        #expect(location.accuracyM != nil)
        let place = try #require(report.place)
        // The name people use: the city, with the district kept beside it.
        #expect(place.name == "Paris")
        #expect(place.locality == "Saint-Ouen")
        #expect(place.countryCode == "FR")
        #expect(place.near == nil)

        // Values of the recorded response, converted to the canonical metric units.
        #expect(report.status == .ok)
        #expect(report.stale == false)
        #expect(report.provider?.name == "open-meteo")
        let current = try #require(report.current)
        #expect(current.temperature == 18.5)
        #expect(current.humidity == 78)
        #expect(current.windSpeed == 11)  // 3.00 m/s is 10.8 km/h, shown whole
        #expect(current.condition?.code == "overcast")
        #expect(report.units.system == "metric")
        #expect(report.daily.count == 7)
        #expect(report.daily.map(\.temperatureMax) == [19.8, 21.4, 16.6, 17.6, 18.8, 21.0, 21.4])
        #expect(report.daily.map(\.temperatureMin) == [13.3, 15.3, 12.1, 10.3, 8.7, 11.9, 13.7])
        #expect(report.daily[1].condition?.code == "rain_showers")

        // The request went to the configured URL, with the position from gpsd rounded to 2 decimals
        // (about 1 km: privacy, and caches work).
        let request = try #require(server.requests().first)
        #expect(request.uri.contains("latitude=48.9&longitude=2.33&"))
        #expect(request.uri.contains("timezone=auto"))

        // The status file and the socket carry the same report, byte for byte but for the file's own stamp
        // (`written`). The file is written after each publication, so on a loaded machine it may trail the socket
        // for a moment: wait for it to catch up.
        var fromSocket = ""
        try await daemon.wait(for: "the status file to carry the socket's report") {
            fromSocket = try await socketReportLine(daemon.socketPath)
            return statusFileReportLine(daemon.statusFilePath) == fromSocket
        }
        let schema = try await validateAgainstSchema(fromSocket)
        #expect(schema.valid, "\(schema.output)")

        // Stopping removes the socket, keeps the status file (the bar keeps its last data).
        let status = await daemon.stop()
        #expect(status == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(FileManager.default.fileExists(atPath: daemon.statusFilePath))
        try await server.shutdown()
    }

    @Test("gpsd absent: the pinned position is used")
    func pinFallback() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: try closedPort(), openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                pin: (-34.9011, -56.1645, "Montevideo")))
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()

        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the pinned position with a forecast") {
            report = try await socketReport(daemon.socketPath)
            return report.location?.source == "pinned" && report.current != nil
        }
        #expect(report.location?.latitude == -34.9011)
        #expect(report.location?.longitude == -56.1645)
        #expect(report.place?.name == "Montevideo")
        #expect(report.place?.countryCode == "UY")
        #expect(server.requests().first?.uri.contains("latitude=-34.9&longitude=-56.16&") == true)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("no gpsd and no pin: an explicit no-location state, and the daemon keeps answering")
    func noLocation() async throws {
        let server = try await ReplayServer.start()
        let daemon = try DaemonProcess.start(
            config: settingsText(gpsdPort: try closedPort(), openMeteoURL: server.baseURL.appendingPathComponent("forecast")))
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()

        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the no-location state") {
            report = try await socketReport(daemon.socketPath)
            return report.status == .noLocation
        }
        #expect(report.location == nil)
        #expect(report.place == nil)
        #expect(report.current == nil)
        #expect(report.errors.contains { $0.kind == "no_location" && $0.message.contains("gpsd") })
        // Never (0, 0), never a request without a position.
        #expect(server.requests().isEmpty)

        // Still alive and answering a little later, and the status file says the same.
        try await Task.sleep(for: .milliseconds(300))
        #expect(daemon.isRunning)
        let again = try await socketReportLine(daemon.socketPath)
        #expect(try ReportJSON.decode(again).status == .noLocation)
        let schema = try await validateAgainstSchema(again)
        #expect(schema.valid, "\(schema.output)")
        try await daemon.wait(for: "the status file to match the socket") {
            statusFileReportLine(daemon.statusFilePath) == (try await socketReportLine(daemon.socketPath))
        }

        // forecastctl shows the state in words and exits 0.
        let ctl = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"),
            ["status", "--config", daemon.configPath], environment: DaemonProcess.environment(for: daemon.directory))
        #expect(ctl.status == 0)
        #expect(ctl.stdout.contains("No location"))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("an invalid settings file stops start-up with PATH:LINE and exit code 78")
    func invalidSettings() async throws {
        let daemon = try DaemonProcess.start(config: "units = \"kelvin\"\nrefresh_minutes = 15\n")
        defer { daemon.removeDirectory() }
        let status = try await daemon.waitForExit()
        #expect(status == 78)
        #expect(daemon.log.contains("\(daemon.configPath):1:"))
        #expect(daemon.log.contains("kelvin"))
        #expect(daemon.log.contains("metric"))
    }

    @Test("no settings file at all: built-in defaults, socket and status file in XDG_RUNTIME_DIR")
    func builtInDefaults() async throws {
        // The defaults reach for gpsd on 127.0.0.1:2947 and for the real Open-Meteo: in this test
        // neither answers, which is the point: the daemon starts, reports its state, and keeps running.
        let daemon = try DaemonProcess.start(config: nil)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try await daemon.wait(for: "the status file") { FileManager.default.fileExists(atPath: daemon.statusFilePath) }
        let report = try await socketReport(daemon.socketPath)
        #expect(report.schema == 1)
        #expect(report.units.system == "metric")
        #expect(daemon.log.contains("built-in defaults"))
        #expect(await daemon.stop() == 0)
    }

    @Test("a stale socket file left by a crash is replaced; a live daemon's socket is not stolen")
    func staleSocket() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = settingsText(gpsdPort: try closedPort(), openMeteoURL: server.baseURL)

        // A socket file nobody listens on, as a killed daemon leaves it.
        let first = try DaemonProcess.start(config: config, in: directory)
        try await first.waitForSocket()
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: first.socketPath))

        let second = try DaemonProcess.start(config: config, in: directory)
        try await second.wait(for: "the new daemon to answer") { (try? await socketReport(second.socketPath)) != nil }

        // A third daemon on the same socket must refuse, leaving the second one serving.
        let third = try DaemonProcess.start(config: config, in: directory)
        let status = try await third.waitForExit()
        #expect(status != 0)
        #expect(third.log.contains("already running"))
        #expect((try? await socketReport(second.socketPath)) != nil)
        #expect(await second.stop() == 0)
        try await server.shutdown()
    }

    @Test("forecastctl: status summary and JSON, and offline place lookup")
    func forecastctl() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: try closedPort(), openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                pin: (53.2, 50.15, nil)))
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        try await daemon.wait(for: "a forecast") { try await socketReport(daemon.socketPath).current != nil }

        let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let environment = DaemonProcess.environment(for: daemon.directory)
        let json = try await runTool(ctl, ["status", "--json", "--config", daemon.configPath], environment: environment)
        #expect(json.status == 0)
        #expect(json.stdout == (try await socketReportLine(daemon.socketPath)) + "\n")

        let summary = try await runTool(ctl, ["status", "--socket", daemon.socketPath], environment: environment)
        #expect(summary.status == 0)
        #expect(summary.stdout.contains("Samara"))
        #expect(summary.stdout.contains("18.5 °C"))
        #expect(summary.stdout.contains("13 / 20 °C"))

        // With the daemon stopped, status falls back to the status file and says so.
        #expect(await daemon.stop() == 0)
        let fallback = try await runTool(ctl, ["status", "--config", daemon.configPath], environment: environment)
        #expect(fallback.status == 0)
        #expect(fallback.stdout.contains("Samara"))
        #expect(fallback.stderr.contains("not running"))

        let place = try await runTool(ctl, ["place", "48.9043", "2.3330"], environment: environment)
        #expect(place.status == 0)
        #expect(place.stdout.contains("\"name\":\"Saint-Ouen\""))
        #expect(place.stdout.contains("\"country_code\":\"FR\""))
        let southWest = try await runTool(ctl, ["place", "-34.9011,-56.1645"], environment: environment)
        #expect(southWest.stdout.contains("\"country_code\":\"UY\""))
        let bad = try await runTool(ctl, ["place", "95", "0"], environment: environment)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("latitude 95 is out of range"))
        try await server.shutdown()
    }
}
