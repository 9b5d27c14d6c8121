import Foundation
import Logging
import Testing
import TestSupport

@testable import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) against a real listening datagram socket, as systemd's own.
@Suite("systemd notifications")
struct NotifierTests {
    private func temporaryPath(_ name: String) -> String {
        "/tmp/fd-notify-" + String(UInt32.random(in: 0...UInt32.max), radix: 36) + "-" + name
    }

    @Test("messages reach a socket in the file system, one datagram each")
    func pathSocket() throws {
        let listener = try NotifySocket(path: temporaryPath("sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address], logger: Logger(label: "test"))
        #expect(notifier.destination == .path(listener.address))
        notifier.ready(status: "Bromsgrove, 12 °C")
        #expect(listener.receive() == "READY=1\nSTATUS=Bromsgrove, 12 °C")
        notifier.watchdog()
        #expect(listener.receive() == "WATCHDOG=1")
    }

    @Test("messages reach an abstract socket (@name)")
    func abstractSocket() throws {
        let listener = try NotifySocket(path: nil)
        #expect(listener.address.hasPrefix("@"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address], logger: Logger(label: "test"))
        #expect(notifier.destination == .abstract(String(listener.address.dropFirst())))
        notifier.status("no location: gpsd has no fix")
        #expect(listener.receive() == "STATUS=no location: gpsd has no fix")
    }

    @Test("the lifecycle keeps sd_notify's order: ready once, reloads only when ready, nothing after stopping")
    func lifecycleOrder() throws {
        let listener = try NotifySocket(path: temporaryPath("sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address], logger: Logger(label: "test"))

        // A reload while starting is part of starting: nothing is said, and no READY=1 follows it.
        #expect(notifier.reloading() == false)
        notifier.reloaded()
        notifier.ready(status: "first\nline")
        // Datagrams arrive in order: the first one is READY=1, so nothing was sent before it.
        #expect(listener.receive() == "READY=1\nSTATUS=first line")
        #expect(notifier.phase == .ready)

        notifier.ready(status: "again")
        // The same status twice is sent once.
        notifier.status("first\nline")
        notifier.status("second")
        #expect(listener.receive() == "STATUS=second")

        #expect(notifier.reloading())
        let reloading = try #require(listener.receive())
        let lines = reloading.split(separator: "\n").map(String.init)
        #expect(lines.first == "RELOADING=1")
        let stamp = try #require(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil })
        // CLOCK_MONOTONIC, as systemd compares it with its own clock (not the wall clock).
        let now = SystemdNotifier.monotonicMicroseconds()
        #expect(stamp <= now && now - stamp < 10_000_000)
        #expect(lines.count == 2)
        notifier.reloaded()
        #expect(listener.receive() == "READY=1")

        notifier.stopping()
        #expect(listener.receive() == "STOPPING=1")
        notifier.stopping()
        notifier.status("after stopping")
        #expect(notifier.reloading() == false)
        // The marker is the next datagram: nothing was sent in between.
        notifier.send(["X-MARKER=1"])
        #expect(listener.receive() == "X-MARKER=1")
    }

    @Test("a NOTIFY_SOCKET that names nothing is logged once and ignored")
    func missingSocket() {
        let (logger, logs) = CountingLogHandler.logger()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": temporaryPath("absent")], logger: logger)
        #expect(notifier.isEnabled)
        notifier.ready(status: "up")
        notifier.watchdog()
        notifier.status("still up")
        #expect(notifier.send(["WATCHDOG=1"]) == false)
        let warnings = logs.entries.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message == "Cannot notify systemd; carrying on without it.")
        #expect(warnings.first?.metadata.contains("No such file or directory") == true)
    }

    @Test("a NOTIFY_SOCKET that is not a socket is logged once and ignored")
    func notASocket() throws {
        let path = temporaryPath("file")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a socket".utf8)))
        defer { unlink(path) }
        let (logger, logs) = CountingLogHandler.logger()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path], logger: logger)
        notifier.ready(status: "up")
        notifier.watchdog()
        #expect(logs.entries.filter { $0.level == .warning }.count == 1)
        #expect(logs.entries.first?.metadata.contains("Connection refused") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a socket")
    }

    @Test("a socket that stops listening, then listens again: one warning, then one note that it works")
    func recovers() throws {
        let path = temporaryPath("sock")
        let (logger, logs) = CountingLogHandler.logger()
        var listener: NotifySocket? = try NotifySocket(path: path)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path], logger: logger)
        notifier.ready(status: "up")
        #expect(listener?.receive() == "READY=1\nSTATUS=up")
        listener = nil
        notifier.watchdog()
        notifier.watchdog()
        listener = try NotifySocket(path: path)
        notifier.watchdog()
        #expect(listener?.receive() == "WATCHDOG=1")
        #expect(logs.entries.map(\.level) == [.warning, .info])
    }

    @Test(
        "NOTIFY_SOCKET values forecastd cannot use are refused with the reason",
        arguments: [
            ("relative/path", "expected an absolute path or @ and an abstract socket name"),
            ("vsock:2:1234", "expected an absolute path or @ and an abstract socket name"),
            ("@", "an abstract name must have 1 to 107 bytes"),
            ("/" + String(repeating: "x", count: 120), "the path is longer than 107 bytes"),
        ])
    func unusableAddresses(value: String, reason: String) {
        #expect(throws: SystemdNotifier.AddressError.self) { try SystemdNotifier.destination(value) }
        do {
            _ = try SystemdNotifier.destination(value)
        } catch {
            #expect(error.description == reason)
        }
        let (logger, logs) = CountingLogHandler.logger()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": value], logger: logger)
        #expect(!notifier.isEnabled)
        notifier.ready(status: "up")
        #expect(logs.entries.count == 1)
        #expect(logs.entries.first?.metadata.contains(reason) == true)
    }

    @Test("without NOTIFY_SOCKET nothing is sent and nothing is logged")
    func noManager() {
        let (logger, logs) = CountingLogHandler.logger()
        let notifier = SystemdNotifier(environment: [:], logger: logger)
        #expect(!notifier.isEnabled)
        notifier.ready(status: "up")
        #expect(notifier.send(["WATCHDOG=1"]) == false)
        #expect(logs.entries.isEmpty)
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, only for the process WATCHDOG_PID names")
    func watchdogInterval() {
        let pid = getpid()
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "240000000"], processID: pid) == .seconds(120))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid)"], processID: pid)
                == .milliseconds(1500))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid + 1)"], processID: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], processID: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"], processID: pid) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], processID: pid) == nil)
    }
}

/// Keeps every log entry (message, level, metadata flattened to text), for checking what an operator reads.
struct CountingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: String
    }

    final class Store: @unchecked Sendable {
        // `lock` guards `stored`.
        private let lock = NSLock()
        private var stored: [Entry] = []
        func append(_ entry: Entry) { lock.withLock { stored.append(entry) } }
        var entries: [Entry] { lock.withLock { stored } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let text = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append(Entry(level: event.level, message: "\(event.message)", metadata: text))
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "forecastd.test") { _ in CountingLogHandler(store: store) }, store)
    }
}
