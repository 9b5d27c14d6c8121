import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A deliberately plain HTTP/1.1 client on a blocking socket, so that tests can send what no real client
/// would: a foreign Host, no Origin, an oversized head, a malformed line, a hundred requests in one write.
/// Call it off the concurrency pool (`onOwnThread`): it blocks.
struct RawHTTP {
    let port: Int

    struct Response: CustomStringConvertible {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        var description: String { "\(status) \(text)" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A connected socket to 127.0.0.1:`port`, with a receive timeout.
    final class Connection {
        let descriptor: Int32

        init(port: Int, timeout: Double = 10) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(descriptor)
                throw Failure(description: "connect to port \(port): errno \(errno)")
            }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        func send(_ bytes: [UInt8]) throws {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
                sent += count
            }
        }

        /// Everything until the server closes the connection (or the timeout).
        func readToEnd() -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return bytes }
                bytes += buffer[0..<count]
            }
        }

        /// One response, read up to its Content-Length; nil when the connection ends first.
        func readResponse() -> Response? {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let (response, _) = RawHTTP.parse(pending) { return response }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return nil }
                pending += buffer[0..<count]
            }
        }

        /// Whether the server has closed the connection (a read returns end of file).
        func isClosedByServer() -> Bool {
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, 0) == 0
        }
    }

    /// The bytes of a request. `host` nil sends no Host header.
    static func requestBytes(
        _ method: String = "GET", _ target: String, host: String?, headers: [(String, String)] = [], body: [UInt8] = [],
        close: Bool = true
    ) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        if close { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// One request on a connection of its own; the response, or nil when the server closed without one.
    func send(
        _ method: String = "GET", _ target: String, host: String? = nil, headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws -> Response? {
        let connection = try Connection(port: port)
        try connection.send(Self.requestBytes(method, target, host: host ?? "127.0.0.1:\(port)", headers: headers, body: body))
        return Self.parseAll(connection.readToEnd()).first
    }

    /// Every complete response in `bytes`, in order.
    static func parseAll(_ bytes: [UInt8]) -> [Response] {
        var responses: [Response] = []
        var rest = bytes[...]
        while let (response, used) = parse(Array(rest)) {
            responses.append(response)
            rest = rest.dropFirst(used)
        }
        return responses
    }

    /// The first response in `bytes` and how many bytes it took, when it is complete.
    static func parse(_ bytes: [UInt8]) -> (Response, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
        else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        let bodyStart = end + 4
        guard bytes.count >= bodyStart + length else { return nil }
        return (Response(status: status, headers: headers, body: Array(bytes[bodyStart..<bodyStart + length])), bodyStart + length)
    }
}
