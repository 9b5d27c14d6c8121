import Control
import ControlServer
import DaemonState
import ForecastModel
import Foundation
import Logging
import Settings
import Rendering
import ServiceLifecycle
import ServiceLifecycleTestKit
import TestSupport
import Testing

// Under `.onEventLoops` the test's task runs on an event loop that may be the server's: every blocking client
// (a raw socket, `ControlClient`, socat's pipes) runs on a thread of its own (`onOwnThread`).
@Suite("Socket service", .serialized, .onEventLoops)
struct SocketServiceTests {
    func withServer(
        options: SocketService.Options = SocketService.Options(maxClients: 64), directoryMode: Int? = nil,
        _ body: (String, ForecastState) async throws -> Void
    ) async throws {
        let directory = "/tmp/fd-sock-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if let directoryMode {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, mode_t(directoryMode))
        }
        let path = directory + "/forecastd.sock"
        let state = ForecastState(
            settings: .pinnedInAdelboden(directory: directory), places: nil, logger: Logger(label: "test"))
        await state.tick()
        let service = SocketService(path: path, state: state, logger: Logger(label: "test"), options: options)
        // Stopped the way the daemon stops it: by graceful shutdown, as on SIGTERM.
        try await testGracefulShutdown { shutdown in
            try await withThrowingTaskGroup { group in
                group.addTask { try await service.run() }
                let deadline = ContinuousClock.now.advanced(by: .seconds(10))
                while !FileManager.default.fileExists(atPath: path), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                do {
                    try await body(path, state)
                } catch {
                    shutdown.triggerGracefulShutdown()
                    throw error
                }
                shutdown.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed at exit")
    }

    /// What one client saw in a scripted conversation.
    struct Conversation: Sendable {
        var greetingProto: Int?
        var greetingClass: String?
        var report = ""
        var afterBlankAndCase = ""
        var unknown = ""
        var afterUnknown = ""
        var oversized = ""
        var closedAfterOversized = false
        var otherClient = ""
    }

    @Test("greeting, report, errors for unknown and oversized requests")
    func protocolBasics() async throws {
        try await withServer { path, state in
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

            let seen = try await onOwnThread {
                var seen = Conversation()
                let client = try ControlClient(socketPath: path)
                seen.greetingProto = client.greeting?.proto
                seen.greetingClass = client.greeting?.class
                seen.report = try client.request("report")
                // Case and surrounding blanks do not matter; blank lines are ignored.
                try client.send("")
                seen.afterBlankAndCase = try client.request("  REPORT ")
                seen.unknown = try client.request("weather please")
                seen.afterUnknown = try client.request("report")
                try client.send(String(repeating: "x", count: 5000))
                seen.oversized = try client.readLine()
                do {
                    _ = try client.readLine()
                } catch {
                    seen.closedAfterOversized = true
                }
                seen.otherClient = try ControlClient(socketPath: path).request("report")
                return seen
            }
            let expected = ReportJSON.line(await state.report)
            #expect(seen.greetingProto == 1)
            #expect(seen.greetingClass == "VERSION")
            #expect(seen.report == expected)
            #expect(try ReportJSON.decode(seen.report).location?.source == "pinned")
            #expect(seen.afterBlankAndCase == expected)
            #expect(seen.unknown.contains("\"class\":\"ERROR\""))
            #expect(seen.unknown.contains("allowed: report, watch, refresh, status"))
            // The connection survives an unknown request.
            #expect(seen.afterUnknown == expected)
            #expect(seen.oversized.contains("longer than 1 KiB") && seen.oversized.contains("\"closed\":true"))
            #expect(seen.closedAfterOversized)
            // Other clients are unaffected.
            #expect(seen.otherClient == expected)
        }
    }

    @Test("a client that sends its request and closes its side still gets the answer (echo report | socat)")
    func halfClose() async throws {
        try await withServer { path, state in
            // socat and its pipes block: on a thread of their own, not on the loop the server may answer on.
            let data = try await onOwnThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
                process.arguments = ["-t", "5", "-", "UNIX-CONNECT:\(path)"]
                let input = Pipe()
                let output = Pipe()
                process.standardInput = input
                process.standardOutput = output
                try process.run()
                input.fileHandleForWriting.write(Data("report\n".utf8))
                try input.fileHandleForWriting.close()
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return data
            }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines.first?.contains("\"VERSION\"") == true)
            #expect(lines.last == ReportJSON.line(await state.report))
        }
    }

    @Test("clients that vanish mid-answer or never read do not disturb the server")
    func misbehavingClients() async throws {
        try await withServer { path, _ in
            // Twenty clients, one after the other, that ask three times and close before reading a byte.
            try await onOwnThread {
                for _ in 0..<20 {
                    let fd = try connectedUnixSocket(path)
                    _ = "report\nreport\nreport\n".withCString { send(fd, $0, 21, Int32(MSG_NOSIGNAL)) }
                    close(fd)
                }
            }
            let line = try await onOwnThread { try ControlClient(socketPath: path).request("report") }
            #expect(line.contains("\"schema\":1"))
        }
    }
}

extension Settings {
    /// Pinned in Adelboden with every position source off (nothing to ask, nothing fetched), the status file
    /// and the socket in `directory`.
    static func pinnedInAdelboden(directory: String) -> Settings {
        var settings = Settings.defaults(isSystemService: false)
        settings.location.mode = .pinned
        settings.location.pin = Pin(coordinate: Coordinate(latitude: 46.4983, longitude: 7.5674), name: "Adelboden")
        settings.location.gpsd.enabled = false
        settings.location.gpsd.recentFixMinutes = 0
        settings.location.staticFile = nil
        settings.location.ip.enabled = false
        settings.output.statusFile = directory + "/report.json"
        settings.output.socket = directory + "/forecastd.sock"
        return settings
    }
}
