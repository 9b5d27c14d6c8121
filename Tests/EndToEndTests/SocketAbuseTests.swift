import Control
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that come and go, hold places without asking anything, or fill the table, against the
/// built daemon on its real socket (issue 16, items 3 and 5).
@Suite("Socket abuse", .serialized)
struct SocketAbuseTests {
    /// A pinned daemon without a provider (nothing to fetch), with `max_clients` as given.
    func startDaemon(maxClients: Int) async throws -> DaemonProcess {
        let directory = try DaemonProcess.makeDirectory()
        let run = directory.path + "/run/forecastd"
        let config =
            settingsText(
                gpsdPort: nil, openMeteoURL: URL(string: "http://127.0.0.1:\(try closedPort())/forecast")!,
                pin: (46.4983, 7.5674, "Adelboden"), mode: "pinned",
                output: (statusFile: run + "/report.json", socket: run + "/forecastd.sock"))
            + "max_clients = \(maxClients)\n"
        // A silent connection is closed after 3 s rather than the real 5 (`FORECASTD_TEST_INTERVALS`): long
        // enough that the table is still full of them when the test's own client comes on a loaded machine.
        let daemon = try DaemonProcess.start(
            config: config, in: directory, environment: DaemonProcess.shortenedWaits(["first_request": .seconds(3)]))
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the status file") { FileManager.default.fileExists(atPath: daemon.statusFilePath) }
        return daemon
    }

    func status(_ path: String) async throws -> DaemonStatus {
        let line = try await onOwnThread { try ControlClient(socketPath: path).request("status") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(DaemonStatus.self, from: Data(line.utf8))
    }

    @Test("thousands of watch-then-close clients: the limit holds while they come, and none is left counted after")
    func watchChurn() async throws {
        let daemon = try await startDaemon(maxClients: 8)
        defer { daemon.removeDirectory() }
        let path = daemon.socketPath
        // 24 threads, each connecting, asking `watch` and leaving at once, 3,000 times in all, while
        // `status` is asked all along.
        let left = Counter(3000)
        let churn = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        _ = try? await onOwnThread {
                            while left.take() { blindWatch(path) }
                        }
                    }
                }
            }
        }
        var seen: [DaemonStatus] = []
        while !churn.isCancelled, left.remaining > 0 {
            if let answer = try? await status(path) { seen.append(answer) }
        }
        await churn.value
        #expect(!seen.isEmpty)
        for answer in seen {
            // The `status` client itself is one of them.
            #expect(answer.clients <= 8 && answer.watchers <= answer.clients, "\(answer.clients) clients, \(answer.watchers) watchers")
        }
        // Each closed watcher is gone at once, not at the next report (there is none to come here).
        try await daemon.wait(for: "no watcher left", timeout: .seconds(5)) {
            let now = try await status(path)
            return now.watchers == 0 && now.clients == 1
        }
        #expect(await daemon.stop() == 0)
    }

    @Test("watchers that read their report and close are not counted by a status asked right after (issue 28)")
    func statusRightAfterWatchersLeave() async throws {
        let daemon = try await startDaemon(maxClients: 16)
        defer { daemon.removeDirectory() }
        let path = daemon.socketPath
        var wrong: [String] = []
        for round in 0..<100 {
            // Four at a time, each reading the greeting and its first report, then closing; `status` at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await onOwnThread {
                            let watcher = try RawConnection(path)
                            _ = try watcher.readLine()
                            try watcher.send("watch format=waybar")
                            _ = try watcher.readLine()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let now = try await status(path)
            if now.watchers != 0 || now.clients != 1 { wrong.append("round \(round): \(now.clients) clients, \(now.watchers) watchers") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(await daemon.stop() == 0)
    }

    @Test("silent connections cannot lock the owner out: the table makes room, and they are closed after a while")
    func silentConnections() async throws {
        let daemon = try await startDaemon(maxClients: 4)
        defer { daemon.removeDirectory() }
        let silent = try (0..<4).map { _ in try RawConnection(daemon.socketPath) }
        for connection in silent { _ = try connection.readLine() }  // greetings: all four admitted
        // The table is full of connections that asked nothing: a real client still gets its answer.
        let report = try await onOwnThread { try ControlClient(socketPath: daemon.socketPath).request("report") }
        #expect(report.contains("\"schema\""))
        // The oldest silent one made room, and was told why.
        #expect(try silent[0].readLine().contains("closed to make room"))
        // The others are closed once they have sent nothing for the (shortened) 3 s, with a reason.
        let reason = try await onOwnThread { try silent[3].readLine(timeout: 10) }
        #expect(reason.contains("no request within 3 s") && reason.contains("\"closed\":true"), "\(reason)")
        #expect(try await status(daemon.socketPath).clients == 1)
        #expect(await daemon.stop() == 0)
    }

    @Test("forecastctl status falls back on the status file when the daemon refuses it (no place left)")
    func statusFallsBackWhenRefused() async throws {
        let daemon = try await startDaemon(maxClients: 1)
        defer { daemon.removeDirectory() }
        // One watcher holds the only place; it asked something, so it does not make room.
        let watcher = try RawConnection(daemon.socketPath)
        _ = try watcher.readLine()
        try watcher.send("watch")
        _ = try watcher.readLine()
        let ctl = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"),
            ["status", "--json", "--config", daemon.configPath], environment: DaemonProcess.environment(for: daemon.directory))
        #expect(ctl.status == 0, "\(ctl.stderr)")
        #expect(ctl.stdout.contains("\"schema\""))
        #expect(ctl.stderr.contains("too many clients") && ctl.stderr.contains("showing the last report"), "\(ctl.stderr)")
        withExtendedLifetime(watcher) {}
        #expect(await daemon.stop() == 0)
    }
}

/// A countdown shared by threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int
    init(_ value: Int) { self.value = value }
    func take() -> Bool {
        lock.withLock {
            guard value > 0 else { return false }
            value -= 1
            return true
        }
    }
    var remaining: Int { lock.withLock { value } }
}

/// Connects, asks `watch` without reading anything, and closes.
func blindWatch(_ path: String) {
    guard let connection = try? RawConnection(path) else { return }
    try? connection.send("watch format=waybar")
}

/// A plain blocking Unix socket client that can be made to misbehave.
final class RawConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(_ path: String) throws {
        fd = try connectedUnixSocket(path)
    }

    deinit { close(fd) }

    func send(_ line: String) throws {
        let sent = (line + "\n").withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        guard sent >= 0 else { throw TestFailure("send failed: \(String(cString: strerror(errno)))") }
    }

    /// The next line, or an error when the connection closes first or nothing comes in time.
    func readLine(timeout seconds: Int32 = 5) throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, seconds * 1000) == 1 else { throw TestFailure("no line within \(seconds) s") }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { throw TestFailure("the connection closed") }
            buffer += chunk[..<count]
        }
    }
}
