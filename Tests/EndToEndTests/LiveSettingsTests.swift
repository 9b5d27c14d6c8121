import Control
import ForecastModel
import Foundation
import Rendering
import Synchronization
import TestSupport
import Testing

/// Settings edits reach the running daemon by every path, bad edits are harmless, and state
/// survives restarts. The real daemon binary against a local replay server.
@Suite("Live settings and saved state", .serialized)
struct LiveSettingsTests {
    func waitForUnits(_ units: String, _ daemon: DaemonProcess) async throws {
        try await daemon.wait(for: "units \(units)", timeout: .seconds(5)) {
            try await socketReport(daemon.socketPath).units.system == units
        }
    }

    func replace(_ path: String, _ old: String, _ new: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(old))
        return text.replacingOccurrences(of: old, with: new)
    }

    @Test("an in-place write switches units at once, converting the data held, with no new request")
    func inPlaceUnits() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let requests = server.requestCount(path: "/forecast")
        #expect(requests == 1)

        // In place: the same inode, truncated and rewritten, as many editors do.
        let text = try replace(daemon.configPath, #"units = "metric""#, #"units = "imperial""#)
        let handle = try #require(FileHandle(forWritingAtPath: daemon.configPath))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()

        try await waitForUnits("imperial", daemon)
        let report = try await socketReport(daemon.socketPath)
        #expect(report.current?.temperature == 65.3)  // 18.5 °C
        #expect(report.units.temperature == "°F")
        #expect(report.daily.first?.temperatureMax == 67.6)  // 19.8 °C
        #expect(server.requestCount(path: "/forecast") == requests, "a units switch must not fetch again")
        #expect(daemon.log.contains("Settings reloaded."))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("saves in place (truncate, then write 2 ms later), repeated: never the defaults, never an error; the last save applies")
    func truncateThenWrite() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server, units: "imperial")
        defer { daemon.removeDirectory() }
        let text = try String(contentsOfFile: daemon.configPath, encoding: .utf8)

        // Every report the daemon publishes while the file is saved, as a bar watching would see it.
        let socketPath = daemon.socketPath
        let stop = Mutex(false)
        let watcher = Task {
            try await onOwnThread { () -> [String] in
                let client = try ControlClient(socketPath: socketPath, timeout: .milliseconds(200))
                try client.send(#"{"request":"watch"}"#)
                var lines: [String] = []
                while !stop.withLock({ $0 }) {
                    if let line = try? client.readLine() { lines.append(line) }
                }
                return lines
            }
        }
        // As nano and vim with backupcopy=yes save: the same file opened, emptied, written, closed. Each
        // save differs only in a comment, so no save changes a setting.
        // Two seconds of saves with sleeps between: on a thread of their own, not one of the cooperative pool's two.
        let configPath = daemon.configPath
        try await onOwnThread {
            for save in 0..<300 {
                guard let handle = FileHandle(forWritingAtPath: configPath) else { throw TestFailure("\(configPath) cannot be opened") }
                try handle.truncate(atOffset: 0)
                usleep(2_000)
                try handle.write(contentsOf: Data((text + "# save \(save)\n").utf8))
                try handle.close()
                usleep(5_000)
            }
        }
        // The last save changes a setting, in place too: it must be applied.
        let handle = try #require(FileHandle(forWritingAtPath: daemon.configPath))
        try handle.truncate(atOffset: 0)
        usleep(2_000)
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "refresh_minutes = 15", with: "refresh_minutes = 20").utf8))
        try handle.close()
        try await daemon.wait(for: "the last save applied") { daemon.log.contains("changed=refresh_minutes") }
        stop.withLock { $0 = true }
        let lines = try await watcher.value

        let reports = try lines.map { try ReportJSON.decode($0) }
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0.units.system == "imperial" }, "a report in the defaults' units")
        #expect(reports.allSatisfy { $0.errors.isEmpty }, "\(reports.flatMap(\.errors))")
        // No reload ever changed anything but the last; the default providers were never set up.
        #expect(daemon.log.components(separatedBy: "Settings reloaded.").count == 2, "\(daemon.log)")
        #expect(!daemon.log.contains("api.open-meteo.com"))
        #expect(!daemon.log.contains("The settings file has errors"))
        #expect(server.requestCount(path: "/forecast") == 1)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a file emptied and left empty is reported as a settings error after a second; the last good settings stay")
    func emptiedAndLeft() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server, units: "imperial")
        defer { daemon.removeDirectory() }
        let emptied = ContinuousClock.now
        let handle = try #require(FileHandle(forWritingAtPath: daemon.configPath))
        try handle.truncate(atOffset: 0)
        try handle.close()
        try await daemon.wait(for: "the empty file reported", timeout: .seconds(10)) {
            try await socketReport(daemon.socketPath).errors.contains { $0.kind == "config" && $0.message.contains("is empty") }
        }
        // Not before it held still for a second: an in-place save under way looks the same until then.
        #expect(ContinuousClock.now - emptied >= .seconds(1))
        let report = try await socketReport(daemon.socketPath)
        #expect(report.units.system == "imperial", "the last good settings stay in force")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    /// Writes `text` to `path` as editors that save safely do: a new file renamed over the old one.
    func writeAndRename(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
    }

    @Test("[display] thresholds and icons and [[output.files]] (added, changed, removed) apply on reload; stopping marks the files stale")
    func liveDisplayAndFiles() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let socketPath = daemon.socketPath
        func waybar() async throws -> String {
            try await onOwnThread {
                try ControlClient(socketPath: socketPath).request(#"{"request":"report","format":"waybar"}"#)
            }
        }
        func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        // 18.5 °C, partly cloudy: neither hot nor cold by default, emoji icons.
        let before = try await waybar()
        #expect(!before.contains(#""hot""#) && !before.contains("CLOUD"), "\(before)")

        let kept = daemon.directory.path + "/bars/kept.json"
        let removed = daemon.directory.path + "/bars/removed.txt"
        let original = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try writeAndRename(
            original + """

                [display]
                icons = "text"
                hot_celsius = 15

                [[output.files]]
                path = "\(kept)"
                format = "waybar"

                [[output.files]]
                path = "\(removed)"
                format = "text"

                """, to: daemon.configPath)
        try await daemon.wait(for: "both status files, hot", timeout: .seconds(5)) {
            contents(kept).contains(#""hot""#) && contents(removed).contains("°C")
        }
        let after = try await waybar()
        #expect(after.contains(#""hot""#), "\(after)")
        #expect(after.contains("CLOUD"), "the socket's formats use [display] icons: \(after)")
        #expect(!daemon.log.contains("waiting for a restart"), "\(daemon.log)")

        // One file removed, the other changed (icons), the units switched: the kept file follows, the
        // removed one is no longer written.
        try writeAndRename(
            original.replacingOccurrences(of: #"units = "metric""#, with: #"units = "imperial""#) + """

                [display]
                hot_celsius = 15

                [[output.files]]
                path = "\(kept)"
                format = "waybar"
                icons = "text"

                """, to: daemon.configPath)
        try await daemon.wait(for: "the kept file in °F with text icons", timeout: .seconds(5)) {
            contents(kept).contains("°F") && contents(kept).contains("CLOUD")
        }
        #expect(contents(removed).contains("°C") && !contents(removed).contains("°F"))
        let last = try await waybar()
        #expect(!last.contains("CLOUD"), "icons back to the default: \(last)")
        #expect(!contents(kept).contains(#""stale""#), "\(contents(kept))")
        #expect(await daemon.stop() == 0)
        // Stopped: a bar that only reads the file keeps the last weather, marked stale.
        #expect(contents(kept).contains(#""stale""#) && contents(kept).contains("°F"), "\(contents(kept))")
        try await server.shutdown()
    }

    @Test("write-and-rename, a re-pointed symlink, SIGHUP and forecastctl reload all reach the daemon")
    func everyEditPath() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The settings live behind a symbolic link, as with dotfile managers.
        let daemon = try await startPinnedAtSamara(server: server, in: directory)
        let real = directory.path + "/real-a.toml"
        try FileManager.default.moveItem(atPath: daemon.configPath, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: daemon.configPath, withDestinationPath: real)

        // 1. Write to a temporary file and rename it over the target (vim, VS Code, forecastctl).
        let imperial = try replace(real, #"units = "metric""#, #"units = "imperial""#)
        try imperial.write(toFile: real + ".tmp", atomically: false, encoding: .utf8)
        #expect(rename(real + ".tmp", real) == 0)
        try await waitForUnits("imperial", daemon)

        // 2. Point the link at another file.
        let other = directory.path + "/real-b.toml"
        try imperial.replacingOccurrences(of: #"units = "imperial""#, with: #"units = "metric""#)
            .write(toFile: other, atomically: true, encoding: .utf8)
        // Re-pointed in one step (a new link renamed over the old), as dotfile managers do.
        try FileManager.default.createSymbolicLink(atPath: daemon.configPath + ".new", withDestinationPath: other)
        #expect(rename(daemon.configPath + ".new", daemon.configPath) == 0)
        try await waitForUnits("metric", daemon)

        // 3. SIGHUP reloads (and does not stop the daemon, as it would by default). Written whole, so
        // that the look at the file never sees half of it (in-place writes have their own test).
        try imperial.write(toFile: other, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitForUnits("imperial", daemon)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await daemon.wait(for: "a reload on SIGHUP") { daemon.log.contains("reason=SIGHUP") }
        #expect(daemon.isRunning)

        // 4. forecastctl reload, after an edit, answers with what changed.
        try imperial.replacingOccurrences(of: #"units = "imperial""#, with: #"units = "metric""#)
            .write(toFile: other, atomically: true, encoding: .utf8)
        let reload = try await onOwnThread { try ControlClient(socketPath: daemon.socketPath).request("reload") }
        #expect(reload.contains("\"class\":\"RELOAD\""))
        try await waitForUnits("metric", daemon)
        #expect(server.requestCount(path: "/forecast") == 1, "four units switches, no new request")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("moving the pin refreshes location, place and forecast")
    func movePin() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        #expect(try await socketReport(daemon.socketPath).place?.name == "Samara")
        let moved = try replace(daemon.configPath, "latitude = 53.2\nlongitude = 50.15", "latitude = 46.4983\nlongitude = 7.5674")
        try moved.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try await daemon.wait(for: "the new place") { try await socketReport(daemon.socketPath).place?.name == "Adelboden" }
        try await daemon.wait(for: "a second request for the new position") { server.requestCount(path: "/forecast") == 2 }
        #expect(server.requests().last?.uri.contains("latitude=46.5&longitude=7.57&") == true)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test(
        "a bad edit keeps the last good settings, names the line, is logged once, and clears when fixed",
        arguments: [
            ("units = \"kelvin\"", 1, "units"),
            ("units = \"metric\"\nrefresh_minutes = \"soon\"", 2, "refresh_minutes"),
            ("units = \"metric\"\nunits_typo = 3", 2, "units_typo"),
            ("units = \"metric\"\n[location\nmode = \"auto\"", 2, "TOML"),
        ])
    func badEdit(bad: String, line: Int, mentions: String) async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server, units: "imperial")
        defer { daemon.removeDirectory() }
        let good = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        // The bad text replaces the top of the file; the rest (pin, provider) stays.
        let rest = good.components(separatedBy: "\n").drop { !$0.hasPrefix("refresh_minutes") }.dropFirst().joined(separator: "\n")
        try (bad + "\n" + rest).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)

        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the settings error in the report") {
            report = try await socketReport(daemon.socketPath)
            return report.errors.contains { $0.kind == "config" }
        }
        let error = try #require(report.errors.first { $0.kind == "config" })
        #expect(error.message.hasPrefix("\(daemon.configPath):\(line):"), "\(error.message)")
        #expect(error.message.lowercased().contains(mentions.lowercased()), "\(error.message)")
        #expect(report.units.system == "imperial", "the last good settings stay in force")
        #expect(report.stale == false, "a settings problem does not make the forecast stale")
        #expect(daemon.isRunning)

        try good.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try await daemon.wait(for: "the error to clear") {
            try await socketReport(daemon.socketPath).errors.isEmpty
        }
        #expect(daemon.log.contains("The settings file is valid again."))
        // Logged once while the file was bad, not on every look at it: the daemon reads the file's events in
        // order, so any repeat would be in the log before the line saying it is valid again.
        let whileBad = daemon.log.components(separatedBy: "The settings file is valid again.")[0]
        #expect(whileBad.components(separatedBy: "The settings file has errors").count == 2)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a settings file appearing is followed; removing it returns to the built-in defaults")
    func appearAndDisappear() async throws {
        let server = try await ReplayServer.start()
        let daemon = try DaemonProcess.start(config: nil)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        try await daemon.wait(for: "no location") { try await socketReport(daemon.socketPath).status == .noLocation }

        let userFile = daemon.directory.path + "/config/forecastd/forecastd.toml"
        try FileManager.default.createDirectory(atPath: daemon.directory.path + "/config/forecastd", withIntermediateDirectories: true)
        try pinnedAtSamaraSettings(server: server, name: "Home", units: "imperial")
            .write(toFile: userFile, atomically: true, encoding: .utf8)
        try await daemon.wait(for: "the pin from the new file") {
            let report = try await socketReport(daemon.socketPath)
            return report.place?.name == "Home" && report.units.system == "imperial" && report.current != nil
        }

        try FileManager.default.removeItem(atPath: userFile)
        try await daemon.wait(for: "the built-in defaults") {
            try await socketReport(daemon.socketPath).units.system == "metric"
        }
        #expect(daemon.log.contains("The settings file is gone; using the built-in defaults."))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("after a restart the saved report is published at once, stale, before any network access")
    func restartWithSavedState() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await startPinnedAtSamara(server: server, in: directory)
        let fresh = try await socketReport(first.socketPath)
        #expect(fresh.stale == false)
        #expect(await first.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/state/forecastd/state.json"))

        // Offline now: every request fails.
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, body: "", behaviour: .closeWithoutAnswer))
        let before = server.requestCount(path: "/forecast")
        let second = try DaemonProcess.start(config: try String(contentsOfFile: first.configPath, encoding: .utf8), in: directory)
        try await second.waitForSocket()
        let restored = try await socketReport(second.socketPath)
        #expect(restored.stale)
        #expect(restored.status == .ok)
        #expect(restored.current?.temperature == 18.5)
        #expect(restored.daily.count == 7)
        #expect(restored.provider?.fetchedAt == fresh.provider?.fetchedAt)
        // It then tries to refresh, fails, and keeps the saved data with the error.
        try await second.wait(for: "the failed refresh") {
            try await socketReport(second.socketPath).errors.contains { $0.kind != "config" }
        }
        #expect(server.requestCount(path: "/forecast") > before)
        #expect(try await socketReport(second.socketPath).current?.temperature == 18.5)
        #expect(await second.stop() == 0)
        try await server.shutdown()
    }

    @Test("a corrupt state file is set aside and start-up goes on")
    func corruptState() async throws {
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(atPath: directory.path + "/state/forecastd", withIntermediateDirectories: true)
        try "{\"version\":1,\"forecast\":{\"trunc".write(toFile: directory.path + "/state/forecastd/state.json", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess.start(config: settingsText(gpsdPort: nil, openMeteoURL: URL(string: "http://127.0.0.1:9/")!), in: directory)
        try await daemon.waitForSocket()
        #expect(try await socketReport(daemon.socketPath).status == .noLocation)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/state/forecastd")
        #expect(left.contains { $0.hasPrefix("state.json.corrupt-") })
        #expect(daemon.log.contains("The saved state cannot be read"))
        #expect(await daemon.stop() == 0)
    }
}
