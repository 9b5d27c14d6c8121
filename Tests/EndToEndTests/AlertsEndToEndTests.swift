import DBus
import ForecastModel
import Foundation
import TestSupport
import Testing

/// Warnings, the air and notifications seen from outside: the real daemon pinned in Berlin (the gazetteer
/// says DE, so the DWD's warnings through Bright Sky are asked), a replay server with the recorded Bright Sky,
/// Open-Meteo and Air Quality answers that counts every request, and, for notifications, a private session bus
/// with python-dbusmock's notification server.
@Suite("Warnings, air and notifications end to end", .serialized)
struct AlertsEndToEndTests {
    static let forecastPath = "/v1/forecast"
    static let alertsPath = "/alerts"
    static let airPath = "/v1/air-quality"
    static let berlin = (52.5200, 13.4050, String?.none)
    static let brightSkyFixture = "alerts/bright-sky/linecast-alerts-berlin-mitte-frost-2026-03-06.json"
    static let airFixture = "air-quality/python-open-meteo-air-quality-current-hourly-2026-10-03.json"

    /// The recorded Bright Sky frost warning (issued 03-06, in force 03-07 00:00–08:00 UTC) with its times
    /// moved so that it is in force now and expires at `expires`.
    static func brightSky(expires: Date) throws -> ReplayResponse {
        let data = try Fixtures.data(brightSkyFixture)
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var alerts = object["alerts"] as? [[String: Any]], !alerts.isEmpty
        else { throw TestFailure("\(brightSkyFixture) is not a Bright Sky alerts answer") }
        let formatter = ISO8601DateFormatter()
        alerts[0]["effective"] = formatter.string(from: Date().addingTimeInterval(-7200))
        alerts[0]["onset"] = formatter.string(from: Date().addingTimeInterval(-3600))
        alerts[0]["expires"] = formatter.string(from: expires)
        object["alerts"] = alerts
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return .json(String(decoding: body, as: UTF8.self))
    }

    static func alertSettings(_ server: ReplayServer, notifications: String = "") -> String {
        """

        [warnings]
        enabled = true

        [warnings.bright_sky]
        url = "\(server.url(alertsPath).absoluteString)"

        [warnings.nws]
        url = "\(server.url("/nws").absoluteString)"

        [warnings.met_norway]
        url = "\(server.url("/metalerts").absoluteString)"

        [warnings.meteoalarm]
        url = "\(server.url("/meteoalarm/").absoluteString)"

        [air]
        enabled = true
        url = "\(server.url(airPath).absoluteString)"

        \(notifications)
        """
    }

    static func startDaemon(
        _ server: ReplayServer, notifications: String = "", in directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> DaemonProcess {
        let text = settingsText(
            gpsdPort: nil, openMeteoURL: server.url(forecastPath), pin: berlin, mode: "pinned",
            alerts: alertSettings(server, notifications: notifications))
        let daemon = try DaemonProcess.start(config: text, in: directory, environment: environment)
        try await daemon.waitForSocket()
        return daemon
    }

    static func routes(_ server: ReplayServer, expires: Date = Date().addingTimeInterval(6 * 3600)) throws {
        server.setRoute(path: forecastPath, .json(try samaraResponse()))
        server.setRoute(path: alertsPath, try brightSky(expires: expires))
        server.setRoute(path: airPath, try berlinAir())
    }

    @Test(
        "Berlin: the DWD's frost warning and the air are in the report, forecastctl warnings lists them, one request each"
    )
    func berlinWarningAndAir() async throws {
        let server = try await ReplayServer.start()
        try Self.routes(server)
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "the warning and the air in the report") {
            let report = try await socketReport(daemon.socketPath)
            return report.warnings?.isEmpty == false && report.air != nil && report.current != nil
        }
        let report = try await socketReport(daemon.socketPath)
        #expect(report.place?.countryCode == "DE")
        let warning = try #require(report.warnings?.first)
        #expect(warning.source == "bright-sky")
        #expect(warning.event == "frost")
        #expect(warning.severity == .minor)
        #expect(warning.headline == "Official WARNING of FROST")
        #expect(report.air?.aqiScale == "european")
        let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
        #expect(schema.valid, "\(schema.output)")

        let request = try #require(server.requests().first { $0.path == Self.alertsPath })
        #expect(request.query["lat"] == "52.52")
        #expect(request.query["lon"] == "13.41" || request.query["lon"] == "13.4")
        #expect(request.header("User-Agent")?.hasPrefix("forecastd/") == true)

        let environment = DaemonProcess.environment(for: daemon.directory)
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let json = try await runTool(
            forecastctl, ["warnings", "--json", "--config", daemon.configPath], environment: environment)
        #expect(json.status == 0)
        let listed = try JSONDecoder().decode([WeatherWarning].self, from: Data(json.stdout.utf8))
        #expect(listed.map(\.id) == [warning.id])
        let table = try await runTool(
            forecastctl, ["warnings", "--config", daemon.configPath], environment: environment)
        #expect(table.status == 0)
        #expect(table.stdout.contains("minor     Frost"))
        #expect(table.stdout.contains("⚠ Frost (minor): Official WARNING of FROST"))
        let waybar = try await runTool(
            forecastctl, ["status", "--format", "waybar", "--config", daemon.configPath], environment: environment)
        #expect(waybar.stdout.contains("warning-minor"))

        // A refresh within the sources' intervals asks neither again.
        _ = try await FailoverTests.refresh(daemon)
        #expect(server.requestCount(path: Self.alertsPath) == 1)
        #expect(server.requestCount(path: Self.airPath) == 1)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    /// The recorded Iowa answer (tornado and flood polygons) with its recorder's `"date:now ±N seconds"`
    /// placeholders turned into times around now, as `alerts/SOURCES.md` asks.
    static func iowa() throws -> ReplayResponse {
        let file =
            "alerts/nws/weathergov-alerts-active-area-IA-cedar-rapids-tornado-flood-2024-05-polygons-templated-dates.json"
        let text = String(decoding: try Fixtures.data(file), as: UTF8.self)
        let pattern = try NSRegularExpression(pattern: #""date:now ([+-]?\d+) seconds""#)
        var result = ""
        var last = text.startIndex
        let now = Date()
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let offset = Range(match.range(at: 1), in: text),
                let seconds = Double(text[offset])
            else { continue }
            result += text[last..<whole.lowerBound] + "\"\(Timestamps.rfc3339(now.addingTimeInterval(seconds)))\""
            last = whole.upperBound
        }
        return .json(result + text[last...])
    }

    @Test("US: a point in Iowa's tornado polygon gets that warning from NWS; New York, with none, gets []")
    func nwsInsideAndOutside() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.forecastPath, .json(try samaraResponse()))
        server.setRoute(path: "/nws", try Self.iowa())
        server.setRoute(path: Self.airPath, try ReplayResponse.recorded(Self.airFixture))
        let settings = { (pin: (Double, Double, String?)) in
            settingsText(
                gpsdPort: nil, openMeteoURL: server.url(Self.forecastPath), pin: pin, mode: "pinned",
                alerts: Self.alertSettings(server))
        }
        let iowa = try DaemonProcess.start(config: settings((41.01173, -95.16172, nil)))
        defer { iowa.removeDirectory() }
        try await iowa.waitForSocket()
        try await iowa.wait(for: "the tornado warning") {
            try await socketReport(iowa.socketPath).warnings?.isEmpty == false
        }
        let report = try await socketReport(iowa.socketPath)
        #expect(report.place?.countryCode == "US")
        // The recording is Iowa's area answer, not a point's: its zone-only watches are listed after it, their
        // area not confirmed, with an error naming NWS.
        #expect(report.warnings?.filter(\.areaConfirmed).map(\.event) == ["Tornado Warning"])
        #expect(report.warnings?.first?.source == "nws")
        #expect(report.errors.contains { $0.kind == "warnings_unplaced" && $0.message.contains("could not be placed") })
        #expect(server.requests().first { $0.path == "/nws" }?.query["point"] == "41.01,-95.16")
        #expect(await iowa.stop() == 0)

        server.setRoute(
            path: "/nws", try ReplayResponse.recorded("alerts/nws/linecast-alerts-active-point-nyc-empty.json"))
        let newYork = try DaemonProcess.start(config: settings((40.7128, -74.006, nil)))
        defer { newYork.removeDirectory() }
        try await newYork.waitForSocket()
        try await newYork.wait(for: "the empty warnings list") {
            try await socketReport(newYork.socketPath).warnings == []
        }
        #expect(try await socketReport(newYork.socketPath).current != nil)
        try await server.shutdown()
        #expect(await newYork.stop() == 0)
    }

    @Test("A warning leaves the report at its expiry, by the daemon's timer, with no request")
    func expiryOnTime() async throws {
        let server = try await ReplayServer.start()
        // Whole seconds, as the answer carries it.
        let expires = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 6).rounded(.down))
        try Self.routes(server, expires: expires)
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "the warning") {
            try await socketReport(daemon.socketPath).warnings?.isEmpty == false
        }
        try await daemon.wait(for: "the warning to expire", timeout: .seconds(20)) {
            try await socketReport(daemon.socketPath).warnings == []
        }
        #expect(Date() >= expires)
        #expect(server.requestCount(path: Self.alertsPath) == 1)
        // The status file follows too (written after the report is published, so a moment after the
        // socket, which answers from the published report itself).
        try await daemon.wait(for: "the status file to drop the warning") {
            try !String(contentsOfFile: daemon.statusFilePath, encoding: .utf8).contains("\"frost\"")
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("Warning and air services failing never blank the weather")
    func failuresKeepTheWeather() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.forecastPath, .json(try samaraResponse()))
        server.setRoute(path: Self.alertsPath, .html("<html><body>502 Bad Gateway</body></html>"))
        server.setRoute(
            path: Self.airPath, .json("{\"latitude\": 52.5, \"longitude\": 13.4, \"current\": {\"european_aqi\": -5"))
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "both services to be asked and the weather shown") {
            let report = try await socketReport(daemon.socketPath)
            return report.current != nil && server.requestCount(path: Self.alertsPath) >= 1
                && server.requestCount(path: Self.airPath) >= 1
        }
        let report = try await socketReport(daemon.socketPath)
        #expect(report.status == .ok)
        #expect(report.current != nil)
        #expect(report.warnings == nil)
        #expect(report.air == nil)
        #expect(daemon.isRunning)
        #expect(daemon.log.contains("Official warnings could not be read"))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("Notifications: the warning is notified once on the session bus, and not again after a restart")
    func notifiedOnce() async throws {
        try await withPrivateBus { bus in
            let notifications = try await DBusMock.start(
                on: bus, template: "notification_daemon", name: "org.freedesktop.Notifications",
                path: "/org/freedesktop/Notifications")
            defer { notifications.stop() }
            let server = try await ReplayServer.start()
            try Self.routes(server)
            let settings = """
                [notifications]
                enabled = true
                minimum_severity = "minor"
                """
            let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            let daemon = try await Self.startDaemon(server, notifications: settings, environment: environment)
            defer { daemon.removeDirectory() }

            try await daemon.wait(for: "one notification") {
                try await notifications.calls(of: "Notify").count == 1
            }
            let call = try #require(try await notifications.calls(of: "Notify").first)
            #expect(call[0].string == "forecastd")
            #expect(call[3].string == "Frost (minor)")
            // The notifier keeps its bus connection (it listens for the server's events): a source of the daemon's
            // descriptor waiter, not a thread of its own (there was one, named sd-bus, per connection).
            let threads = kernelThreads(of: daemon.process.processIdentifier).map(\.name)
            #expect(!threads.contains("sd-bus"), "threads: \(threads.sorted())")
            #expect(threads.filter { $0 == "fd-waiter" }.count == 1, "threads: \(threads.sorted())")
            #expect(await daemon.stop() == 0)

            let restarted = try await Self.startDaemon(
                server, notifications: settings, in: daemon.directory, environment: environment)
            try await restarted.wait(for: "the warning after the restart") {
                try await socketReport(restarted.socketPath).warnings?.isEmpty == false
            }
            // The notifier has seen the report with the warning once it is published; give it a moment.
            try await Task.sleep(for: .seconds(2))
            #expect(try await notifications.calls(of: "Notify").count == 1)
            #expect(
                FileManager.default.fileExists(atPath: daemon.directory.path + "/state/forecastd/notifications.json"))
            #expect(await restarted.stop() == 0)
            try await server.shutdown()
        }
    }
}
