import Control
import ForecastModel
import Foundation
import TestSupport
import Testing

/// Every setting that changes how the weather is drawn reaches the bars already watching at once (``atOnce``),
/// in the new form (issue 23, item 1): watchers of every line format are connected before each edit.
@Suite("Live settings reach running watchers", .serialized)
struct LiveWatchersTests {
    /// The formats a bar watches, each with the template a `template` bar might use.
    static let formats = [
        "watch format=waybar", "watch format=i3blocks", "watch format=polybar", "watch format=text",
        "watch format=tmux", #"{"request":"watch","format":"template","template":"{icon} {temp} {condition} {updated_ago}"}"#,
    ]

    /// A daemon pinned to Samara with its recorded forecast (overcast, 18.5 °C), and one watcher per format,
    /// each past its first line.
    func start(_ server: ReplayServer) async throws -> (DaemonProcess, [(request: String, connection: RawConnection)]) {
        let daemon = try await startPinnedAtSamara(server: server)
        var watchers: [(String, RawConnection)] = []
        for request in Self.formats {
            let connection = try RawConnection(daemon.socketPath)
            _ = try connection.readLine()  // greeting
            try connection.send(request)
            let first = try connection.readLine()
            #expect(first.contains("°C"), "\(request): \(first)")
            watchers.append((request, connection))
        }
        return (daemon, watchers)
    }

    /// Edits the settings file as an editor that writes a new file and renames it does.
    func edit(_ daemon: DaemonProcess, appending text: String) throws {
        let path = daemon.configPath
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try Data((original + "\n" + text + "\n").utf8).write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
    }

    /// How soon after an edit every watcher must have the new form. Before issue 23 they never got it (only a
    /// restarted bar did); the daemon sends it within milliseconds of the rename. The bound leaves room for a
    /// loaded machine (CI's two cores, eight tests at a time), not for a change that waits for the next refresh.
    static let atOnce = Duration.seconds(5)

    /// Makes the edit, then reads each watcher's lines until `expected` holds for its latest one; every watcher
    /// must get there within ``atOnce`` of the edit.
    func expectEveryWatcher(
        _ daemon: DaemonProcess, _ watchers: [(request: String, connection: RawConnection)], after text: String,
        _ expected: @escaping @Sendable (_ request: String, _ line: String) -> Bool
    ) async throws {
        let edited = ContinuousClock.now
        try edit(daemon, appending: text)
        // All read on one thread, each line timed as it is read: no await between two watchers to delay the clock.
        let arrivals = try await onOwnThread { () -> [(request: String, line: String, at: ContinuousClock.Instant)] in
            try watchers.map { request, connection in
                var line = ""
                while !expected(request, line) { line = try connection.readLine(timeout: 10) }
                return (request, line, ContinuousClock.now)
            }
        }
        for (request, line, at) in arrivals {
            #expect(at - edited < Self.atOnce, "\(request): the new form came \(at - edited) after the edit: \(line)")
        }
    }

    @Test("[display] language: every watcher speaks the new language, with its decimal comma")
    func language() async throws {
        let server = try await ReplayServer.start()
        let (daemon, watchers) = try await start(server)
        defer { daemon.removeDirectory() }
        try await expectEveryWatcher(daemon, watchers, after: "[display]\nlanguage = \"es\"") { request, line in
            // 18.5 °C: "18,5" where a format shows a decimal; the words where it shows words.
            if request.contains("waybar") { return line.contains("viento") }
            if request.contains("template") { return line.contains("Cubierto") }
            if request.contains("format=text") { return line.contains("18,5°C") }
            // The short formats show no word, so the language shows only in a fresh line: not asked of them.
            return true
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("[display] icons: every watcher draws the new icon set")
    func icons() async throws {
        let server = try await ReplayServer.start()
        let (daemon, watchers) = try await start(server)
        defer { daemon.removeDirectory() }
        try await expectEveryWatcher(daemon, watchers, after: "[display]\nicons = \"text\"") { _, line in
            line.contains("CLOUD")
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("units: every watcher shows the new units")
    func units() async throws {
        let server = try await ReplayServer.start()
        let (daemon, watchers) = try await start(server)
        defer { daemon.removeDirectory() }
        let original = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        let edited = ContinuousClock.now
        try Data(original.replacingOccurrences(of: "units = \"metric\"", with: "units = \"imperial\"").utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath + ".new"))
        #expect(rename(daemon.configPath + ".new", daemon.configPath) == 0)
        let arrivals = try await onOwnThread { () -> [(request: String, at: ContinuousClock.Instant)] in
            try watchers.map { request, connection in
                while !(try connection.readLine(timeout: 10)).contains("°F") {}
                return (request, ContinuousClock.now)
            }
        }
        for (request, at) in arrivals {
            #expect(at - edited < Self.atOnce, "\(request): °F came \(at - edited) after the edit")
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("[display] hot_celsius: the watchers that colour by temperature turn hot")
    func thresholds() async throws {
        let server = try await ReplayServer.start()
        let (daemon, watchers) = try await start(server)
        defer { daemon.removeDirectory() }
        try await expectEveryWatcher(daemon, watchers, after: "[display]\nhot_celsius = 15") { request, line in
            if request.contains("waybar") { return line.contains("\"hot\"") }
            if request.contains("polybar") { return line.contains("%{F#FFA040}") }
            // i3blocks sends its first line (full_text) only; the colour is its third. Text formats have none.
            return true
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("[[output.files]] template: a status file with a template follows an edit of it and of the language")
    func templates() async throws {
        let server = try await ReplayServer.start()
        let (daemon, watchers) = try await start(server)
        defer { daemon.removeDirectory() }
        let file = daemon.directory.path + "/bars/template.txt"
        func contents() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        try edit(daemon, appending: "[[output.files]]\npath = \"\(file)\"\nformat = \"template\"\ntemplate = \"{temp}\"")
        try await daemon.wait(for: "the template file", timeout: .seconds(5)) { contents().hasPrefix("19") }
        let original = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        let edited = ContinuousClock.now
        try Data(original.replacingOccurrences(of: "template = \"{temp}\"", with: "template = \"{condition} {temp}\"").utf8)
            .write(to: URL(fileURLWithPath: daemon.configPath + ".new"))
        #expect(rename(daemon.configPath + ".new", daemon.configPath) == 0)
        try await daemon.wait(for: "the new template", timeout: Self.atOnce) { contents().hasPrefix("Overcast 19") }
        // A template watcher follows the language: its words, the same template.
        try await expectEveryWatcher(daemon, watchers.filter { $0.request.contains("template") }, after: "[display]\nlanguage = \"de\"") {
            _, line in line.contains("Bedeckt")
        }
        #expect(ContinuousClock.now - edited < Self.atOnce * 3)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
