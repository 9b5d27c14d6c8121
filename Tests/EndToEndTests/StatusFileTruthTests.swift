import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// What the status files and forecastctl say once the daemon is gone, wedged or stopped (issue 23, items 2-4
/// and 7): the file says who wrote it and until when it holds, readers judge it when they read it, the texts
/// that stay on show say times rather than ages, and the tooltip and summary say why the weather is old.
@Suite("Status files tell the truth", .serialized, .timeLimit(.minutes(2)))
struct StatusFileTruthTests {
    let ctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    /// A daemon pinned to Samara with its recorded forecast, writing a text and a tmux status file too.
    func start(environment: [String: String] = [:]) async throws -> (ReplayServer, DaemonProcess) {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", .json(try samaraResponse()))
        let directory = try DaemonProcess.makeDirectory()
        let config =
            settingsText(
                gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), pin: (53.2, 50.15, nil),
                mode: "pinned")
            + """

            [[output.files]]
            path = "\(directory.path)/run/forecastd/forecast.txt"
            format = "text"

            [[output.files]]
            path = "\(directory.path)/run/forecastd/tmux.txt"
            format = "tmux"

            """
        let daemon = try DaemonProcess.start(config: config, in: directory, environment: environment)
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
        try await daemon.wait(for: "the text file") { contents(daemon, "forecast.txt").contains("°C") }
        return (server, daemon)
    }

    func contents(_ daemon: DaemonProcess, _ name: String) -> String {
        (try? String(contentsOfFile: daemon.directory.path + "/run/forecastd/" + name, encoding: .utf8)) ?? ""
    }

    func forecastctl(_ daemon: DaemonProcess, _ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runTool(ctl, arguments + ["--config", daemon.configPath], environment: DaemonProcess.environment(for: daemon.directory))
    }

    func stamp(_ daemon: DaemonProcess) throws -> StatusFileStamp {
        let line = try #require(contents(daemon, "report.json").split(separator: "\n").first)
        return try #require(try ReportJSON.decode(String(line)).written)
    }

    @Test("the JSON status file says when it was written, until when it holds and which process wrote it")
    func stamped() async throws {
        let (server, daemon) = try await start()
        defer { daemon.removeDirectory() }
        let written = try stamp(daemon)
        #expect(written.pid == daemon.process.processIdentifier)
        #expect(written.processStart != nil && written.bootId != nil)
        let at = try #require(Timestamps.parseUTC(written.at))
        let until = try #require(Timestamps.parseUTC(written.validUntil))
        #expect(abs(at.timeIntervalSinceNow) < 30)
        #expect(until.timeIntervalSince(at) == 900, "it holds 15 minutes")
        let schema = try await validateAgainstSchema(String(contents(daemon, "report.json").split(separator: "\n")[0]))
        #expect(schema.valid, "\(schema.output)")
        // The socket's answers are the report as it is now: no stamp.
        #expect(try await socketReport(daemon.socketPath).written == nil)
        // The pid file i3status's run_watch reads.
        #expect(contents(daemon, "forecastd.pid") == "\(daemon.process.processIdentifier)\n")
        #expect(await daemon.stop() == 0)
        #expect(contents(daemon, "forecastd.pid").isEmpty, "removed at a graceful stop")
        try await server.shutdown()
    }

    @Test("SIGKILL: forecastctl marks the file's weather stale at its real age and says forecastd is not running")
    func killed() async throws {
        let (server, daemon) = try await start()
        defer { daemon.removeDirectory() }
        let fresh = try await forecastctl(daemon, "status", "--format", "text")
        #expect(!fresh.stdout.contains("stale"), "\(fresh.stdout)")
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()

        // The bars that run a command see it at once.
        let text = try await forecastctl(daemon, "status", "--format", "text")
        #expect(text.status == 0)
        #expect(text.stdout.contains("°C") && text.stdout.contains("(stale <1 min)"), "\(text.stdout)")
        let waybar = try await forecastctl(daemon, "status", "--format", "waybar")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any])
        #expect((object["class"] as? [String])?.contains("stale") == true, "\(waybar.stdout)")
        #expect((object["tooltip"] as? String)?.contains("forecastd is not running") == true, "\(waybar.stdout)")
        let i3blocks = try await forecastctl(daemon, "status", "--format", "i3blocks")
        #expect(i3blocks.stdout.split(separator: "\n").last == "#888888", "\(i3blocks.stdout)")
        // The summary says why, and so does the note.
        let summary = try await forecastctl(daemon, "status")
        #expect(summary.stdout.contains("(stale)") && summary.stdout.contains("forecastd is not running"), "\(summary.stdout)")
        #expect(summary.stderr.contains("forecastd is not running; showing the last report it wrote to"), "\(summary.stderr)")
        let json = try await forecastctl(daemon, "status", "--json")
        #expect(try ReportJSON.decode(json.stdout.trimmingCharacters(in: .newlines)).stale)
        // A killed daemon leaves its pid file behind, naming a process that is gone.
        #expect(contents(daemon, "forecastd.pid") == "\(daemon.process.processIdentifier)\n")
        #expect(kill(daemon.process.processIdentifier, 0) != 0)
        try await server.shutdown()
    }

    @Test("a daemon that stops writing (SIGSTOP) is judged by the time its file holds: stale once it has passed")
    func wedged() async throws {
        let (server, daemon) = try await start(environment: DaemonProcess.shortenedWaits(["status_file_hold": .seconds(3)]))
        defer { daemon.removeDirectory() }
        // Nothing changes, yet the file is written again before it stops holding.
        let first = try stamp(daemon)
        try await daemon.wait(for: "the file written again", timeout: .seconds(10)) { try stamp(daemon).at != first.at }
        #expect(try Timestamps.parseUTC(stamp(daemon).validUntil)! > Date())

        kill(daemon.process.processIdentifier, SIGSTOP)
        defer { kill(daemon.process.processIdentifier, SIGCONT) }
        let until = try #require(Timestamps.parseUTC(try stamp(daemon).validUntil))
        if until > Date() { try await Task.sleep(for: .seconds(until.timeIntervalSinceNow + 0.5)) }
        let waybar = try await forecastctl(daemon, "status", "--format", "waybar")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any])
        #expect((object["class"] as? [String])?.contains("stale") == true, "\(waybar.stdout)")
        #expect((object["tooltip"] as? String)?.contains("forecastd is not answering") == true, "\(waybar.stdout)")
        kill(daemon.process.processIdentifier, SIGCONT)
        try await daemon.wait(for: "fresh again") {
            try await forecastctl(daemon, "status", "--format", "text").stdout.contains("stale") == false
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a graceful stop leaves the time the forecast dates from in the files bars read, never an age that freezes")
    func stoppedFilesSayTheTime() async throws {
        let (server, daemon) = try await start()
        defer { daemon.removeDirectory() }
        let fetchedAt = try #require(try await socketReport(daemon.socketPath).provider?.fetchedAt)
        let fetched = try #require(Timestamps.parseUTC(fetchedAt))
        #expect(await daemon.stop() == 0)
        for name in ["forecast.txt", "tmux.txt"] {
            let text = contents(daemon, name)
            #expect(text.contains("°C") && text.contains("*") || text.contains("(stale"), "\(name): \(text)")
            #expect(!text.contains(" min") && !text.contains(" h)"), "\(name) holds an age: \(text)")
        }
        // The time the forecast was fetched, in Samara's local time (UTC+4) as the report's times are.
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 14_400)
        formatter.dateFormat = "HH:mm"
        let since = "(stale since \(formatter.string(from: fetched)))"
        #expect(contents(daemon, "forecast.txt").contains(since), "\(contents(daemon, "forecast.txt")) has no \(since)")
        try await server.shutdown()
    }

    @Test("forecastctl set and units print only what changed, not \"nothing changed\" from the daemon")
    func editsSayOnlyWhatChanged() async throws {
        let (server, daemon) = try await start()
        defer { daemon.removeDirectory() }
        let set = try await forecastctl(daemon, "set", "display.hot_celsius", "25")
        #expect(set.status == 0)
        #expect(set.stdout.contains("display.hot_celsius: 30.0 → 25.0"), "\(set.stdout)")
        #expect(set.stderr.isEmpty, "\(set.stderr)")
        let units = try await forecastctl(daemon, "units", "imperial")
        #expect(units.stdout.contains("units: metric → imperial"), "\(units.stdout)")
        #expect(units.stderr.isEmpty, "\(units.stderr)")
        // A key read at start: the one thing the daemon's answer adds.
        let restart = try await forecastctl(daemon, "set", "output.max_clients", "10")
        #expect(restart.stderr == "forecastctl: read when forecastd starts, so in force after a restart: output.max_clients\n", "\(restart.stderr)")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
