import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A listening datagram socket standing in for systemd's notification socket (`$NOTIFY_SOCKET`):
/// tests hand its address to a notifier or a daemon and read what arrives.
public final class NotifySocket: @unchecked Sendable {
    /// The value for `$NOTIFY_SOCKET`: the path, or `@` and the abstract name.
    public let address: String
    private let descriptor: CInt
    private let path: String?

    /// Binds a socket in the file system at `path`, or, with nil, in the abstract namespace.
    public init(path: String?) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        let name: String
        if let path {
            unlink(path)
            bytes = Array(path.utf8)
            name = path
        } else {
            let abstract = "forecastd-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            bytes = [0] + Array(abstract.utf8)
            name = "@" + abstract
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (path == nil ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestFailure("bind \(name): \(reason)")
        }
        self.descriptor = descriptor
        self.address = name
        self.path = path
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next message, waiting up to `timeout`; nil when none came.
    public func receive(timeout: Duration = .seconds(10)) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        return read()
    }

    /// A message already waiting, or nil at once: for checking that nothing was sent *before* an
    /// event the test itself observed.
    public func pending() -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) == 1 else { return nil }
        return read()
    }

    /// Receives messages until one satisfies `matches` or `timeout` passes, and returns all of them
    /// in order (the match last), so a test can check what came before.
    public func receive(until matches: (String) -> Bool, timeout: Duration = .seconds(15)) -> [String] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var messages: [String] = []
        while ContinuousClock.now < deadline {
            let remaining = deadline - ContinuousClock.now
            guard let message = receive(timeout: remaining) else { break }
            messages.append(message)
            if matches(message) { break }
        }
        return messages
    }

    /// ``receive(timeout:)`` on a thread of its own, for async tests.
    public func next(within timeout: Duration = .seconds(10)) async -> String? {
        (try? await onOwnThread { self.receive(timeout: timeout) }) ?? nil
    }

    /// ``receive(until:timeout:)`` on a thread of its own, for async tests.
    public func messages(
        until matches: @escaping @Sendable (String) -> Bool, within timeout: Duration = .seconds(15)
    ) async -> [String] {
        (try? await onOwnThread { self.receive(until: matches, timeout: timeout) }) ?? []
    }

    private func read() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
