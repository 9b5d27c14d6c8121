import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real Mosquitto broker (Debian's `mosquitto`) on a loopback port of its own, for the MQTT tests: anonymous,
/// with a password file, or with TLS from a test CA (``TestCertificateAuthority``). It can be stopped, killed and
/// started again on the same port, and ``subscribe(_:count:timeout:)`` and ``publish(_:_:retain:)`` run
/// Debian's `mosquitto_sub` and `mosquitto_pub` against it, so what a test checks is what another client sees.
///
/// The broker runs in the foreground under `/usr/bin/python3`, which clears the signal mask Swift's threads pass
/// on (else it would never see SIGTERM) and then becomes `mosquitto -c FILE`. Its configuration and log live in
/// ``directory``, removed when the broker goes away.
public final class MosquittoBroker: @unchecked Sendable {
    /// Who may connect.
    public enum Access: Sendable, Hashable {
        case anonymous
        /// These users with these passwords only (a `mosquitto_passwd` file); anonymous clients are refused.
        case passwords([String: String])
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    public let access: Access
    /// The CA and the server's certificate when the listener speaks TLS.
    public let tls: TestCertificateAuthority?
    /// The configuration, the password file and the log.
    public let directory: URL
    /// Extra lines for mosquitto.conf (`message_size_limit 1000`).
    public let extraConfiguration: [String]

    // `lock` guards `process`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var process: Process?

    private init(port: Int, access: Access, tls: TestCertificateAuthority?, directory: URL, extra: [String]) {
        self.port = port
        self.access = access
        self.tls = tls
        self.directory = directory
        extraConfiguration = extra
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    static let mosquitto = "/usr/sbin/mosquitto"
    static let tools = ["/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_pub", "/usr/bin/mosquitto_passwd"]

    /// Writes the configuration and starts the broker, returning once it accepts connections (up to 10 s).
    /// `started: false` only prepares it (a broker that is down when a client starts); ``start()`` brings it up.
    public static func make(
        access: Access = .anonymous, tls: TestCertificateAuthority? = nil, port: Int? = nil,
        extraConfiguration: [String] = [], started: Bool = true
    ) throws -> MosquittoBroker {
        for tool in [mosquitto] + tools where !FileManager.default.isExecutableFile(atPath: tool) {
            throw StartError(description: "\(tool) is missing: install the Debian packages mosquitto and mosquitto-clients")
        }
        let port = try port ?? GPSFake.freePort()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mosquitto-\(port)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let broker = MosquittoBroker(
            port: port, access: access, tls: tls, directory: directory, extra: extraConfiguration)
        try broker.writeConfiguration()
        if started { try broker.start() }
        return broker
    }

    private var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    private var logFile: URL { directory.appendingPathComponent("mosquitto.log") }
    private var passwordFile: URL { directory.appendingPathComponent("passwords") }

    private func writeConfiguration() throws {
        var lines = [
            "listener \(port) 127.0.0.1",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            // Run as root stays root (the test's files are root's); as another user the line changes nothing.
            "user root",
        ]
        switch access {
        case .anonymous:
            lines.append("allow_anonymous true")
        case .passwords(let users):
            lines.append("allow_anonymous false")
            lines.append("password_file \(passwordFile.path)")
            _ = FileManager.default.createFile(atPath: passwordFile.path, contents: nil)
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                try Self.runTool("/usr/bin/mosquitto_passwd", ["-b", passwordFile.path, user, password])
            }
        }
        if let tls {
            lines += ["cafile \(tls.caCertificate.path)", "certfile \(tls.serverCertificate.path)",
                      "keyfile \(tls.serverKey.path)"]
        }
        lines += extraConfiguration
        try (lines.joined(separator: "\n") + "\n").write(to: configurationFile, atomically: true, encoding: .utf8)
    }

    /// Starts the broker (again) on ``port`` and waits until it accepts connections (up to 10 s).
    public func start() throws {
        try lock.withLock {
            guard process == nil else { return }
            let log = try FileHandle(forWritingTo: {
                if !FileManager.default.fileExists(atPath: logFile.path) {
                    _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
                }
                return logFile
            }())
            defer { try? log.close() }
            log.seekToEndOfFile()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", PrivateDBusDaemon.unblockSignalsAndExec, Self.mosquitto, "-c", configurationFile.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = log
            process.standardError = log
            try process.run()
            self.process = process
            let deadline = Date(timeIntervalSinceNow: 10)
            while !GPSFake.acceptsConnections(port: port) {
                if !process.isRunning || Date() > deadline {
                    process.terminate()
                    process.waitUntilExit()
                    self.process = nil
                    throw StartError(
                        description: "mosquitto on port \(port) "
                            + (process.isRunning ? "did not listen within 10 s" : "exited early") + "; it said: \(output)")
                }
                usleep(20_000)
            }
        }
    }

    /// Stops the broker with SIGTERM (it says goodbye to nobody: clients see their connection closed) and waits.
    public func stop() { end(signal: SIGTERM) }

    /// Kills the broker with SIGKILL, as a crash or a power cut would, and waits until its port is closed.
    public func kill() { end(signal: SIGKILL) }

    private func end(signal: Int32) {
        lock.withLock {
            guard let process else { return }
            self.process = nil
            Glibc.kill(process.processIdentifier, signal)
            let deadline = Date(timeIntervalSinceNow: 5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// The broker's process id while it runs (for SIGSTOP: a broker that hangs).
    public var pid: pid_t? { lock.withLock { process?.processIdentifier } }

    /// Whether the broker runs.
    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    /// What the broker has logged, for failure messages and for tests that look for a line.
    public var output: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    // MARK: The command-line clients

    /// The options that reach this broker as `user` (or anonymously), over TLS when it speaks TLS.
    private func clientOptions(user: (name: String, password: String)?) -> [String] {
        var options = ["-h", tls == nil ? "127.0.0.1" : "localhost", "-p", String(port)]
        if let tls { options += ["--cafile", tls.caCertificate.path] }
        if let user { options += ["-u", user.name, "-P", user.password] }
        return options
    }

    /// Runs `mosquitto_sub` on `filter` until it has `count` messages or `timeout` passes, and returns the
    /// messages as `TOPIC PAYLOAD` lines (retained ones first, as the broker sends them on subscribing).
    public func subscribe(
        _ filter: String, count: Int = 1, timeout: Int = 5, user: (name: String, password: String)? = nil
    ) throws -> [String] {
        let output = try Self.runTool(
            "/usr/bin/mosquitto_sub",
            clientOptions(user: user) + ["-t", filter, "-v", "-C", String(count), "-W", String(timeout)],
            allowTimeout: true)
        return output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Runs `mosquitto_sub` on `filter` for the retained messages only (`--retained-only`), with their payloads as
    /// raw bytes, each ended by a newline: for one message, the payload and a newline.
    public func retained(_ filter: String, timeout: Int = 2, user: (name: String, password: String)? = nil) throws
        -> [String]
    {
        let output = try Self.runTool(
            "/usr/bin/mosquitto_sub",
            clientOptions(user: user) + ["-t", filter, "-v", "--retained-only", "-W", String(timeout)],
            allowTimeout: true)
        return output.split(separator: "\n").map(String.init)
    }

    /// Publishes `payload` on `topic` with `mosquitto_pub` (`-n` for an empty payload).
    public func publish(
        _ topic: String, _ payload: String, retain: Bool = false, user: (name: String, password: String)? = nil
    ) throws {
        var arguments = clientOptions(user: user) + ["-t", topic, "-q", "1"]
        arguments += payload.isEmpty ? ["-n"] : ["-m", payload]
        if retain { arguments.append("-r") }
        try Self.runTool("/usr/bin/mosquitto_pub", arguments)
    }

    /// Publishes the bytes of `file` on `topic` (`-f`): payloads too large or too binary for an argument.
    public func publish(_ topic: String, file: URL, retain: Bool = false) throws {
        var arguments = clientOptions(user: nil) + ["-t", topic, "-q", "1", "-f", file.path]
        if retain { arguments.append("-r") }
        try Self.runTool("/usr/bin/mosquitto_pub", arguments)
    }

    /// Runs a tool and returns its standard output; throws with what it said when it fails. `mosquitto_sub -W`
    /// exits with 27 when its time is up, which `allowTimeout` takes as the end of the messages.
    @discardableResult
    static func runTool(_ tool: String, _ arguments: [String], allowTimeout: Bool = false) throws -> String {
        let process = Process()
        // Through python, which clears the signal mask Swift's threads pass on: mosquitto_sub's -W is a SIGALRM,
        // which a blocked mask would keep from ever ending it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", PrivateDBusDaemon.unblockSignalsAndExec, tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus
        guard status == 0 || (allowTimeout && status == 27) else {
            throw StartError(
                description: "\(tool) \(arguments.joined(separator: " ")) exited with \(status): "
                    + (String(data: complaint, encoding: .utf8) ?? ""))
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A certificate authority made for one test with `openssl`: its certificate, and a server certificate and key
/// it signed for `localhost` and 127.0.0.1 (P-256 keys, valid for two days).
public struct TestCertificateAuthority: Sendable {
    public let directory: URL
    public var caCertificate: URL { directory.appendingPathComponent("ca.crt") }
    public var serverCertificate: URL { directory.appendingPathComponent("server.crt") }
    public var serverKey: URL { directory.appendingPathComponent("server.key") }

    /// Makes the CA and the server's certificate in a new folder under the temporary directory.
    public static func make(commonName: String = "forecastd test CA") throws -> TestCertificateAuthority {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("test-ca-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ca = TestCertificateAuthority(directory: directory)
        let openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: openssl) else {
            throw MosquittoBroker.StartError(description: "\(openssl) is missing: install the Debian package openssl")
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try MosquittoBroker.runTool(
            openssl,
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=\(commonName)",
            ])
        try MosquittoBroker.runTool(
            openssl,
            ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try MosquittoBroker.runTool(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.crt"), "-days", "2", "-extfile", path("server.ext"),
            ])
        return ca
    }
}
