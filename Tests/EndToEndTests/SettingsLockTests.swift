import Control
import ForecastModel
import Rendering
import Foundation
import TestSupport
import Testing

/// A settings edit waits for the settings directory's lock (another `forecastctl` edit may hold it); the
/// socket keeps answering meanwhile.
@Suite("A held settings lock", .serialized, .timeLimit(.minutes(3)))
struct SettingsLockTests {
    @Test("does not stall the socket: reports answer while a units request waits for the lock, which then applies")
    func heldLockDoesNotStallTheSocket() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }

        // Another editor holds the lock of the settings directory (what SettingsFileEditor flocks) for 60 s.
        let directory = (daemon.configPath as NSString).deletingLastPathComponent
        let held = directory + "/.lock-held"
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
                + "open(sys.argv[2], 'w').close(); time.sleep(60)",
            directory, held,
        ]
        try holder.run()
        // SIGKILL: a child of the test process may inherit SIGTERM blocked.
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        try await daemon.wait(for: "the lock to be held") { FileManager.default.fileExists(atPath: held) }

        // A units request, which waits for the lock.
        let socketPath = daemon.socketPath
        let units = Task {
            try await onOwnThread { try ControlClient(socketPath: socketPath, timeout: .seconds(120)).request("units imperial") }
        }
        try await daemon.wait(for: "the edit to wait for the lock", timeout: .seconds(10)) {
            // The request has reached the daemon once `status` counts a second connection besides its own.
            let status = try await onOwnThread { try ControlClient(socketPath: socketPath).request("status") }
            return status.contains("\"clients\":2")
        }

        // Meanwhile other clients are answered. The bound is ten seconds against a lock held sixty: with the
        // edit on an event loop, a client whose connection lands on that loop waits for the whole lock.
        for _ in 0..<6 {
            let line = try await onOwnThread {
                try ControlClient(socketPath: socketPath, timeout: .seconds(10)).request("report")
            }
            #expect(try ReportJSON.decode(line).units.system == "metric")
        }
        #expect(holder.isRunning, "the lock was held throughout")

        // Released, the edit goes through.
        kill(holder.processIdentifier, SIGKILL)
        let answer = try await units.value
        #expect(answer.contains("imperial"), "\(answer)")
        try await daemon.wait(for: "units imperial", timeout: .seconds(10)) {
            try await socketReport(socketPath).units.system == "imperial"
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
