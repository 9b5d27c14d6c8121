import ForecastModel
import Foundation
import TestSupport
import Testing

/// The warning and air sources over time, on the daemon's test clock (`FORECASTD_TEST_CLOCK_SPEED`, read only
/// by the daemon's alert services): what stays when a source keeps failing, and how often each source is asked
/// in a day.
@Suite("Warnings and air over an accelerated clock", .serialized)
struct AlertsStaleAndCadenceTests {
    typealias E2E = AlertsEndToEndTests

    @Test("A failing warning source and air service: the last good values stay, marked stale, with named errors")
    func lastGoodStayMarkedStale() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: E2E.forecastPath, .json(try samaraResponse()))
        server.setRoute(
            path: E2E.alertsPath,
            sequence: [
                try E2E.brightSky(expires: Date().addingTimeInterval(30 * 86_400)),
                .html("<html><body>502 Bad Gateway</body></html>"),
            ])
        server.setRoute(
            path: E2E.airPath,
            sequence: [
                try E2E.berlinAir(),
                .json("{\"latitude\": 52.5, \"longitude\": 13.4, \"current\": {\"european_aqi\": 3", status: 500),
            ])
        // 300 times real time: Bright Sky's 5 minutes are 1 s, the air's hour 12 s, the grace 0.4 s.
        let daemon = try await E2E.startDaemon(server, environment: ["FORECASTD_TEST_CLOCK_SPEED": "300"])
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "the warnings and the air marked stale", timeout: .seconds(40)) {
            let report = try await socketReport(daemon.socketPath)
            return report.warningsStale == true && report.air?.stale == true
        }
        let report = try await socketReport(daemon.socketPath)
        // The last good warning and reading are still shown.
        #expect(report.warnings?.map(\.event) == ["frost"])
        #expect(report.air?.aqiScale == "european")
        // Each source's problem is named; the forecast is not made stale by them.
        let warningError = try #require(report.errors.first { $0.kind == "warnings" })
        #expect(warningError.message.contains("bright-sky"))
        #expect(warningError.message.contains("may be out of date"))
        #expect(report.errors.contains { $0.kind == "air" })
        #expect(report.status == .ok)
        #expect(report.current != nil)
        #expect(report.stale == false)
        #expect(server.requestCount(path: E2E.alertsPath) >= 2)
        #expect(server.requestCount(path: E2E.airPath) >= 2)
        let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
        #expect(schema.valid, "\(schema.output)")

        // The bar keeps the warning's class and says in the tooltip that it may be out of date.
        let environment = DaemonProcess.environment(for: daemon.directory)
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let waybar = try await runTool(
            forecastctl, ["status", "--format", "waybar", "--config", daemon.configPath], environment: environment)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any], "\(waybar.stdout)")
        #expect((object["class"] as? [String])?.contains("warning-minor") == true)
        #expect((object["tooltip"] as? String)?.contains("These warnings may be out of date") == true)

        #expect(daemon.isRunning)
        #expect(daemon.log.contains("Official warnings could not be read"))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
