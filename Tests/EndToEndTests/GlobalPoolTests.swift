import Control
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon never starts libdispatch's global concurrent pool (docs/ARCHITECTURE.md, "Why a custom executor"):
/// every Swift task runs on NIO's event loops, because the pool's first worker arms a monitor that wakes an idle
/// laptop once a second for as long as the process runs.
///
/// What is checked, precisely: no thread of the daemon ever carries the name of a worker of libdispatch's global
/// *concurrent* root queues, `com.apple.root.<class>-qos` for the six QoS classes, which is where
/// `DispatchQueue.global()` and Swift's default global executor on Linux (an unstructured `Task`, a
/// `Task.detached`, a task group outside an executor preference) run their jobs. libdispatch names each worker
/// after its queue, cut by the kernel to the name's last 15 characters: `oot.default-qos`,
/// `oot.utility-qos`, `.background-qos`, `r-initiated-qos`, .... Workers of the *overcommit* root queues,
/// `-qos.overcommit`, are allowed and expected: libdispatch's manager thread for service-lifecycle's signal
/// sources and the transient workers of GRDB's serial queues and NIO's name lookups; they start no monitor.
///
/// A worker lives about five seconds after its last job, or until the process exits, so a listing of the threads
/// can miss one: the one job async-http-client's `shutdown()` gave the global queue at the daemon's stop started a
/// worker that lived a few milliseconds before the exit, and a listing every 100 ms saw it once in CI and never
/// here. So the daemon runs under `strace -D -f -e trace=prctl`, which records every name a thread gives itself
/// (`prctl(PR_SET_NAME)`, how libdispatch, NIO and our own threads name theirs): on the old code each of 3 stops
/// named an `oot.default-qos` worker. The 100 ms listing of `/proc/PID/task` stays beside it, for a name set any
/// other way. (`-D` keeps the daemon the test's own child, so its PID and signals are the test's as before.)
@Suite("The global concurrent pool", .serialized)
struct GlobalPoolTests {
    /// The kernel's names (comm, 15 bytes) of the global concurrent queues' workers.
    static let globalPoolThreadNames: Set<String> = Set(
        ["maintenance", "background", "utility", "default", "user-initiated", "user-interactive"].map { qos in
            String("com.apple.root.\(qos)-qos".suffix(15))
        })

    /// Every thread name seen in `/proc/PID/task/*/comm`, listed every 100 ms on a thread of its own (it must not
    /// hold the test's executor) until ``stop()``.
    final class ThreadNames: Sendable {
        private let seen = Mutex<Set<String>>([])
        private let running = Atomic<Bool>(true)
        private let done = DispatchSemaphore(value: 0)

        init(pid: Int32) {
            let thread = Thread { [self] in
                while running.load(ordering: .acquiring) {
                    let names = kernelThreads(of: pid).map(\.name)
                    seen.withLock { $0.formUnion(names) }
                    usleep(100_000)
                }
                done.signal()
            }
            thread.start()
        }

        /// Stops listing and returns every name seen.
        func stop() async -> Set<String> {
            running.store(false, ordering: .releasing)
            _ = try? await onOwnThread { [done] in done.wait() }
            return seen.withLock { $0 }
        }
    }

    func request(_ line: String, _ daemon: DaemonProcess) async throws -> ControlAnswer {
        let answer = try await onOwnThread { try ControlClient(socketPath: daemon.socketPath).request(line) }
        return try JSONDecoder().decode(ControlAnswer.self, from: Data(answer.utf8))
    }

    @Test(
        "a day of the daemon (start, forecast, refresh, a live edit, clients, SIGHUP, stop) starts no worker of libdispatch's global concurrent queues",
        .timeLimit(.minutes(3)))
    func noGlobalPool() async throws {
        let server = try await ReplayServer.start()
        defer { Task { try? await server.shutdown() } }
        server.setRoute(
            path: "/forecast",
            ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        let directory = try DaemonProcess.makeDirectory()
        // Auto mode: the static file names the place, gpsd (on a port where nothing listens) is tried and backs off.
        try "53.2\n50.15\n".write(toFile: directory.path + "/geolocation", atomically: true, encoding: .utf8)
        let tracePath = directory.path + "/prctl.trace"
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: 1, openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                staticFile: directory.path + "/geolocation"),
            in: directory,
            wrapper: ["/usr/bin/strace", "-D", "-f", "-q", "--seccomp-bpf", "-e", "trace=prctl", "-o", tracePath])
        defer { daemon.removeDirectory() }
        let names = ThreadNames(pid: daemon.process.processIdentifier)
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the first forecast", timeout: .seconds(30)) {
            try await socketReport(daemon.socketPath).current != nil
        }

        // forecastctl refresh: one more request to the weather service.
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let environment = DaemonProcess.environment(for: daemon.directory)
        let before = server.requestCount(path: "/forecast")
        let refresh = try await runTool(
            forecastctl, ["refresh", "--config", daemon.configPath, "--socket", daemon.socketPath], environment: environment)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(server.requestCount(path: "/forecast") == before + 1)

        // A settings edit applied live, through the file and inotify.
        let edit = try await runTool(
            forecastctl, ["units", "--config", daemon.configPath, "--socket", daemon.socketPath, "wind", "kn"],
            environment: environment)
        #expect(edit.status == 0, "\(edit.stderr)")
        try await daemon.wait(for: "knots in the report", timeout: .seconds(10)) {
            try await socketReport(daemon.socketPath).units.windSpeed == "kn"
        }

        // A few socket clients at once, and one that asks for a change on the socket.
        try await withThrowingTaskGroup(of: String.self) { group in
            for format in ["waybar", "i3blocks", "tmux", "text"] {
                group.addTask {
                    try await onOwnThread {
                        try ControlClient(socketPath: daemon.socketPath).request(#"{"request":"report","format":"\#(format)"}"#)
                    }
                }
            }
            for try await line in group { #expect(!line.isEmpty) }
        }
        let units = try await request("units wind bft", daemon)
        #expect(units.ok, "\(units.message)")

        // SIGHUP reloads.
        kill(daemon.process.processIdentifier, SIGHUP)
        try await daemon.wait(for: "a reload on SIGHUP") { daemon.log.contains("reason=SIGHUP") }
        #expect(try await socketReport(daemon.socketPath).current != nil)

        // Graceful stop (service-lifecycle starts its tasks then too); the listing runs until the process is gone.
        #expect(await daemon.stop() == 0)
        let listed = await names.stop()
        // The tracer writes the daemon's exit last (strace -q keeps the "+++ exited" lines).
        let pid = daemon.process.processIdentifier
        try await daemon.wait(for: "strace's record of the daemon's exit", timeout: .seconds(30)) {
            Self.traceText(tracePath).split(separator: "\n").contains { line in
                // `PID +++ exited with N +++`, the PID padded to five columns.
                line.split(separator: " ").first == "\(pid)" && line.contains("+++ exited with")
            }
        }
        let named = Self.namesSet(in: Self.traceText(tracePath))
        // The trace did record the daemon's own threads naming themselves (a trace of nothing would prove nothing).
        #expect(named.contains("fd-waiter") && named.contains("blocking0"), "names in the trace: \(named.sorted())")
        let seen = listed.union(named)
        let global = seen.intersection(Self.globalPoolThreadNames)
        #expect(global.isEmpty, "workers of the global concurrent pool: \(global.sorted()); all threads seen: \(seen.sorted())")
        // The listing did see the daemon's own threads (a listing that saw nothing would prove nothing).
        #expect(listed.contains("fd-waiter") && listed.contains("blocking0"), "threads listed: \(listed.sorted())")
    }

    static func traceText(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The names in strace's lines `TID prctl(PR_SET_NAME, "name"...) = 0`.
    static func namesSet(in trace: String) -> Set<String> {
        var names: Set<String> = []
        for line in trace.split(separator: "\n") {
            guard let start = line.range(of: "PR_SET_NAME, \"") else { continue }
            let rest = line[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { continue }
            names.insert(String(rest[..<end]))
        }
        return names
    }
}
