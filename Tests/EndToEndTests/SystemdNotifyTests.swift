import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real daemon as systemd runs it: `Type=notify` messages on a datagram socket the test listens
/// on (`$NOTIFY_SOCKET`), the watchdog, and sockets passed by `systemd-socket-activate`.
@Suite("systemd notifications and socket activation", .serialized)
struct SystemdNotifyTests {
    /// Pinned to Bromsgrove, the recorded forecast served by `server`.
    func settings(_ server: ReplayServer, units: String = "metric") throws -> String {
        server.setRoute(
            path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        return settingsText(
            gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), pin: (52.3357, -2.0579, "Bromsgrove"),
            mode: "pinned", units: units)
    }

    /// The fields of one notification, in order.
    func fields(_ message: String?) -> [String] {
        message?.split(separator: "\n").map(String.init) ?? []
    }

    @Test("READY=1 comes once the socket answers and the saved report is published; then status lines, reloads, stopping")
    func lifecycle() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        // A first run fetches a forecast and saves it.
        let first = try DaemonProcess.start(config: try settings(server), in: directory)
        try await first.waitForSocket()
        try await first.wait(for: "the first forecast") { try await socketReport(first.socketPath).current != nil }
        #expect(await first.stop() == 0)
        let statusFile = first.statusFilePath
        try FileManager.default.removeItem(atPath: statusFile)

        // The second run starts with the saved report, under a service manager.
        let notify = try NotifySocket(path: directory.path + "/notify")
        let daemon = try DaemonProcess.start(
            config: try settings(server), in: directory, environment: ["NOTIFY_SOCKET": notify.address])
        let startup = await notify.messages(until: { $0.hasPrefix("READY=1") })
        // READY=1 is the first thing systemd hears, and it carries the status line.
        #expect(startup.count == 1, "\(startup)")
        let ready = fields(startup.last)
        #expect(ready.first == "READY=1", "\(daemon.log)")
        // At this moment the socket answers and the status file holds the saved forecast.
        let answered = try await socketReport(daemon.socketPath)
        #expect(answered.current?.temperature == 18.5)
        let published = try ReportJSON.decode(try String(contentsOfFile: statusFile, encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(published.current?.temperature == 18.5)
        #expect(published.provider?.name == "open-meteo")
        let readyStatus = try #require(ready.dropFirst().first)
        #expect(readyStatus.hasPrefix("STATUS=Bromsgrove, 18 °C, open-meteo forecast from "), "\(readyStatus)")

        // A settings edit picked up live: RELOADING=1 with the monotonic time, READY=1 after, and a
        // status line in the new units (the report changed, so the status did).
        let imperial = try String(contentsOfFile: first.configPath, encoding: .utf8)
            .replacingOccurrences(of: #"units = "metric""#, with: #"units = "imperial""#)
        try imperial.write(toFile: first.configPath, atomically: true, encoding: .utf8)
        var edit = await notify.messages(until: { $0 == "READY=1" })
        if !edit.contains(where: { $0.contains("°F") }) { edit += await notify.messages(until: { $0.contains("°F") }) }
        #expect(reloadSequence(edit), "\(edit)")
        #expect(edit.contains { $0.hasPrefix("STATUS=Bromsgrove, 65 °F, open-meteo forecast from ") }, "\(edit)")

        // SIGHUP: the same sequence, whatever the file says.
        kill(daemon.process.processIdentifier, SIGHUP)
        let hangup = await notify.messages(until: { $0 == "READY=1" })
        #expect(reloadSequence(hangup), "\(hangup)")

        // A `reload` request on the socket (what ExecReload's `forecastctl reload` sends).
        let answer = try await onOwnThread { try ControlClient(socketPath: daemon.socketPath).request("reload") }
        #expect(answer.contains(#""ok":true"#))
        let request = await notify.messages(until: { $0 == "READY=1" })
        #expect(reloadSequence(request), "\(request)")

        // SIGTERM: STOPPING=1 before the daemon exits, and nothing after it.
        kill(daemon.process.processIdentifier, SIGTERM)
        let stopping = await notify.messages(until: { $0 == "STOPPING=1" })
        #expect(stopping.last == "STOPPING=1", "\(stopping)")
        #expect(await daemon.stop() == 0)
        #expect(notify.pending() == nil)
        try await server.shutdown()
    }

    /// RELOADING=1 and MONOTONIC_USEC in one message, then READY=1 (status lines may come between).
    func reloadSequence(_ messages: [String]) -> Bool {
        guard let start = messages.firstIndex(where: { $0.hasPrefix("RELOADING=1") }),
            let end = messages.lastIndex(of: "READY=1"), start < end
        else { return false }
        let reloading = fields(messages[start])
        guard reloading.count == 2, let stamp = reloading.last, stamp.hasPrefix("MONOTONIC_USEC="),
            let microseconds = UInt64(stamp.dropFirst("MONOTONIC_USEC=".count))
        else { return false }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return microseconds <= current && current - microseconds < 30_000_000
    }

    @Test("with WATCHDOG_USEC set, WATCHDOG=1 comes at half the interval")
    func watchdog() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notify = try NotifySocket(path: directory.path + "/notify")
        let daemon = try DaemonProcess.start(
            config: try settings(server), in: directory,
            environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "600000"])
        let messages = await notify.messages(
            until: { message in message == "WATCHDOG=1" }, within: .seconds(15))
        #expect(messages.first?.hasPrefix("READY=1") == true, "\(messages)")
        #expect(messages.last == "WATCHDOG=1", "\(messages)\n\(daemon.log)")
        // Pings keep coming while the state owner answers its probes.
        let more = await notify.messages(until: { $0 == "WATCHDOG=1" }, within: .seconds(5))
        #expect(more.last == "WATCHDOG=1")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a NOTIFY_SOCKET that names no socket is logged once and ignored: the daemon runs")
    func wrongNotifySocket() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A regular file where the socket should be; every watchdog ping fails too.
        let path = directory.path + "/not-a-socket"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let daemon = try DaemonProcess.start(
            config: try settings(server), in: directory, environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"])
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the forecast") { try await socketReport(daemon.socketPath).current != nil }
        try await daemon.wait(for: "the failed notification in the log") { daemon.log.contains("Cannot notify systemd") }
        #expect(daemon.isRunning)
        #expect(await daemon.stop() == 0)
        let warnings = daemon.log.components(separatedBy: "\n").filter { $0.contains("Cannot notify systemd") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("Connection refused") == true, "\(warnings)")
        try await server.shutdown()
    }

    /// Whether a Unix stream socket bound at `path` is listening, read from /proc/net/unix (flag __SO_ACCEPTCON)
    /// without connecting: a connection would start the activated daemon.
    static func isListening(_ path: String) -> Bool {
        // Read to its end: /proc files say they are empty, so a read of the stated size gets nothing.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/unix") else { return false }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 8 && fields[7] == path && fields[3] == "00010000"
        }
    }

    @Test("socket activation: a client that connects before the daemon runs gets the greeting and its report")
    func socketActivation() async throws {
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socketPath = directory.path + "/run/forecastd/forecastd.sock"
        try FileManager.default.createDirectory(
            atPath: directory.path + "/run/forecastd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let notify = try NotifySocket(path: directory.path + "/notify")
        // systemd-socket-activate binds the socket and starts the daemon on the first connection.
        let daemon = try DaemonProcess.start(
            config: try settings(server), in: directory, environment: ["NOTIFY_SOCKET": notify.address],
            activatedOn: socketPath)
        try await daemon.waitForSocket(socketPath)
        // The activator binds (the file appears) and then listens: a connection between the two is refused.
        try await daemon.wait(for: "systemd-socket-activate to listen") { Self.isListening(socketPath) }
        var info = stat()
        stat(socketPath, &info)
        // The activator's own mode, before the daemon runs: not the daemon's 0600.
        #expect(info.st_mode & 0o777 != 0o600)
        #expect(notify.pending() == nil)

        // This connection starts the daemon; the client waits in the backlog and is greeted.
        let (greeting, report) = try await onOwnThread { () throws -> (Greeting?, String) in
            let client = try ControlClient(socketPath: socketPath, timeout: .seconds(20))
            return (client.greeting, try client.request("report"))
        }
        #expect(greeting?.class == "VERSION")
        // The report at start: the forecast comes later.
        #expect(try ReportJSON.decode(report).schema == Report.schemaVersion)
        let ready = await notify.messages(until: { $0.hasPrefix("READY=1") })
        #expect(ready.last?.hasPrefix("READY=1") == true, "\(ready)\n\(daemon.log)")
        #expect(daemon.log.contains("Listening on the socket systemd passed."))

        // The daemon gave the passed socket the mode its own socket has.
        stat(socketPath, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        try await daemon.wait(for: "the forecast") { try await socketReport(socketPath).current != nil }

        // Stopping leaves the socket file to whoever passed it (systemd keeps listening there).
        #expect(await daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: socketPath))
        try await server.shutdown()
    }
}
