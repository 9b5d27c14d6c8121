import Foundation
import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// Tells the service manager what the daemon is doing: the sd_notify(3) protocol, written directly.
///
/// Each message is one datagram of newline-separated `KEY=VALUE` lines sent to the socket named by
/// `$NOTIFY_SOCKET`: a file-system path (`/run/systemd/notify`) or an abstract name (`@…`). Without
/// the variable every call does nothing, so the daemon runs the same outside systemd.
///
/// The notifier also keeps the order the protocol asks for: `RELOADING=1` only after the first
/// `READY=1`, the `READY=1` that ends a reload only after `RELOADING=1`, nothing but `STOPPING=1`
/// once stopping. A socket that cannot be reached is logged once and otherwise ignored: systemd
/// then times the service out by itself, and without systemd nothing is lost.
public final class SystemdNotifier: Sendable {
    /// Where notifications go.
    public enum Destination: Sendable, Hashable, CustomStringConvertible {
        /// A socket in the file system.
        case path(String)
        /// A socket in the abstract namespace (the name without its leading `@`).
        case abstract(String)

        public var description: String {
            switch self {
            case .path(let path): path
            case .abstract(let name): "@" + name
            }
        }
    }

    /// The lifecycle as systemd was told it.
    public enum Phase: Sendable, Hashable {
        case starting, ready, reloading, stopping
    }

    /// Where notifications go; nil when `$NOTIFY_SOCKET` is unset or unusable.
    public let destination: Destination?
    private let logger: Logger
    private let descriptor: CInt
    private let state = NIOLockedValueBox(State())

    private struct State {
        var phase = Phase.starting
        var lastStatus: String?
        /// Set while sends fail: the failure is logged once per streak, not once per message.
        var failing = false
    }

    /// Reads `$NOTIFY_SOCKET` from `environment`. A value that is not a path or an abstract name is
    /// logged (once, here) and disables notifications.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        self.logger = logger
        var destination: Destination?
        if let value = environment["NOTIFY_SOCKET"], !value.isEmpty {
            do {
                destination = try Self.destination(value)
            } catch {
                logger.warning(
                    "NOTIFY_SOCKET is not a socket forecastd can notify; systemd will not hear from it.",
                    metadata: ["notify_socket": "\(value)", "error": "\(error)"])
            }
        }
        var descriptor: CInt = -1
        if destination != nil {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if descriptor < 0 {
                logger.warning(
                    "Cannot open a socket to notify systemd; it will not hear from forecastd.",
                    metadata: ["error": "\(String(cString: strerror(errno)))"])
                destination = nil
            } else {
                // A manager that stopped reading must not hold the daemon up for long.
                var timeout = timeval(tv_sec: 1, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            }
        }
        self.destination = destination
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether a service manager listens (`$NOTIFY_SOCKET` was usable).
    public var isEnabled: Bool { destination != nil }

    /// What systemd was last told.
    public var phase: Phase { state.withLockedValue { $0.phase } }

    // MARK: The lifecycle

    /// Start-up is complete: `READY=1`, with the first status line. Sent once.
    public func ready(status: String) {
        let send = state.withLockedValue { state -> Bool in
            guard state.phase == .starting else { return false }
            state.phase = .ready
            state.lastStatus = status
            return true
        }
        if send { self.send(["READY=1", "STATUS=" + Self.oneLine(status)]) }
    }

    /// A reload begins: `RELOADING=1` with `MONOTONIC_USEC=`, only once ready (a reload during
    /// start-up is part of starting). Returns whether systemd was told, so the caller knows to
    /// follow with ``reloaded()``.
    @discardableResult
    public func reloading() -> Bool {
        let send = state.withLockedValue { state -> Bool in
            guard state.phase == .ready else { return false }
            state.phase = .reloading
            return true
        }
        if send { self.send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"]) }
        return send
    }

    /// The reload is done (applied or refused, the daemon runs either way): `READY=1`.
    public func reloaded() {
        let send = state.withLockedValue { state -> Bool in
            guard state.phase == .reloading else { return false }
            state.phase = .ready
            return true
        }
        if send { self.send(["READY=1"]) }
    }

    /// A status line for `systemctl status`; sent only when it differs from the last one.
    public func status(_ text: String) {
        let send = state.withLockedValue { state -> Bool in
            guard state.phase != .stopping, state.lastStatus != text else { return false }
            state.lastStatus = text
            return true
        }
        if send { self.send(["STATUS=" + Self.oneLine(text)]) }
    }

    /// Shutdown has begun: `STOPPING=1`. Sent once.
    public func stopping() {
        let send = state.withLockedValue { state -> Bool in
            guard state.phase != .stopping else { return false }
            state.phase = .stopping
            return true
        }
        if send { self.send(["STOPPING=1"]) }
    }

    /// The daemon is alive: `WATCHDOG=1`.
    public func watchdog() {
        send(["WATCHDOG=1"])
    }

    // MARK: The protocol

    /// Sends one message: `lines` joined by newlines, in one datagram. Returns whether it was delivered.
    @discardableResult
    public func send(_ lines: [String]) -> Bool {
        guard let destination, descriptor >= 0 else { return false }
        let message = Array(lines.joined(separator: "\n").utf8)
        var address = sockaddr_un()
        let length = Self.fill(&address, destination)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        let error = sent < 0 ? errno : 0
        let (log, recovered) = state.withLockedValue { state -> (Bool, Bool) in
            defer { state.failing = sent < 0 }
            return (sent < 0 && !state.failing, sent >= 0 && state.failing)
        }
        if log {
            logger.warning(
                "Cannot notify systemd; carrying on without it.",
                metadata: [
                    "notify_socket": "\(destination)", "error": "\(String(cString: strerror(error)))",
                    "message": "\(lines.first ?? "")",
                ])
        } else if recovered {
            logger.info("systemd hears from forecastd again.", metadata: ["notify_socket": "\(destination)"])
        }
        return sent >= 0
    }

    /// Why `$NOTIFY_SOCKET` cannot be used.
    public struct AddressError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `$NOTIFY_SOCKET`: an absolute path, or `@` and an abstract name, fitting `sun_path`.
    public static func destination(_ value: String) throws(AddressError) -> Destination {
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        if value.hasPrefix("/") {
            // A path needs its terminating NUL inside sun_path.
            guard value.utf8.count < capacity else {
                throw AddressError(description: "the path is longer than \(capacity - 1) bytes")
            }
            return .path(value)
        }
        if value.hasPrefix("@") {
            let name = String(value.dropFirst())
            guard !name.isEmpty, name.utf8.count < capacity else {
                throw AddressError(description: "an abstract name must have 1 to \(capacity - 1) bytes")
            }
            return .abstract(name)
        }
        throw AddressError(description: "expected an absolute path or @ and an abstract socket name")
    }

    /// Fills a `sockaddr_un` for `destination` and returns the address length to pass.
    static func fill(_ address: inout sockaddr_un, _ destination: Destination) -> socklen_t {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        switch destination {
        case .path(let path): bytes = Array(path.utf8)
        // An abstract address starts with a NUL byte and is exactly as long as the name: no terminator.
        case .abstract(let name): bytes = [0] + Array(name.utf8)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let base = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        switch destination {
        case .path: return socklen_t(base + bytes.count + 1)
        case .abstract: return socklen_t(base + bytes.count)
        }
    }

    /// A status must be one line: the protocol separates fields by newlines.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `CLOCK_MONOTONIC` in microseconds, as `MONOTONIC_USEC=` wants it.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    // MARK: The watchdog

    /// How often to send `WATCHDOG=1`: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3) advises;
    /// nil when systemd asked for no watchdog, or asked another process (`$WATCHDOG_PID`).
    public static func watchdogInterval(
        environment: [String: String] = ProcessInfo.processInfo.environment, processID: pid_t = getpid()
    ) -> Duration? {
        if let pid = environment["WATCHDOG_PID"], !pid.isEmpty {
            guard pid_t(pid) == processID else { return nil }
        }
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        return .microseconds(Int64(clamping: microseconds / 2))
    }
}
