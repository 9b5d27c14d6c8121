import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A gpsd stand-in on the loopback interface that speaks gpsd's JSON protocol from a script.
///
/// For reports no receiver log can produce (gpsfake replays NMEA through a real gpsd, which never sends mode 99 or
/// an error of 1e300 m): the client is a real libgps, which has to parse every line. Each connection gets what
/// gpsd sends: a `VERSION` greeting; once the client's `?WATCH=` arrives, `DEVICES` and `WATCH`; then the script.
/// After the script the connection stays open and silent until the client closes it or ``stop()``.
public final class ScriptedGPSD: @unchecked Sendable {
    /// One step of what the peer sends after the handshake.
    public enum Step: Sendable {
        /// One JSON object and its newline.
        case line(String)
        /// Bytes as they are, for lines split across steps or several lines in one segment.
        case send(String)
        /// Nothing for a while (a receiver between epochs, or a line stalled half-way).
        case pause(Duration)
    }

    /// Why the peer could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// The device path it announces and puts in each TPV made by ``tpv(mode:time:latitude:longitude:extra:)``.
    public static let device = "/dev/ttyScripted0"

    private let listener: Int32
    private let script: [Step]
    // `lock` guards the three below; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var connection: Int32 = -1
    private var stopped = false
    private var accepted: [ContinuousClock.Instant] = []
    private let finished = DispatchSemaphore(value: 0)

    /// Starts listening on a free port and serving connections, one at a time, each with `script`.
    public init(script: [Step]) throws {
        let port = try GPSFake.freePort()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw StartError(description: "socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 4) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw StartError(description: "cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        self.port = port
        self.listener = listener
        self.script = script
        Thread { [self] in serve() }.start()
    }

    deinit {
        stop()
    }

    /// A TPV object (one line, without its newline) as gpsd 3.22–3.25 write them; `extra` adds or overrides members, as JSON text
    /// (`"eph":1e300`). `time` nil leaves the time out, as gpsd does before the receiver knows it.
    public static func tpv(mode: Int, time: Date?, latitude: Double, longitude: Double, extra: String = "") -> String {
        var members = [#""class":"TPV""#, #""device":"\#(device)""#, #""mode":\#(mode)"#]
        if let time { members.append(#""time":"\#(iso8601(time))""#) }
        members += [#""lat":\#(latitude)"#, #""lon":\#(longitude)"#]
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// When each connection so far was accepted, in order: how often a client came back.
    public var connectionTimes: [ContinuousClock.Instant] { lock.withLock { accepted } }

    /// Stops listening, closes the open connection and waits for the serving thread to end. Safe to call twice.
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            if connection >= 0 { _ = shutdown(connection, Int32(SHUT_RDWR)) }
            return !stopped
        }
        guard first else { return }
        // Wakes the thread from accept(2); it closes the listener itself.
        _ = shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
    }

    // MARK: The serving thread

    private func serve() {
        defer {
            close(listener)
            finished.signal()
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let proceed = lock.withLock {
                if stopped { return false }
                connection = client
                accepted.append(.now)
                return true
            }
            if proceed { converse(client) }
            lock.withLock { connection = -1 }
            close(client)
            if lock.withLock({ stopped }) { return }
        }
    }

    private func converse(_ client: Int32) {
        let greeting =
            #"{"class":"VERSION","release":"3.25","rev":"scripted","proto_major":3,"proto_minor":15}"# + "\n"
        guard transmit(greeting, to: client) else { return }
        var received = ""
        while !received.contains("?WATCH=") {
            guard let more = receive(from: client) else { return }
            received += more
        }
        let handshake =
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"\#(Self.device)","driver":"NMEA0183","activated":"\#(Self.iso8601(Date()))","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#
            + "\n"
            + #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#
            + "\n"
        guard transmit(handshake, to: client) else { return }
        for step in script {
            switch step {
            case .line(let object):
                guard transmit(object + "\n", to: client) else { return }
            case .send(let text):
                guard transmit(text, to: client) else { return }
            case .pause(let duration):
                Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            }
        }
        // Silent from now on, like a gpsd whose receiver stopped talking, until the client goes or stop().
        while receive(from: client) != nil {}
    }

    private func transmit(_ text: String, to client: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// What the client sent next, or nil once it closed the connection (or stop() shut it down).
    private func receive(from client: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// `2026-11-24T10:00:00.000Z`, the form gpsd writes.
    public static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
