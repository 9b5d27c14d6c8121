import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why talking to the daemon failed, in words a user can act on.
public struct ControlClientError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// True when no daemon listens on the socket (absent file, refused connection).
    public var daemonNotRunning: Bool
}

/// A small blocking client for the daemon's Unix socket, for forecastctl and tests.
///
/// Blocking is right here: forecastctl does one exchange and exits, and a plain socket keeps it
/// fast to start (no event loop threads).
public final class ControlClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let timeout: Duration
    /// The greeting the daemon sent on connect.
    public private(set) var greeting: Greeting?

    /// Connects and reads the greeting.
    public init(socketPath: String, timeout: Duration = .seconds(5)) throws(ControlClientError) {
        self.timeout = timeout
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            throw ControlClientError(description: "cannot create a socket: \(String(cString: strerror(errno)))", daemonNotRunning: false)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // No close(fd) on the failure paths below: once every stored property is set, a throwing
        // initialiser still runs deinit, which closes it. Closing twice could close a descriptor
        // that another thread has just been given.
        guard pathBytes.count < capacity else {
            throw ControlClientError(description: "\(socketPath): socket path is longer than \(capacity - 1) bytes", daemonNotRunning: false)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let code = errno
            let notRunning = code == ENOENT || code == ECONNREFUSED
            let reason = notRunning ? "forecastd is not running (no one listens there)" : String(cString: strerror(code))
            throw ControlClientError(description: "\(socketPath): \(reason)", daemonNotRunning: notRunning)
        }
        let line = try readLine()
        guard case .version(let greeting) = ControlReply(line: line) else {
            throw ControlClientError(description: "\(socketPath): unexpected greeting \(line.prefix(80))", daemonNotRunning: false)
        }
        self.greeting = greeting
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Sends one request line and returns the answer line.
    ///
    /// An error the daemon closes the connection after (too many clients, no request in time) is
    /// thrown, not returned: it says nothing about the request, so the caller falls back as it would
    /// without a daemon.
    public func request(_ line: String) throws(ControlClientError) -> String {
        do {
            try send(line)
        } catch {
            // A daemon that refused the connection said why before closing it (EPIPE here): its words
            // are more use than "Broken pipe".
            if let said = try? readLine(), let refusal = Self.refusal(said) { throw refusal }
            throw error
        }
        return try readAnswer()
    }

    /// Sends one request and returns the answer line (``ControlReply/init(line:)`` types it).
    public func request(_ request: ControlRequest) throws(ControlClientError) -> String {
        try self.request(request.line)
    }

    /// Reads the next line like ``readLine()``, throwing an `ERROR` the daemon closes the connection after.
    public func readAnswer() throws(ControlClientError) -> String {
        let answer = try readLine()
        if let refusal = Self.refusal(answer) { throw refusal }
        return answer
    }

    private static func refusal(_ line: String) -> ControlClientError? {
        guard case .error(let error) = ControlReply(line: line), error.closed == true else { return nil }
        return ControlClientError(description: "forecastd refused the connection: \(error.message)", daemonNotRunning: false)
    }

    /// Sends one line (a newline is added).
    public func send(_ line: String) throws(ControlClientError) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a daemon that went away must give an error here, not kill the client with SIGPIPE.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, noSignal) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ControlClientError(description: "sending to forecastd failed: \(String(cString: strerror(errno)))", daemonNotRunning: false)
            }
            offset += written
        }
    }

    /// Reads the next line, waiting at most the client's timeout.
    public func readLine() throws(ControlClientError) -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw ControlClientError(description: "forecastd did not answer within \(timeout)", daemonNotRunning: false)
            }
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(Double(Int32.max), remaining.seconds * 1000).rounded(.up))
            let ready = poll(&pollFD, 1, max(1, milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                throw ControlClientError(description: "waiting for forecastd failed: \(String(cString: strerror(errno)))", daemonNotRunning: false)
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ControlClientError(description: "reading from forecastd failed: \(String(cString: strerror(errno)))", daemonNotRunning: false)
            }
            if count == 0 {
                throw ControlClientError(description: "forecastd closed the connection", daemonNotRunning: false)
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

#if os(Linux)
    private let noSignal = Int32(MSG_NOSIGNAL)
#else
    private let noSignal: Int32 = 0
#endif
