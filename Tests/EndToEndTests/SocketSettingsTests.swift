import Control
import ForecastModel
import Foundation
import TestSupport
import Testing

/// Settings requests on the socket of a running daemon: the same edits as forecastctl's, through the
/// same API, on the same file.
@Suite("Settings requests on the socket", .serialized)
struct SocketSettingsTests {
    @Test("unpin in pinned mode goes back to auto, as forecastctl's does; pin takes place names; set any key")
    func sameEditsAsForecastctl() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let path = daemon.configPath

        let unpin = try await socketAnswer("unpin", daemon)
        #expect(unpin.ok, "\(unpin.message)")
        #expect(unpin.message == "location.pin: 53.2, 50.15 → (none) (\(path)); location.mode: pinned → auto (\(path))")
        let unpinned = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!unpinned.contains("[location.pin]") && unpinned.contains("mode = \"auto\""))

        let pin = try await socketAnswer("pin Paris, FR", daemon)
        #expect(pin.ok, "\(pin.message)")
        #expect(
            pin.message.hasPrefix(
                #"location.pin: (none) → 48.85341, 2.3488 "Paris" (\#(path)); Paris, FR is Paris, Île-de-France, FR"#))
        let mode = try await socketAnswer("mode pinned", daemon)
        #expect(mode.message == "location.mode: auto → pinned (\(path))")
        try await daemon.wait(for: "Paris pinned") { try await socketReport(daemon.socketPath).place?.name == "Paris" }

        let set = try await socketAnswer("set refresh_minutes 30", daemon)
        #expect(set.message == "refresh_minutes: 15 → 30 (\(path))")
        let refused = try await socketAnswer("set refresh_minutes soon", daemon)
        #expect(!refused.ok && refused.message == #"refresh_minutes: "soon" is not an integer (example: 15)"#)
        // Only the values changed; the pin, removed, came back as a table of its own at the end.
        let edited = try String(contentsOfFile: path, encoding: .utf8)
        #expect(edited.hasSuffix("\n[location.pin]\nlatitude = 48.85341\nlongitude = 2.3488\nname = \"Paris\"\n"))
        #expect(
            edited.replacingOccurrences(
                of: "\n[location.pin]\nlatitude = 48.85341\nlongitude = 2.3488\nname = \"Paris\"\n", with: "")
                == unpinned.replacingOccurrences(of: "mode = \"auto\"", with: "mode = \"pinned\"")
                .replacingOccurrences(of: "refresh_minutes = 15", with: "refresh_minutes = 30"))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("an edit on a deleted settings file is refused: nothing is written and the daemon keeps what it runs on")
    func deletedFile() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        try FileManager.default.removeItem(atPath: daemon.configPath)
        try await daemon.wait(for: "the missing file in the report") {
            try await socketReport(daemon.socketPath).errors.contains { $0.kind == "config" }
        }

        let units = try await socketAnswer("units imperial", daemon)
        #expect(!units.ok)
        #expect(units.message.hasPrefix("\(daemon.configPath) does not exist, so nothing was written"))
        #expect(!FileManager.default.fileExists(atPath: daemon.configPath))
        let report = try await socketReport(daemon.socketPath)
        #expect(report.units.system == "metric" && report.location?.source == "pinned")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
