import ForecastModel
import Foundation
import TestSupport
import Testing

/// Issue 22's periods and persistence, seen from outside: a replayed NWS warning whose message expires before
/// its hazard ends, the real daemon on the alert services' test clock (`FORECASTD_TEST_CLOCK_SPEED`), and a
/// restart while the source is down.
@Suite("Warnings: periods and restarts end to end", .serialized)
struct AlertsPeriodTests {
    typealias E2E = AlertsEndToEndTests
    /// Minneapolis, pinned at 2 decimals so the rounded point NWS is asked for is the pin itself.
    static let minneapolis = (44.99, -93.29, String?.none)

    /// The recorded Minneapolis point answer (a Winter Weather Advisory whose message `expires` before its
    /// hazard `ends`, as NWS sends them) with its times moved around `now` and its title naming the point the
    /// daemon asks for (derived: the recording names 44.9869 N, 93.2926 W).
    static func nwsAnswer(now: Date, expiresIn: TimeInterval, endsIn: TimeInterval) throws -> ReplayResponse {
        let data = try Fixtures.data("alerts/nws/weathergov-alerts-active-point-minneapolis-2024-01-12.json")
        guard var root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var features = root["features"] as? [[String: Any]], var properties = features.first?["properties"] as? [String: Any]
        else { throw TestFailure("the Minneapolis answer is not an NWS answer") }
        let stamp = { (offset: TimeInterval) in Timestamps.rfc3339(now.addingTimeInterval(offset)) }
        properties["sent"] = stamp(-3600)
        properties["effective"] = stamp(-3600)
        properties["onset"] = stamp(-3600)
        properties["expires"] = stamp(expiresIn)
        properties["ends"] = stamp(endsIn)
        features[0]["properties"] = properties
        root["features"] = features
        root["title"] = "Current watches, warnings, and advisories for 44.99 N, 93.29 W"
        let body = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
        return .json(String(decoding: body, as: UTF8.self))
    }

    @Test(
        "NWS: shown from onset to ends, still there after its message expires while NWS lists it; after a restart with NWS down, shown at once, marked stale, until its end"
    )
    func untilEndsAndAcrossRestart() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: E2E.forecastPath, .json(try samaraResponse()))
        server.setRoute(path: E2E.airPath, try ReplayResponse.recorded(E2E.airFixture))
        let now = Date()
        // On a clock 600 times real time: the message expires 20 minutes in (2 s), the hazard ends 8 hours in
        // (48 s: room for a slow start and the restart on a machine busy with the parallel suite); NWS is asked
        // every 5 minutes (0.5 s).
        let expires = now.addingTimeInterval(20 * 60), ends = now.addingTimeInterval(8 * 3600)
        server.setRoute(path: "/nws", try Self.nwsAnswer(now: now, expiresIn: 20 * 60, endsIn: 8 * 3600))
        let settings = settingsText(
            gpsdPort: nil, openMeteoURL: server.url(E2E.forecastPath), pin: Self.minneapolis, mode: "pinned",
            alerts: E2E.alertSettings(server))
        let environment = ["FORECASTD_TEST_CLOCK_SPEED": "600"]
        let daemon = try DaemonProcess.start(config: settings, environment: environment)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()

        try await daemon.wait(for: "the advisory") {
            try await socketReport(daemon.socketPath).warnings?.isEmpty == false
        }
        let shown = try #require(try await socketReport(daemon.socketPath).warnings?.first)
        #expect(shown.event == "Winter Weather Advisory")
        #expect(shown.areaConfirmed)
        #expect(shown.expires.map { abs($0.timeIntervalSince(expires)) < 1 } == true)
        #expect(shown.ends.map { abs($0.timeIntervalSince(ends)) < 1 } == true)
        // Eight requests 5 minutes apart on the test clock put it past the message's expiry: NWS still lists
        // the warning, and so does the report.
        try await daemon.wait(for: "eight requests to NWS", timeout: .seconds(30)) {
            server.requestCount(path: "/nws") >= 8
        }
        let later = try await socketReport(daemon.socketPath)
        #expect(later.warnings?.map(\.identifier) == [shown.identifier])
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let table = try await runTool(
            forecastctl, ["warnings", "--config", daemon.configPath],
            environment: DaemonProcess.environment(for: daemon.directory))
        #expect(table.status == 0)
        #expect(table.stdout.contains("Winter Weather Advisory"))
        #expect(await daemon.stop() == 0)
        let state = try String(contentsOfFile: daemon.directory.path + "/state/forecastd/state.json", encoding: .utf8)
        #expect(state.contains("Winter Weather Advisory"))

        // NWS goes down; the daemon starts again with the same state.
        server.setRoute(path: "/nws", .html("<html><body>502 Bad Gateway</body></html>"))
        let requestsBefore = server.requestCount(path: "/nws")
        let restarted = try DaemonProcess.start(config: settings, in: daemon.directory, environment: environment)
        try await restarted.waitForSocket()
        let first = try await socketReport(restarted.socketPath)
        #expect(first.warnings?.map(\.identifier) == [shown.identifier], "shown at once, from state.json")
        try await restarted.wait(for: "the advisory marked stale", timeout: .seconds(40)) {
            try await socketReport(restarted.socketPath).warningsStale == true
        }
        #expect(server.requestCount(path: "/nws") > requestsBefore)
        let stale = try await socketReport(restarted.socketPath)
        #expect(stale.warnings?.map(\.identifier) == [shown.identifier])
        #expect(stale.errors.contains { $0.kind == "warnings" && $0.message.contains("nws") })
        let waybar = try await runTool(
            forecastctl, ["status", "--format", "waybar", "--config", restarted.configPath],
            environment: DaemonProcess.environment(for: restarted.directory))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any], "\(waybar.stdout)")
        #expect((object["class"] as? [String])?.contains("warning-moderate") == true)
        #expect((object["tooltip"] as? String)?.contains("Winter Weather Advisory") == true)
        #expect((object["tooltip"] as? String)?.contains("These warnings may be out of date") == true)
        // It leaves at its end, by the daemon's timer, with NWS still down.
        try await restarted.wait(for: "the advisory to leave at its end", timeout: .seconds(90)) {
            try await socketReport(restarted.socketPath).warnings?.isEmpty ?? true
        }
        #expect(await restarted.stop() == 0)
        try await server.shutdown()
    }
}
