import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real gpsd fed by gpsfake from a recorded receiver log, listening on a port of its own.
///
/// gpsfake (Debian's gpsd-clients) runs under `/usr/bin/python3` in its own session, with `TMPDIR` set to a
/// folder of its own (gpsd leaves its control socket there), and replays the log in a loop:
/// `gpsfake -q -n -c CYCLE -P PORT LOG`. ``start(log:port:cycle:)`` returns once gpsd accepts connections and
/// lists the fake receiver among its devices.
///
/// gpsfake adds its receiver through gpsd's control socket as soon as the socket's file exists, and if gpsd has
/// bound it but not yet called listen(2) the connection is refused and gpsfake goes on silently: gpsd then runs
/// with no device at all and never reports a fix. A gpsd preempted between the two calls on a loaded machine did
/// that in CI (reproduced by delaying gpsd's listen with `strace -e inject=listen:delay_enter=700000`). So
/// ``start(log:port:cycle:)`` asks gpsd for its devices (`?DEVICES;`) and starts gpsfake afresh when the receiver
/// never appears.
///
/// Stopping sends SIGTERM to gpsd, not to gpsfake (whose own signal handler can spin forever); gpsfake then
/// exits by itself, and the process group is killed only as a last resort. `deinit` stops it too, so a failing
/// test leaves nothing running; ``withGPSFake(log:port:cycle:_:)`` makes the scope explicit.
///
/// Starting and stopping wait for processes. From async code the `async` overloads do that waiting on a
/// thread of their own; the synchronous ones block the caller (fine in `defer` and `deinit`).
public final class GPSFake: @unchecked Sendable {
    /// Why gpsfake could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// gpsd's TCP port on the loopback interface.
    public let port: Int
    /// The receiver log being replayed.
    public let log: URL
    /// The folder given to gpsfake as `TMPDIR`; removed when this object goes away.
    public let directory: URL

    // `lock` guards `process`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var process: Process?

    private init(port: Int, log: URL, directory: URL, process: Process) {
        self.port = port
        self.log = log
        self.directory = directory
        self.process = process
    }

    deinit {
        stop()
    }

    /// How many times ``start(log:port:cycle:)`` starts gpsfake before it gives up on gpsd ever listing the receiver.
    private static let attempts = 3
    /// How long gpsd may take to list the receiver once it accepts connections: about a second when all is well.
    private static let deviceTimeout: TimeInterval = 8

    /// Starts gpsfake replaying `log` and waits until gpsd accepts connections on `port` (up to 10 s) and lists the
    /// receiver (up to 8 s; gpsfake is started again, up to three times in all, when it does not).
    ///
    /// - Parameters:
    ///   - port: the port for gpsd; a free one is picked when nil. Pass an old instance's port to bring gpsd
    ///     back on the same port after ``killGPSD()``.
    ///   - cycle: seconds between sentences (`-c`). 0.1 suits short logs; long logs whose first fix comes late
    ///     need less.
    public static func start(log: URL, port: Int? = nil, cycle: Double = 0.1) throws -> GPSFake {
        let port = try port ?? freePort()
        for attempt in 1...attempts {
            let fake = try launch(log: log, port: port, cycle: cycle)
            let deadline = Date(timeIntervalSinceNow: deviceTimeout)
            while Date() < deadline {
                if listsADevice(port: port) { return fake }
                usleep(50_000)
            }
            let said = fake.output
            fake.stop()
            if attempt == attempts {
                throw StartError(
                    description: "gpsd on port \(port) listed no device within \(Int(deviceTimeout)) s of accepting "
                        + "connections, \(attempts) times: gpsfake could not add \(log.lastPathComponent); it said: "
                        + (said.isEmpty ? "nothing" : said))
            }
        }
        preconditionFailure("the loop above returns or throws")
    }

    /// Starts gpsfake once and waits (up to 10 s) until gpsd accepts connections on `port`.
    private static func launch(log: URL, port: Int, cycle: Double) throws -> GPSFake {
        let gpsfake = "/usr/bin/gpsfake"
        let python = "/usr/bin/python3"
        let setsid = "/usr/bin/setsid"
        for tool in [gpsfake, python, setsid] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw StartError(
                description: "\(tool) is missing: install the Debian packages gpsd, gpsd-clients and python3-gps")
        }
        guard FileManager.default.fileExists(atPath: log.path) else {
            throw StartError(description: "gpsfake: the receiver log \(log.path) does not exist")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gpsfake-\(port)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outputURL = directory.appendingPathComponent("gpsfake.out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: setsid)
        // -w keeps setsid as the parent we can wait for: it forks, because Process makes it a group leader.
        // Process passes on the spawning thread's signal mask, and Swift's worker threads block nearly every
        // signal: gpsd would then never see SIGTERM. So python unblocks them before it becomes gpsfake.
        process.arguments = [
            "-w", python, "-c", Self.unblockSignalsAndExec,
            gpsfake, "-q", "-n", "-c", String(cycle), "-P", String(port), log.path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = directory.path
        // gpsfake looks gpsd up on PATH (/usr/sbin), and a python3 earlier on PATH may lack the gps module.
        environment["PATH"] = "/usr/bin:/usr/sbin:/bin:/sbin"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()

        let fake = GPSFake(port: port, log: log, directory: directory, process: process)
        let deadline = Date(timeIntervalSinceNow: 10)
        while !Self.acceptsConnections(port: port) {
            let exited = !process.isRunning
            if exited || Date() > deadline {
                let said = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
                fake.stop()
                throw StartError(
                    description: "gpsfake on port \(port) with \(log.lastPathComponent) "
                        + (exited ? "exited early" : "did not start gpsd within 10 s")
                        + "; it said: \(said.isEmpty ? "nothing" : said)")
            }
            usleep(50_000)
        }
        return fake
    }

    /// ``start(log:port:cycle:)`` for async code: the waiting happens on a thread of its own, so parallel tests
    /// do not starve the Swift concurrency pool (which has one thread per core).
    public static func start(log: URL, port: Int? = nil, cycle: Double = 0.1) async throws -> GPSFake {
        try await onOwnThread { try start(log: log, port: port, cycle: cycle) }
    }

    /// ``stop()`` for async code, waiting on a thread of its own.
    public func stop() async {
        _ = try? await onOwnThread { self.stop() }
    }

    /// ``killGPSD()`` for async code, waiting on a thread of its own.
    public func killGPSD() async {
        _ = try? await onOwnThread { self.killGPSD() }
    }

    /// `python3 -c` code that clears the inherited signal mask, then runs `argv[1:]` under the same python.
    private static let unblockSignalsAndExec = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.execv(sys.executable, [sys.executable] + sys.argv[1:])
        """

    /// What gpsfake and gpsd have printed so far, for failure messages.
    public var output: String {
        (try? String(contentsOf: directory.appendingPathComponent("gpsfake.out"), encoding: .utf8)) ?? ""
    }

    /// The pid of the gpsd that gpsfake started, while it runs.
    public var gpsdPID: pid_t? {
        lock.withLock { process.flatMap { Self.descendants(of: $0.processIdentifier, named: "gpsd").first } }
    }

    /// Kills gpsd abruptly, as a crash would, and waits until its port is closed. gpsfake exits by itself.
    public func killGPSD() {
        lock.withLock {
            guard let process else { return }
            for pid in Self.descendants(of: process.processIdentifier, named: "gpsd") { kill(pid, SIGKILL) }
            let deadline = Date(timeIntervalSinceNow: 5)
            while Self.acceptsConnections(port: port) && Date() < deadline { usleep(20_000) }
        }
    }

    /// Stops gpsd and gpsfake, waits for them to exit and removes ``directory``. Safe to call more than once.
    public func stop() {
        lock.withLock {
            guard let process else { return }
            self.process = nil
            defer { try? FileManager.default.removeItem(at: directory) }
            let root = process.processIdentifier
            for pid in Self.descendants(of: root, named: "gpsd") { kill(pid, SIGTERM) }
            if Self.waitForExit(process, seconds: 5) { return }
            // Last resort: gpsfake leads its own session and process group, which holds gpsd as well.
            for pid in Self.descendants(of: root, named: nil) {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            kill(root, SIGKILL)
            _ = Self.waitForExit(process, seconds: 2)
        }
    }

    // MARK: Ports

    private static let portLock = NSLock()
    nonisolated(unsafe) private static var handedOut: Set<Int> = []

    /// A TCP port on the loopback interface that nothing listens on and that no other caller in this process
    /// has been given. Picked at random below Linux's ephemeral range, so outgoing connections cannot take it.
    public static func freePort() throws -> Int {
        try portLock.withLock {
            for _ in 0..<200 {
                let candidate = Int.random(in: 20_000..<32_000)
                if handedOut.contains(candidate) || !canBind(port: candidate) { continue }
                handedOut.insert(candidate)
                return candidate
            }
            throw StartError(description: "found no free TCP port in 20000..<32000 on 127.0.0.1 after 200 tries")
        }
    }

    private static func canBind(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether gpsd on 127.0.0.1:`port` lists at least one device in its answer to `?DEVICES;`.
    static func listsADevice(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // gpsd answers at once; the timeout only keeps a wedged gpsd from holding the test.
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let request = Array("?DEVICES;\n".utf8)
        guard connected, send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        // gpsd greets with VERSION, then answers with one DEVICES line.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65_536 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            received += buffer[..<count]
            for line in received.split(separator: UInt8(ascii: "\n")) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    object["class"] as? String == "DEVICES"
                else { continue }
                return !((object["devices"] as? [Any]) ?? []).isEmpty
            }
        }
        return false
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    // MARK: Processes

    private static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// Descendants of `root` (children first), optionally only those whose command name is `name`, from /proc.
    private static func descendants(of root: pid_t, named name: String?) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        var names: [pid_t: String] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid …": comm may itself hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { continue }
            children[parent, default: []].append(pid)
            names[pid] = String(stat[stat.index(after: open)..<close])
        }
        var found: [pid_t] = []
        var queue = children[root] ?? []
        while !queue.isEmpty {
            let pid = queue.removeFirst()
            found.append(pid)
            queue += children[pid] ?? []
        }
        guard let name else { return found }
        return found.filter { names[$0] == name }
    }
}

/// Runs `body` with gpsfake replaying `log`, and stops gpsd and gpsfake afterwards even when `body` throws.
public func withGPSFake<T>(
    log: URL, port: Int? = nil, cycle: Double = 0.1, _ body: (GPSFake) async throws -> T
) async throws -> T {
    let fake = try await GPSFake.start(log: log, port: port, cycle: cycle)
    do {
        let result = try await body(fake)
        await fake.stop()
        return result
    } catch {
        await fake.stop()
        throw error
    }
}
