import DBus
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus service played by python-dbusmock on a ``PrivateDBusDaemon``: a template such as `notification_daemon`,
/// or a bare object whose methods a test adds.
///
/// It runs Debian's `/usr/bin/python3 -m dbusmock` (the `python3-dbusmock` package, with `python3-dbus` and
/// `python3-gi` from Debian; a python3 earlier on PATH may lack them). ``start(on:template:parameters:)`` returns
/// once the service owns its bus name, as the bus's `NameOwnerChanged` signal says. dbusmock logs every call made
/// to the mock; ``calls(of:)`` reads that log through its `org.freedesktop.DBus.Mock` interface.
///
/// ``stop()`` kills it (SIGKILL) and waits; `deinit` does too.
public final class DBusMock: @unchecked Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The well-known name the mock owns.
    public let name: String
    /// The mock's main object.
    public let path: String
    /// dbusmock's log of calls and signals, for failure messages.
    public let logFile: URL
    /// A connection of the test's own to the same bus, through which the mock is driven.
    public let control: DBusConnection

    // `lock` guards `process`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var process: Process?
    private let exit: ProcessExit

    public static let mockInterface = "org.freedesktop.DBus.Mock"

    private init(
        name: String, path: String, logFile: URL, control: DBusConnection, process: Process, exit: ProcessExit
    ) {
        self.name = name
        self.path = path
        self.logFile = logFile
        self.control = control
        self.process = process
        self.exit = exit
    }

    deinit {
        stop()
    }

    /// Starts one of dbusmock's templates (`notification_daemon`, `networkmanager`), or a template of the tests' own
    /// (a path to a `.py` file); `parameters` is the template's JSON (`{"capabilities": "body actions"}`). It runs on
    /// the bus the private daemon plays, session or system, whatever the template's own default.
    public static func start(
        on bus: PrivateDBusDaemon, template: String, name: String, path: String, parameters: String? = nil
    ) async throws -> DBusMock {
        var arguments = ["--\(bus.kind.rawValue)", "--template", template]
        if let parameters { arguments += ["--parameters", parameters] }
        return try await start(on: bus, name: name, path: path, arguments: arguments)
    }

    /// Starts a bare mock object owning `name`, with `path` and `interface`; add methods with
    /// ``addMethod(_:inSignature:outSignature:code:)``.
    public static func start(on bus: PrivateDBusDaemon, name: String, path: String, interface: String) async throws
        -> DBusMock
    {
        try await start(on: bus, name: name, path: path, arguments: ["--\(bus.kind.rawValue)", name, path, interface])
    }

    private static func start(on bus: PrivateDBusDaemon, name: String, path: String, arguments: [String])
        async throws -> DBusMock
    {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw StartError(description: "\(python) is missing: install the Debian package python3-dbusmock")
        }
        let control = try await DBusConnection.connect(address: bus.address)
        // Listen before starting, so that the signal saying the mock is ready cannot come too early to be seen.
        let ownerChanges = try await control.signals(
            matching: DBusSignalMatch(
                sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameOwnerChanged"))

        let logFile = bus.directory.appendingPathComponent("dbusmock-\(UUID().uuidString.prefix(8)).log")
        let output = bus.directory.appendingPathComponent("dbusmock-\(UUID().uuidString.prefix(8)).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        defer { try? outputHandle.close() }

        let exited = ProcessExit()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "dbusmock", "--logfile", logFile.path] + arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", bus.environmentVariable: bus.address,
            "PYTHONDONTWRITEBYTECODE": "1",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputHandle
        process.standardError = outputHandle
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let mock = DBusMock(
            name: name, path: path, logFile: logFile, control: control, process: process, exit: exited)

        let ready = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    for try await change in ownerChanges
                    where change.body.first?.string == name && change.body.last?.string?.isEmpty == false {
                        return true
                    }
                } catch {}
                return false
            }
            group.addTask {
                await exited.wait()
                return false
            }
            group.addTask {
                // A deadline for a mock that hangs before claiming its name, not a wait for readiness.
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard ready else {
            mock.stop()
            let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw StartError(
                description: "python-dbusmock did not claim \(name) on \(bus.address); it said: "
                    + (said.isEmpty ? "nothing" : said))
        }
        return mock
    }

    /// The mock's process ID while it runs.
    public var pid: pid_t? { lock.withLock { process?.processIdentifier } }

    /// Kills the mock and waits for it to exit. Safe to call more than once.
    public func stop() {
        lock.withLock {
            guard let process else { return }
            self.process = nil
            kill(process.processIdentifier, SIGKILL)
            exit.wait()
        }
    }

    // MARK: The mock interface

    /// The arguments of every call of `method` made to the mock so far, oldest first: on its main object, or on
    /// another object it made (`path`).
    public func calls(of method: String, on path: String? = nil) async throws -> [[DBusValue]] {
        let reply = try await mockCall("GetMethodCalls", [.string(method)], path: path)
        let rows = try reply.body(signature: "a(tav)")[0].array ?? []
        return rows.map { row in (row.fields?[1].array ?? []).map { $0.variant ?? $0 } }
    }

    /// The names of every method called on the mock so far, oldest first (on its main object, or on `path`).
    public func calledMethods(on path: String? = nil) async throws -> [String] {
        let reply = try await mockCall("GetCalls", [], path: path)
        let rows = try reply.body(signature: "a(tsav)")[0].array ?? []
        return rows.compactMap { $0.fields?[1].string }
    }

    /// The mock's `MethodCalled` signals, sent as each call to a mocked method arrives (before its code runs).
    public func methodCalledSignals(on connection: DBusConnection) async throws -> DBusSignals {
        try await connection.signals(
            matching: DBusSignalMatch(sender: name, path: path, interface: Self.mockInterface, member: "MethodCalled"))
    }

    /// Forgets the calls logged so far.
    public func clearCalls() async throws {
        _ = try await mockCall("ClearCalls", [])
    }

    /// Adds a method to the mock's main interface; `code` is Python that may set `ret` from `args`.
    public func addMethod(_ method: String, inSignature: String, outSignature: String, code: String) async throws {
        _ = try await mockCall(
            "AddMethod", [.string(""), .string(method), .string(inSignature), .string(outSignature), .string(code)])
    }

    /// Has the mock emit a signal from its main object.
    public func emitSignal(interface: String, member: String, signature: String, arguments: [DBusValue]) async throws
    {
        _ = try await mockCall(
            "EmitSignal",
            [
                .string(interface), .string(member), .string(signature),
                .array(.variant, arguments.map { .variant($0) }),
            ])
    }

    /// Calls a method of the mock interface (dbusmock's own, or one a template adds, such as NetworkManager's
    /// `AddWiFiDevice`) on the main object or on `path`.
    @discardableResult
    public func mockCall(_ member: String, _ arguments: [DBusValue], path: String? = nil) async throws -> DBusMessage {
        try await control.call(
            DBusMethodCall(
                destination: name, path: path ?? self.path, interface: Self.mockInterface, member: member,
                arguments: arguments),
            timeout: .seconds(10))
    }

    /// Sets properties of an object of the mock and sends `PropertiesChanged` for them (dbusmock's
    /// `UpdateProperties`); `properties` go in as variants.
    public func updateProperties(of path: String, interface: String, _ properties: KeyValuePairs<String, DBusValue>)
        async throws
    {
        try await mockCall(
            "UpdateProperties", [.string(interface), .variantDictionary(properties)], path: path)
    }
}
