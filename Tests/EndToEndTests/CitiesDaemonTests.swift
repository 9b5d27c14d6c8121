import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// The daemon with listed cities: one request per city per interval, each city in the report and on
/// the socket, favourites' readings kept in the history database across restarts.
@Suite("Listed cities in the daemon", .serialized, .timeLimit(.minutes(3)))
struct CitiesDaemonTests {
    let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    static let cities = """

        [[cities]]
        name = "Paris"
        admin1 = "Île-de-France"
        country = "FR"
        latitude = 48.85341
        longitude = 2.3488
        favorite = true

        [[cities]]
        name = "São Paulo"
        country = "BR"
        latitude = -23.5475
        longitude = -46.63611

        """

    @Test("each city gets one request, its own report in `cities`, `report city=` on the socket and `status --city`; favourites go to the history")
    func citiesServed() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try pinnedAtSamaraSettings(server: server, name: "Samara", extra: Self.cities)
        let environment = DaemonProcess.environment(for: directory)

        let daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.waitForSocket()
        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "here and both cities with forecasts") {
            report = try await socketReport(daemon.socketPath)
            return report.current != nil && report.cities?.count == 2 && report.cities?.allSatisfy { $0.report.current != nil } == true
        }
        let cities = try #require(report.cities)
        #expect(cities.map(\.id) == ["paris-fr", "sao-paulo-br"])
        #expect(cities.map(\.favorite) == [true, false])
        #expect(cities[0].report.location?.source == "city")
        #expect(cities[0].report.place?.name == "Paris")
        #expect(cities[1].report.place?.name == "São Paulo")
        #expect(cities[1].report.stale == false)
        // One request for here and one per city, with each city's own coordinates.
        let uris = server.requests().map(\.uri)
        #expect(uris.count == 3)
        #expect(uris.contains { $0.contains("latitude=48.85&longitude=2.35&") })
        #expect(uris.contains { $0.contains("latitude=-23.55&longitude=-46.64&") })
        let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
        #expect(schema.valid, "\(schema.output)")

        // A city by id or by name, in any format, on the socket and through forecastctl.
        let text = try await onOwnThread {
            try ControlClient(socketPath: daemon.socketPath).request(#"{"request":"report","city":"Sao Paulo","format":"text"}"#)
        }
        #expect(text.contains("São Paulo"))
        let unknown = try await onOwnThread {
            try ControlClient(socketPath: daemon.socketPath).request("report city=atlantis")
        }
        #expect(unknown == #"{"class":"ERROR","message":"unknown city \"atlantis\" (listed: paris-fr, sao-paulo-br)"}"#)
        let status = try await runTool(ctl, ["status", "--city", "paris-fr", "--json", "--config", daemon.configPath], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try ReportJSON.decode(status.stdout.trimmingCharacters(in: .newlines)).place?.name == "Paris")

        #expect(await daemon.stop() == 0)
        // Nothing more within the refresh interval, over the daemon's whole life: every read above came from
        // what was fetched (no sleep: nothing ticks, and the one timer is set for the refresh 15 min on).
        #expect(server.requests().count == 3)

        // The favourite's reading was stored; a restart keeps the cities' last forecasts (stale until
        // refreshed) and the history, read back by forecastctl.
        let second = try DaemonProcess.start(config: config, in: directory)
        try await second.waitForSocket()
        let restored = try await socketReport(second.socketPath)
        #expect(restored.cities?.first?.report.current != nil)
        let history = try await runTool(ctl, ["history", "Paris", "--json", "--config", second.configPath], environment: environment)
        #expect(history.status == 0, "\(history.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
        #expect(object?["city"] as? String == "paris-fr")
        let readings = object?["readings"] as? [[String: Any]] ?? []
        #expect(readings.count == 1)
        #expect(readings.first?["temperature"] as? Double == 18.5)
        #expect(readings.first?["provider"] as? String == "open-meteo")
        #expect((object?["forecasts"] as? [Any])?.isEmpty == false)
        let notFavourite = try await runTool(ctl, ["history", "São Paulo", "--json", "--config", second.configPath], environment: environment)
        let other = try JSONSerialization.jsonObject(with: Data(notFavourite.stdout.utf8)) as? [String: Any]
        #expect((other?["readings"] as? [Any])?.isEmpty == true)
        #expect(await second.stop() == 0)
        try await server.shutdown()
    }

    @Test("a city added to the file while the daemon runs is fetched at once; a removed one leaves the report")
    func liveCityList() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let base = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        #expect(try await socketReport(daemon.socketPath).cities == nil)

        let staging = daemon.configPath + ".new"
        try (base + Self.cities).write(toFile: staging, atomically: false, encoding: .utf8)
        #expect(rename(staging, daemon.configPath) == 0)
        try await daemon.wait(for: "both cities") {
            try await socketReport(daemon.socketPath).cities?.compactMap(\.report.current).count == 2
        }
        #expect(server.requests().count == 3)

        try base.write(toFile: staging, atomically: false, encoding: .utf8)
        #expect(rename(staging, daemon.configPath) == 0)
        try await daemon.wait(for: "no cities") { try await socketReport(daemon.socketPath).cities == nil }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
