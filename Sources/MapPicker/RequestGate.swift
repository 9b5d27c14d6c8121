import Foundation
import NIOCore
import NIOHTTP1

/// Decides whether a request may reach the page at all, before anything is read from it.
///
/// The server listens on 127.0.0.1 only, but every local process and every web page the browser has
/// open can send it requests. So a request is refused (403) unless all of these hold:
/// - its path starts with the one-time token (`/TOKEN/…`), which only the printed URL carries;
/// - its `Host` is a loopback name (`127.0.0.1`, `localhost`, `[::1]`, any port): a page of another
///   site that makes its own name resolve to 127.0.0.1 (DNS rebinding) sends its own name;
/// - its `Origin`, when sent, is the page's own (`http://` and the same `Host`), and so is the fetch's
///   `Sec-Fetch-Site` (`same-origin`, or `none` for an address typed or opened): another page, even one
///   on another port of 127.0.0.1, is refused;
/// - a `POST` says its `Origin`: browsers always do for one, so one without it is not the page's;
/// - the choice has not been made yet.
struct RequestGate: Sendable {
    /// The one-time token: 32 random bytes as 64 hexadecimal digits.
    let token: String

    /// A request's verdict: the path after the token and the query, or why it is refused.
    enum Verdict: Equatable {
        case allowed(path: String, query: String?)
        case refused(String)
    }

    /// A new random token from the system's generator.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    func check(_ head: HTTPRequestHead, finished: Bool) -> Verdict {
        let hosts = head.headers["Host"]
        guard hosts.count == 1, let host = hosts.first, Self.isLoopback(host: host) else {
            return .refused("the Host header does not name 127.0.0.1 or localhost")
        }
        let origins = head.headers["Origin"]
        if origins.count > 1 || origins.contains(where: { $0.lowercased() != "http://" + host.lowercased() }) {
            return .refused("the request comes from another origin")
        }
        if head.method == .POST && origins.isEmpty {
            return .refused("a POST without an Origin header")
        }
        if let site = head.headers["Sec-Fetch-Site"].first, site != "same-origin" && site != "none" {
            return .refused("the request comes from another site (Sec-Fetch-Site: \(site))")
        }
        guard head.uri.hasPrefix("/") else { return .refused("the request target is not a path") }
        let (path, query) = Self.split(head.uri)
        // "/" + token + "/" first, compared without stopping at the first difference.
        let prefix = Array(("/" + token + "/").utf8)
        let given = Array(path.utf8.prefix(prefix.count))
        var difference = given.count == prefix.count ? 0 : 1
        for (a, b) in zip(given, prefix) { difference |= Int(a ^ b) }
        guard difference == 0 else { return .refused("the request does not carry the page's token") }
        if finished { return .refused("the choice has been made; this page is closed") }
        return .allowed(path: String(path.dropFirst(prefix.count)), query: query)
    }

    /// Whether a `Host` header names this machine's loopback interface: `127.0.0.1`, `localhost` or
    /// `[::1]`, with or without a port.
    static func isLoopback(host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return false }
            return name[...close] == "[::1]"
        }
        if let colon = name.firstIndex(of: ":") {
            guard isPort(name[colon...]) else { return false }
            name = name[..<colon]
        }
        return name == "127.0.0.1" || name == "localhost"
    }

    /// `:` and a port number.
    private static func isPort(_ text: Substring) -> Bool {
        guard text.first == ":", let port = Int(text.dropFirst()), text.count <= 6 else { return false }
        return (1...65535).contains(port)
    }

    /// The path and the query of a request target.
    static func split(_ uri: String) -> (path: Substring, query: String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (Substring(uri), nil) }
        return (uri[..<mark], String(uri[uri.index(after: mark)...]))
    }
}

/// A token bucket: `capacity` requests at once, refilled at `perSecond`; what the whole server accepts,
/// whoever sends it, so that a flood costs the machine a refusal per request and nothing more.
struct RateLimiter: Sendable {
    let capacity: Double
    let perSecond: Double
    private var tokens: Double
    private var last: NIODeadline?

    init(capacity: Int, perSecond: Int) {
        self.capacity = Double(capacity)
        self.perSecond = Double(perSecond)
        tokens = Double(capacity)
    }

    /// Takes one request's token at `now`; false when the bucket is empty.
    mutating func take(now: NIODeadline) -> Bool {
        if let last, now > last {
            let seconds = Double((now - last).nanoseconds) / 1e9
            tokens = min(capacity, tokens + seconds * perSecond)
        }
        if last == nil || now > last! { last = now }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
