import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private D-Bus daemon for one test: `dbus-daemon --nofork --print-address` with a configuration of its own,
/// listening on a socket in a folder the test owns. It plays a session bus or, for clients of system services
/// (NetworkManager, GeoClue), the system bus: a program under test finds it through `DBUS_SESSION_BUS_ADDRESS` or
/// `DBUS_SYSTEM_BUS_ADDRESS` (``environmentVariable``).
///
/// The configuration has no service directories but the test's own, so nothing installed on the
/// machine (a real notification daemon, say) can be started on it: a service exists on this bus only if the test
/// starts it, or gives the bus a command to start it with (D-Bus activation, as dunst and mako are started).
/// ``start(in:)`` returns once the daemon has printed its address, which it does once it listens.
///
/// ``stop()`` kills the daemon (SIGKILL: a test bus has nothing to save, and the signal cannot be blocked) and waits
/// for it; `deinit` stops it too, so a failing test leaves nothing running.
public final class PrivateDBusDaemon: @unchecked Sendable {
    /// Why the daemon could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The daemon's address, as it printed it (`unix:path=…/bus,guid=…`).
    public let address: String
    /// The folder holding the socket and the configuration.
    public let directory: URL
    /// Which bus it plays.
    public let kind: Kind

    /// The bus a private daemon plays.
    public enum Kind: String, Sendable {
        case session
        case system
    }

    /// The variable through which a client finds this bus.
    public var environmentVariable: String {
        kind == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS"
    }

    // `lock` guards `process`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var process: Process?
    private let exit: ProcessExit

    private init(address: String, directory: URL, kind: Kind, process: Process, exit: ProcessExit) {
        self.address = address
        self.directory = directory
        self.kind = kind
        self.process = process
        self.exit = exit
    }

    deinit {
        stop()
    }

    /// The socket the daemon listens on.
    public var socketPath: String { directory.appendingPathComponent("bus").path }

    /// The daemon's process ID while it runs.
    public var pid: pid_t? { lock.withLock { process?.processIdentifier } }

    /// Starts a daemon listening on `directory/bus` and waits (up to 10 s) until it has printed its address. A stale
    /// socket left there by an earlier daemon is removed first, so a test can bring a bus back at the same address.
    ///
    /// - Parameters:
    ///   - activatable: bus names the daemon may start on demand, each with its command line (the `Exec` of a
    ///     D-Bus service file).
    ///   - kind: the bus it plays (its configuration's `<type>`).
    public static func start(in directory: URL, activatable: [String: String] = [:], kind: Kind = .session) throws
        -> PrivateDBusDaemon
    {
        let executable = "/usr/bin/dbus-daemon"
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw StartError(description: "\(executable) is missing: install the Debian package dbus-daemon")
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw StartError(description: "\(python) is missing: install the Debian package python3")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus")
        try? FileManager.default.removeItem(at: socket)
        let configuration = directory.appendingPathComponent("bus.conf")
        let services = directory.appendingPathComponent("services")
        try? FileManager.default.removeItem(at: services)
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        for (name, command) in activatable {
            try "[D-BUS Service]\nName=\(name)\nExec=\(command)\n"
                .write(to: services.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
        }
        try Self.configuration(socket: socket.path, services: services.path, kind: kind)
            .write(to: configuration, atomically: true, encoding: .utf8)

        let output = Pipe()
        let errors = directory.appendingPathComponent("dbus-daemon.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer { try? errorHandle.close() }

        let process = Process()
        // Process passes on the spawning thread's signal mask, and Swift's threads block nearly every signal: a
        // dbus-daemon that never sees SIGCHLD never learns that a service it started has died, and leaves the
        // caller waiting. So python clears the mask, then becomes dbus-daemon (same process, same pid).
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c", Self.unblockSignalsAndExec,
            executable, "--config-file=\(configuration.path)", "--nofork", "--print-address",
        ]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errorHandle
        let exit = ProcessExit()
        process.terminationHandler = { _ in exit.signal() }
        try process.run()
        try? output.fileHandleForWriting.close()

        let line = readLine(from: output.fileHandleForReading.fileDescriptor, seconds: 10)
        try? output.fileHandleForReading.close()
        guard let address = line, !address.isEmpty else {
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            kill(process.processIdentifier, SIGKILL)
            exit.wait()
            throw StartError(
                description: "dbus-daemon in \(directory.path) printed no address within 10 s; it said: "
                    + (said.isEmpty ? "nothing" : said))
        }
        return PrivateDBusDaemon(address: address, directory: directory, kind: kind, process: process, exit: exit)
    }

    /// ``start(in:)`` for async code: the waiting happens on a thread of its own.
    public static func start(in directory: URL, activatable: [String: String] = [:], kind: Kind = .session)
        async throws -> PrivateDBusDaemon
    {
        try await onOwnThread { try start(in: directory, activatable: activatable, kind: kind) }
    }

    /// Kills the daemon and waits for it to exit. Every client connection breaks. Safe to call more than once.
    public func stop() {
        lock.withLock {
            guard let process else { return }
            self.process = nil
            kill(process.processIdentifier, SIGKILL)
            exit.wait()
        }
    }

    /// ``stop()`` for async code, waiting on a thread of its own.
    public func stop() async {
        _ = try? await onOwnThread { self.stop() }
    }

    /// `python3 -c` code that clears the inherited signal mask, then runs `argv[1:]`. (GPSFake does the same for
    /// gpsfake, with python staying in charge; MosquittoBroker uses this one.)
    static let unblockSignalsAndExec = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.execv(sys.argv[1], sys.argv[1:])
        """

    private static func configuration(socket: String, services: String, kind: Kind) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>\(kind.rawValue)</type>
          <listen>unix:path=\(socket)</listen>
          <servicedir>\(services)</servicedir>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// Reads one line from `descriptor`, waiting in poll() for at most `seconds` overall; nil on timeout or EOF.
    private static func readLine(from descriptor: Int32, seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: bytes[..<newline], as: UTF8.self)
            }
        }
    }
}

/// A folder of its own for one test, removed afterwards.
public func withTemporaryDirectory<T>(_ prefix: String, _ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a private bus in a temporary folder of its own, and kills the bus afterwards even when `body`
/// throws.
public func withPrivateBus<T>(
    activatable: [String: String] = [:], kind: PrivateDBusDaemon.Kind = .session,
    _ body: (PrivateDBusDaemon) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory("dbus") { directory in
        let bus = try await PrivateDBusDaemon.start(in: directory, activatable: activatable, kind: kind)
        do {
            let result = try await body(bus)
            await bus.stop()
            return result
        } catch {
            await bus.stop()
            throw error
        }
    }
}
