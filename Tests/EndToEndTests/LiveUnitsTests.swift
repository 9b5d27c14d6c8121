import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// Units per quantity changed on a running daemon, by forecastctl and on the socket: every bar follows
/// at once (within 5 s on a loaded machine), from the forecast already held, and the weather service is not asked again.
@Suite("Live units per quantity", .serialized)
struct LiveUnitsTests {
    func waybar(_ daemon: DaemonProcess) async throws -> String {
        try await onOwnThread {
            try ControlClient(socketPath: daemon.socketPath).request(#"{"request":"report","format":"waybar"}"#)
        }
    }

    @Test("forecastctl units wind kn, then the socket's units wind bft and units uk: bars change at once, no request")
    func liveChanges() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let requests = server.requestCount(path: "/forecast")
        #expect(requests == 1)
        let metric = try await socketReport(daemon.socketPath)
        let kmh = try #require(metric.current?.windSpeed)
        #expect(metric.units.windSpeed == "km/h")
        #expect(try await waybar(daemon).contains(" km/h"))

        // forecastctl edits the file in place (the one line becomes the table) and tells the daemon.
        let edit = try await runTool(
            ForecastctlSettingsTests.forecastctl,
            ["units", "--config", daemon.configPath, "--socket", daemon.socketPath, "wind", "kn"],
            environment: DaemonProcess.environment(for: daemon.directory))
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout.contains("units.wind: (none) → kn"))
        let file = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        #expect(file.contains("[units]\npreset = \"metric\"\nwind = \"kn\"\n") && !file.contains("\nunits = "))
        try await daemon.wait(for: "knots in the bar", timeout: .seconds(5)) { try await waybar(daemon).contains(" kn") }
        let knots = try await socketReport(daemon.socketPath)
        #expect(knots.units.windSpeed == "kn")
        #expect(knots.units.system == "metric")
        #expect(knots.units.temperature == "°C")
        let knotsSpeed = try #require(knots.current?.windSpeed)
        #expect(knotsSpeed == knotsSpeed.rounded(), "knots are whole")
        #expect(abs(knotsSpeed - kmh / 1.852) <= 0.8, "\(kmh) km/h is \(knotsSpeed) kn")

        // The socket's units request takes the same words.
        let bft = try await socketAnswer("units wind bft", daemon)
        #expect(bft.ok, "\(bft.message)")
        try await daemon.wait(for: "Beaufort in the bar", timeout: .seconds(5)) {
            try await socketReport(daemon.socketPath).units.windSpeed == "Bft"
        }
        let beaufort = try await socketReport(daemon.socketPath)
        let force = try #require(beaufort.current?.windSpeed)
        #expect((0...12).contains(Int(force)) && force == force.rounded())
        #expect(try await waybar(daemon).contains("\(Int(force)) Bft (\(UnitWords.beaufortName(Int(force))))"))

        // A preset sets the preset and removes the quantities set apart from it.
        let uk = try await socketAnswer("units uk", daemon)
        #expect(uk.ok, "\(uk.message)")
        try await daemon.wait(for: "the uk preset", timeout: .seconds(5)) {
            try await socketReport(daemon.socketPath).units.system == "uk"
        }
        let british = try await socketReport(daemon.socketPath)
        #expect(british.units.windSpeed == "mph" && british.units.temperature == "°C" && british.units.distance == "mi")
        #expect(try String(contentsOfFile: daemon.configPath, encoding: .utf8).contains("[units]\npreset = \"uk\"\n\n"))

        #expect(server.requestCount(path: "/forecast") == requests, "a change of units must not fetch again")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
