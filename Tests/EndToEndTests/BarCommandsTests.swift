import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// forecastctl as status bars run it, against the real daemon.
@Suite("forecastctl for bars", .serialized, .timeLimit(.minutes(2)))
struct BarCommandsTests {
    let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    /// A replay server answering with the Samara recording, and a scratch directory whose settings file pins
    /// Samara (named `name`) on it, with `extra` settings appended: for a daemon and a watcher to share.
    func pinnedSamara(name: String? = nil, extra: String = "") async throws -> (server: ReplayServer, directory: URL, config: String) {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        let config = try pinnedAtSamaraSettings(server: server, name: name, extra: extra)
        try config.write(toFile: directory.path + "/forecastd.toml", atomically: true, encoding: .utf8)
        return (server, directory, config)
    }

    /// `forecastctl watch ARGUMENTS` on the settings in `directory`, its lines written to `output` (a
    /// `FileHandle` or a `Pipe`).
    func startWatch(_ arguments: [String], in directory: URL, output: Any) throws -> Process {
        let process = Process()
        process.executableURL = ctl
        process.arguments = ["watch"] + arguments + ["--config", directory.path + "/forecastd.toml"]
        process.environment = DaemonProcess.environment(for: directory)
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return process
    }

    /// `forecastctl watch ARGUMENTS` writing to a file in `directory`, and a function that reads the lines it
    /// has written so far.
    func startWatchToFile(_ arguments: [String], in directory: URL) throws -> (process: Process, lines: () -> [String]) {
        let outputPath = directory.path + "/watch.out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let process = try startWatch(arguments, in: directory, output: try #require(FileHandle(forWritingAtPath: outputPath)))
        return (process, { ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) })
    }

    @Test("status --format, forecast, refresh and watch against a running daemon")
    func againstDaemon() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let environment = DaemonProcess.environment(for: daemon.directory)
        let config = ["--config", daemon.configPath]

        let waybar = try await runTool(ctl, ["status", "--format", "waybar"] + config, environment: environment)
        #expect(waybar.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any]
        #expect((object?["text"] as? String)?.contains("°C") == true)
        #expect((object?["class"] as? [String])?.contains("overcast") == true)

        let table = try await runTool(ctl, ["forecast"] + config, environment: environment)
        #expect(table.status == 0)
        #expect(table.stdout.contains("Samara"))
        #expect(table.stdout.split(separator: "\n").count >= 8)

        let before = server.requestCount(path: "/forecast")
        let refresh = try await runTool(ctl, ["refresh"] + config, environment: environment)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(server.requestCount(path: "/forecast") == before + 1)

        // watch: a line now, and one more on a units switch.
        let outputPath = daemon.directory.path + "/watch.out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let process = Process()
        process.executableURL = ctl
        process.arguments = ["watch", "--format", "text"] + config
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        // Not the test's own stderr: a child holding it open would keep `swift test` waiting.
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // SIGKILL: a child of Foundation's Process inherits the spawning thread's blocked signals,
        // SIGTERM among them.
        defer { kill(process.processIdentifier, SIGKILL) }
        func watched() -> [String] {
            ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        try await daemon.wait(for: "the first watched line") { !watched().isEmpty }
        #expect(watched().first?.contains("°C") == true)
        let units = try await runTool(ctl, ["units", "imperial"] + config, environment: environment)
        #expect(units.status == 0, "\(units.stderr)")
        try await daemon.wait(for: "a watched line in °F") { watched().last?.contains("°F") == true }
        #expect(watched().count == 2)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("without a daemon or status file a bar still gets a line and exit code 0")
    func neverBlank() async throws {
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = DaemonProcess.environment(for: directory)
        for format in ["waybar", "text", "i3status-rust", "tmux"] {
            let result = try await runTool(ctl, ["status", "--format", format], environment: environment)
            #expect(result.status == 0)
            #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(format)")
        }
        let bad = try await runTool(ctl, ["status", "--format", "html"], environment: environment)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("waybar"))
    }

    @Test("no daemon and no status file: \"no data\" with no colour emoji the grey cannot reach, class unavailable, grey")
    func noDataLine() async throws {
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = DaemonProcess.environment(for: directory)
        func status(_ format: String) async throws -> String {
            let result = try await runTool(ctl, ["status", "--format", format], environment: environment)
            #expect(result.status == 0)
            return result.stdout.trimmingCharacters(in: .newlines)
        }
        let waybar = try JSONSerialization.jsonObject(with: Data(try await status("waybar").utf8)) as? [String: Any]
        // A colour emoji ignores the module's grey (a bright "❔" was the brightest thing in it): the words alone.
        #expect(waybar?["text"] as? String == "no data")
        #expect(waybar?["class"] as? [String] == ["unavailable"])
        #expect(waybar?["alt"] as? String == "unavailable")
        #expect(try await status("polybar") == "%{F#888888}no data%{F-}")
        #expect(try await status("i3blocks") == "no data\nno data\n#888888")
        #expect(try await status("i3status-rust").contains(#""state":"Idle""#))
        #expect(try await status("tmux") == "no data")
        let nerd = try await runTool(ctl, ["status", "--format", "text", "--icons", "nerd"], environment: environment)
        #expect(nerd.stdout == "\u{E374} no data\n")
    }

    @Test("status --format i3blocks prints its three lines from the daemon and from the status file (marked stale)")
    func i3blocksThreeLines() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let environment = DaemonProcess.environment(for: daemon.directory)
        let config = ["--config", daemon.configPath]
        let live = try await runTool(ctl, ["status", "--format", "i3blocks"] + config, environment: environment)
        let liveLines = live.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(liveLines.count == 3, "\(live.stdout)")
        #expect(liveLines.first?.contains("°C") == true && liveLines.first?.contains("stale") == false)
        #expect(await daemon.stop() == 0)
        let file = try await runTool(ctl, ["status", "--format", "i3blocks"] + config, environment: environment)
        let fileLines = file.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(fileLines.count == 3, "\(file.stdout)")
        #expect(fileLines.first?.contains("(stale") == true, "\(file.stdout)")
        #expect(fileLines.last == "#888888")
        try await server.shutdown()
    }

    @Test("watch before the daemon starts, while it runs, after it stops and when it is back: never a gap, never ?")
    func watchFollowsTheStatusFile() async throws {
        let (server, directory, config) = try await pinnedSamara()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, watched) = try startWatchToFile(["--format", "text"], in: directory)
        defer { kill(process.processIdentifier, SIGKILL) }
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while watched().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        // Before the daemon: neither socket nor file (not even their directory).
        #expect(watched() == ["no data"])

        // The daemon starts: its directory appears, then its socket; watch switches to it.
        var daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.wait(for: "a live line") { watched().last?.contains("°C") == true && watched().last?.contains("stale") == false }

        // It stops: the last report it wrote, marked stale.
        #expect(await daemon.stop() == 0)
        try await daemon.wait(for: "the stale line from the status file") { watched().last?.contains("(stale") == true }
        #expect(watched().last?.contains("°C") == true)

        // It is back: live again.
        daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.wait(for: "a live line again") { watched().last?.contains("stale") == false }
        #expect(watched().last?.contains("°C") == true)
        #expect(!watched().contains { $0.contains("?") || $0.contains("❔") })
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("watch writes to a bar's pipe one line at a time: the next only once the bar has read the one before")
    func watchWaitsForThePipeReader() async throws {
        // polybar up to 3.7.1 shows only the first of two lines that reach its pipe before it reads, and keeps
        // the second unseen until the next write. A daemon that starts says "no forecast yet", then the weather
        // a few milliseconds later: the bar must get them one at a time, however slowly it reads.
        let (server, directory, config) = try await pinnedSamara()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = Pipe()
        let process = try startWatch(["--format", "polybar"], in: directory, output: pipe)
        defer { kill(process.processIdentifier, SIGKILL) }
        let reader = pipe.fileHandleForReading.fileDescriptor
        func unread() -> Int32 {
            var count: Int32 = 0
            return ioctl(reader, UInt(FIONREAD), &count) == 0 ? count : 0
        }
        /// Everything in the pipe now, as lines.
        func readLines() -> [String] {
            var bytes = [UInt8](repeating: 0, count: Int(unread()))
            let count = bytes.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        func waitForLine() async throws {
            let deadline = ContinuousClock.now.advanced(by: .seconds(15))
            while unread() == 0 {
                guard ContinuousClock.now < deadline else { throw TestFailure("watch wrote nothing in 15 s") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await waitForLine()
        #expect(readLines().last?.contains("no data") == true)

        // The daemon starts and has its forecast while the bar reads nothing.
        let daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
        try await Task.sleep(for: .seconds(1))
        // Each read finds one line, never two, until the weather.
        var seen: [String] = []
        while seen.last?.contains("°C") != true {
            try await waitForLine()
            let lines = readLines()
            #expect(lines.count == 1, "two lines reached the pipe before the bar read: \(lines)")
            seen += lines
        }
        #expect(seen.last == "%{T2}☁️%{T-} 19°C", "\(seen)")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("watch --rotate while the daemon is away: here and each listed city from the status file, marked stale, then live again")
    func rotateFollowsTheStatusFile() async throws {
        let (server, directory, config) = try await pinnedSamara(name: "Samara", extra: CitiesDaemonTests.cities)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The daemon runs once, so that its status file holds here and both cities, then stops.
        var daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.waitForSocket()
        try await daemon.wait(for: "here and both cities with forecasts") {
            let report = try await socketReport(daemon.socketPath)
            return report.current != nil && report.cities?.allSatisfy { $0.report.current != nil } == true
                && report.cities?.count == 2
        }
        #expect(await daemon.stop() == 0)

        let (process, watched) = try startWatchToFile(["--rotate", "1", "--format", "text"], in: directory)
        defer { kill(process.processIdentifier, SIGKILL) }
        // Away: the three reports in turn from the file, each marked stale, never "no data" or "?".
        try await daemon.wait(for: "here, Paris and São Paulo from the status file", timeout: .seconds(20)) {
            let lines = watched()
            return ["Samara", "Paris", "São Paulo"].allSatisfy { place in lines.contains { $0.hasPrefix(place) } }
        }
        let away = watched()
        #expect(away.allSatisfy { $0.contains("°C") && $0.contains("(stale") }, "\(away)")

        // The daemon is back: the rotation is live again, from the socket.
        daemon = try DaemonProcess.start(config: config, in: directory)
        try await daemon.wait(for: "a live line", timeout: .seconds(20)) {
            watched().dropFirst(away.count).contains { $0.contains("°C") && !$0.contains("stale") }
        }
        #expect(!watched().contains { $0.contains("?") || $0.contains("no data") })
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("pin by place name: unique, ambiguous with candidates, unknown")
    func pinByName() async throws {
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = DaemonProcess.environment(for: directory)
        let file = directory.path + "/config/forecastd/forecastd.toml"

        let paris = try await runTool(ctl, ["pin", "Paris, FR"], environment: environment)
        #expect(paris.status == 0, "\(paris.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("latitude = 48.85"))
        #expect(text.contains("name = \"Paris\""))

        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let ambiguous = try await runTool(ctl, ["pin", "Hamilton"], environment: environment)
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("matches several places"))
        #expect(ambiguous.stderr.contains("NZ") && ambiguous.stderr.contains("CA"))
        let unknown = try await runTool(ctl, ["pin", "Nowhereville Qwx"], environment: environment)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("not a coordinate, a map link or a known place"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "a refused pin leaves the file untouched")
    }
}
