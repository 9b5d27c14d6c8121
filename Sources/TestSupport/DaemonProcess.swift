import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The real `forecastd` binary running as a child process in a private directory, for end-to-end tests.
///
/// Every path the daemon uses (settings, runtime files, state, home) lives under ``directory``, so
/// tests run in parallel and never touch the user's files.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: URL
    public let configPath: String
    public let process: Process
    private let logPath: String

    /// Where the daemon puts its socket and status file unless the settings say otherwise.
    public var socketPath: String { directory.path + "/run/forecastd/forecastd.sock" }
    public var statusFilePath: String { directory.path + "/run/forecastd/report.json" }

    /// The directory holding the built executables (`forecastd`, `forecastctl`): the test bundle's own
    /// directory under `.build`, or `$FORECASTD_BIN_DIR`.
    public static var binDirectory: URL {
        if let explicit = ProcessInfo.processInfo.environment["FORECASTD_BIN_DIR"] {
            return URL(fileURLWithPath: explicit)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The environment a daemon or forecastctl gets in a test: private XDG directories, nothing inherited
    /// that could point at the user's files.
    public static func environment(for directory: URL) -> [String: String] {
        [
            "HOME": directory.path + "/home",
            "XDG_RUNTIME_DIR": directory.path + "/run",
            "XDG_CONFIG_HOME": directory.path + "/config",
            "XDG_STATE_HOME": directory.path + "/state",
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            // Tests that run on the built-in defaults must not ask a real IP or Wi-Fi geolocation service.
            "FORECASTD_IP_GEOLOCATION": "off",
            "FORECASTD_WIFI_GEOLOCATION": "off",
            // Nor the machine's system bus (NetworkManager, GeoClue): a test that wants one starts its own.
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + directory.path + "/no-system-bus",
        ]
    }

    /// The environment that shortens the daemon's fixed waits for a test, e.g. `["user_refresh": .seconds(3)]`:
    /// `FORECASTD_TEST_INTERVALS` (test-only; the names and limits are `DaemonIntervals`', docs/ARCHITECTURE.md
    /// "Time in tests"), so a test sees a wait end instead of sleeping through the real one.
    public static func shortenedWaits(_ waits: KeyValuePairs<String, Duration>) -> [String: String] {
        let items = waits.map { name, wait in
            let (seconds, attoseconds) = wait.components
            return "\(name)=\(Double(seconds) + Double(attoseconds) / 1e18)"
        }
        return ["FORECASTD_TEST_INTERVALS": items.joined(separator: ",")]
    }

    /// Makes a fresh private directory for one test.
    public static func makeDirectory() throws -> URL {
        // Short paths: a Unix socket path must fit in 108 bytes.
        let path = "/tmp/fd-e2e-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let url = URL(fileURLWithPath: path)
        for sub in ["home", "run", "config", "state"] {
            try FileManager.default.createDirectory(
                at: url.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return url
    }

    /// Starts `forecastd --config <directory>/forecastd.toml` with `config` as the file's text
    /// (no file at all when `config` is nil: the built-in defaults).
    ///
    /// - Parameters:
    ///   - environment: variables added to the test environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`).
    ///   - activatedOn: a socket path for `systemd-socket-activate`, which listens there and starts the
    ///     daemon, with the listening socket passed (`LISTEN_FDS`), when the first client connects.
    ///   - wrapper: a command the daemon runs under (`ip netns exec NAME`), its arguments first.
    public static func start(
        config: String?, in existing: URL? = nil, arguments: [String] = [], logLevel: String = "debug",
        environment extra: [String: String] = [:], activatedOn activationSocket: String? = nil,
        wrapper: [String] = []
    ) throws -> DaemonProcess {
        let directory = try existing ?? makeDirectory()
        let configPath = directory.path + "/forecastd.toml"
        if let config {
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        }
        let logPath = directory.path + "/forecastd-\(UInt16.random(in: 0...UInt16.max)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        let daemon = binDirectory.appendingPathComponent("forecastd")
        let daemonArguments = (config != nil ? ["--config", configPath] : []) + ["--log-level", logLevel] + arguments
        if let activationSocket {
            // The activator gives the daemon only the variables named with --setenv (and
            // LISTEN_PID/FDS/FDNAMES): name every one, or the daemon would run on system paths.
            let variables = environment(for: directory).merging(extra) { $1 }.sorted { $0.key < $1.key }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
            process.arguments =
                ["--listen=\(activationSocket)", "--fdname=forecastd.socket"] + variables.map { "--setenv=\($0.key)=\($0.value)" }
                + [daemon.path] + daemonArguments
        } else if let command = wrapper.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(wrapper.dropFirst()) + [daemon.path] + daemonArguments
        } else {
            process.executableURL = daemon
            process.arguments = daemonArguments
        }
        process.environment = environment(for: directory).merging(extra) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        return DaemonProcess(directory: directory, configPath: configPath, process: process, logPath: logPath)
    }

    private init(directory: URL, configPath: String, process: Process, logPath: String) {
        self.directory = directory
        self.configPath = configPath
        self.process = process
        self.logPath = logPath
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Everything the daemon logged so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    public var isRunning: Bool { process.isRunning }

    /// Waits until `condition` holds, polling every 50 ms; throws with the daemon's log when it does not.
    public func wait(
        for what: String, timeout: Duration = .seconds(15), _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        if try await condition() { return }
        throw TestFailure("timed out after \(timeout) waiting for \(what); daemon log:\n\(log)")
    }

    /// Waits for the daemon to listen on its socket.
    public func waitForSocket(_ path: String? = nil, timeout: Duration = .seconds(15)) async throws {
        let path = path ?? socketPath
        try await wait(for: "the socket \(path)", timeout: timeout) {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
        }
    }

    /// Sends SIGTERM and waits for the exit status (SIGKILL after `timeout`).
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits for the process to exit by itself (e.g. after a bad start) and returns its status.
    public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        try await wait(for: "forecastd to exit", timeout: timeout) { !process.isRunning }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Removes the private directory.
    public func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs a command-line tool to completion and returns its exit status and output.
public func runTool(
    _ executable: URL, _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(30)
) async throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fd-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out").path
    let err = directory.appendingPathComponent("err").path
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle(forWritingAtPath: err)
    try process.run()
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while process.isRunning, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    if process.isRunning {
        process.terminate()
        throw TestFailure("\(executable.lastPathComponent) \(arguments) did not finish within \(timeout)")
    }
    process.waitUntilExit()
    return (
        process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
        (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
    )
}

/// A failure with a message, for test helpers.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
