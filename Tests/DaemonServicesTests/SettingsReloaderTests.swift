import DaemonServices
import DaemonState
import FileStore
import ForecastModel
import Foundation
import Logging
import Settings
import Testing
import TestSupport

@Suite("Settings reloads", .onEventLoops)
struct SettingsReloaderTests {
    @Test("a reload names the keys that changed, applies the live ones, and keeps those read at start for a restart")
    func changeList() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "/fd-reload-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/forecastd.toml"
        try "units = \"metric\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let signature = FileSignature(path: path)
        let initial = try Settings.load(from: path, isSystemService: false)
        let logger = Logger(label: "test")
        let state = ForecastState(settings: initial, places: nil, logger: logger)
        let reloader = SettingsReloader(
            initial: initial, sourcePath: path, sourceSignature: signature, explicitPath: path, isSystemService: false, state: state, logger: logger
        )

        try """
        units = "imperial"
        [location.gpsd]
        port = 3000
        [output]
        max_clients = 3
        [display]
        icons = "nerd"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let waiting = ["output.max_clients"]
        let outcome = await reloader.reload(reason: "a test")
        #expect(
            outcome
                == .applied(
                    source: path, changed: ["units", "location.gpsd.port", "display.icons"], waitingForRestart: waiting))
        #expect(
            outcome.summary
                == "reloaded \(path): changed units, location.gpsd.port, display.icons; read at start, waiting for a "
                + "restart: output.max_clients")
        #expect(await state.currentSettings.units == .imperial)
        #expect(await state.currentSettings.location.activeGPSD?.port == 3000)
        #expect(await state.currentSettings.display.icons == .nerd)
        #expect(state.settings.value.display.icons == .nerd, "the socket renders with the new icons")
        let running = await reloader.inEffect.settings
        #expect(running.output.maxClients == 64 && running.display.icons == .nerd)

        // Until the restart, every reload says so again.
        #expect(await reloader.reload(reason: "a test") == .unchanged(source: path, waitingForRestart: waiting))
    }
}
