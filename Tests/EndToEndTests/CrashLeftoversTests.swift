import ForecastModel
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a crash leaves behind is cleaned at the next start, and a failure to save is in the report.
@Suite("Crash leftovers and failed saves", .serialized)
struct CrashLeftoversTests {
    @Test("a crash's temporary files and old unreadable copies are removed at start; the newest three copies stay")
    func leftoversRemoved() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.path + "/state/forecastd"
        let run = directory.path + "/run/forecastd"
        for path in [state, run] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        // A process that ran and is gone: a socket it bound under its temporary name is an orphan.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let leftovers = [
            state + "/.state.json.tmp-Ab12Cd", state + "/.ip-location.json.tmp-Xy34Zw",
            state + "/.notifications.json.tmp-Nn56Pq", run + "/.report.json.tmp-Qq11Rr",
            run + "/.forecastd.sock.\(child.processIdentifier)",
        ]
        let copies = (0..<5).map { state + "/state.json.corrupt-\(1_700_000_000 + $0 * 1000)" }
        for path in leftovers + copies { _ = FileManager.default.createFile(atPath: path, contents: Data("{\"half".utf8)) }

        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                pin: (-34.9011, -56.1645, "Montevideo")),
            in: directory)
        try await daemon.waitForSocket()
        try await daemon.wait(for: "a forecast") { (try? await socketReport(daemon.socketPath))?.current != nil }
        for path in leftovers + copies.prefix(2) {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there")
        }
        for path in copies.suffix(3) {
            #expect(FileManager.default.fileExists(atPath: path), "\(path) was removed")
        }
        #expect(daemon.log.contains("Removed files an interrupted run left behind."))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a state that cannot be saved is a `state` error in the report, gone once a save succeeds; the status file is 0600")
    func failedSaveReported() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                pin: (-34.9011, -56.1645, "Montevideo")),
            in: directory)
        try await daemon.waitForSocket()
        // A directory where state.json should be: the rename of every save fails, even for root. Put there
        // once the first forecast is saved (a directory found there at the start is set aside), then a
        // refresh brings a forecast to save.
        let blocker = directory.path + "/state/forecastd/state.json"
        try await daemon.wait(for: "the first forecast saved") {
            (try? await socketReport(daemon.socketPath))?.current != nil && FileManager.default.fileExists(atPath: blocker)
        }
        while true {
            try? FileManager.default.removeItem(atPath: blocker)
            if mkdir(blocker, 0o700) == 0 { break }
            try #require(errno == EEXIST, "cannot make \(blocker): \(String(cString: strerror(errno)))")
        }
        let first = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), ["refresh", "--config", daemon.configPath],
            environment: DaemonProcess.environment(for: daemon.directory))
        #expect(first.status == 0)
        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the state error in the report") {
            report = try await socketReport(daemon.socketPath)
            return report.current != nil && report.errors.contains { $0.kind == "state" }
        }
        let error = try #require(report.errors.first { $0.kind == "state" })
        #expect(error.message.contains("state.json"))
        #expect(error.since != nil)
        // The status file shows it too, and is as private as the socket.
        try await daemon.wait(for: "the status file with the error") {
            (try? String(contentsOfFile: daemon.statusFilePath, encoding: .utf8))?.contains("\"kind\":\"state\"") == true
        }
        var info = stat()
        #expect(stat(daemon.statusFilePath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)

        // Once the way is clear, the next save (after a refresh) succeeds and the error goes.
        try FileManager.default.removeItem(atPath: blocker)
        let refresh = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), ["refresh", "--config", daemon.configPath],
            environment: DaemonProcess.environment(for: daemon.directory))
        #expect(refresh.status == 0)
        try await daemon.wait(for: "the state error to clear") {
            report = try await socketReport(daemon.socketPath)
            return !report.errors.contains { $0.kind == "state" }
        }
        #expect(FileManager.default.fileExists(atPath: blocker))
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
