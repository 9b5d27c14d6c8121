import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import MapPicker

/// Who may reach the page: the token, a loopback Host, the page's own Origin.
@Suite("The picker's request gate")
struct RequestGateTests {
    let gate = RequestGate(token: String(repeating: "ab", count: 32))
    var token: String { gate.token }

    func head(_ uri: String, host: String? = "127.0.0.1:4242", _ extra: [(String, String)] = []) -> HTTPRequestHead {
        head(.GET, uri, host: host, extra)
    }

    func head(
        _ method: HTTPMethod, _ uri: String, host: String? = "127.0.0.1:4242", _ extra: [(String, String)] = []
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "Host", value: host) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
    }

    @Test("the token opens the page; its path and query are handed on")
    func allowed() {
        #expect(gate.check(head("/\(token)/"), finished: false) == .allowed(path: "", query: nil))
        #expect(
            gate.check(head("/\(token)/api/places?south=1&north=2"), finished: false)
                == .allowed(path: "api/places", query: "south=1&north=2"))
        #expect(gate.check(head("/\(token)/pick.js", host: "localhost:8765"), finished: false) == .allowed(path: "pick.js", query: nil))
        #expect(gate.check(head("/\(token)/", host: "[::1]:80"), finished: false) == .allowed(path: "", query: nil))
        #expect(gate.check(head("/\(token)/", host: "LOCALHOST"), finished: false) == .allowed(path: "", query: nil))
        #expect(
            gate.check(
                head(.POST, "/\(token)/api/choose", [("Origin", "http://127.0.0.1:4242"), ("Sec-Fetch-Site", "same-origin")]),
                finished: false) == .allowed(path: "api/choose", query: nil))
    }

    @Test(
        "a missing, wrong, shortened or lengthened token is refused",
        arguments: ["/", "/favicon.ico", "/x/", "/SHORT/", "/TOKENx/", "/TOKEN", "//TOKEN/", "http://127.0.0.1/TOKEN/"])
    func wrongToken(_ pattern: String) {
        let token = self.token
        let uri = pattern.replacingOccurrences(of: "SHORT", with: String(token.dropLast()))
            .replacingOccurrences(of: "TOKEN", with: token)
        guard case .refused = gate.check(head(uri), finished: false) else {
            Issue.record("\(uri) was let through")
            return
        }
    }

    @Test(
        "a Host that is not this machine's loopback is refused (DNS rebinding)",
        arguments: [nil, "evil.example", "evil.example:4242", "127.0.0.1.nip.io:4242", "127.0.0.2:4242", "[::2]:1", "127.0.0.1:x",
            "127.0.0.1:99999", "localhost:", ""])
    func foreignHost(_ host: String?) {
        guard case .refused = gate.check(head("/\(token)/", host: host), finished: false) else {
            Issue.record("Host \(host ?? "(none)") was let through")
            return
        }
    }

    @Test("two Host headers are refused")
    func twoHosts() {
        guard case .refused = gate.check(head(.GET, "/\(token)/", [("Host", "evil.example")]), finished: false) else {
            Issue.record("let through")
            return
        }
    }

    @Test(
        "another Origin or site is refused, even another port of 127.0.0.1",
        arguments: [
            [("Origin", "http://evil.example")], [("Origin", "http://127.0.0.1:4243")], [("Origin", "null")],
            [("Origin", "https://127.0.0.1:4242")], [("Origin", "http://127.0.0.1:4242"), ("Origin", "http://evil.example")],
            [("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")],
        ])
    func foreignOrigin(_ headers: [(String, String)]) {
        for method in [HTTPMethod.GET, .POST] {
            guard case .refused = gate.check(head(method, "/\(token)/api/choose", headers), finished: false) else {
                Issue.record("\(method) with \(headers) was let through")
                return
            }
        }
    }

    @Test("a POST without an Origin is refused; a GET without one is the browser opening the address")
    func postNeedsOrigin() {
        #expect(gate.check(head(.POST, "/\(token)/api/choose"), finished: false) != .allowed(path: "api/choose", query: nil))
        #expect(gate.check(head(.GET, "/\(token)/", [("Sec-Fetch-Site", "none")]), finished: false) == .allowed(path: "", query: nil))
    }

    @Test("after the choice everything is refused, the token too")
    func finished() {
        guard case .refused(let reason) = gate.check(head("/\(token)/"), finished: true) else {
            Issue.record("let through after the choice")
            return
        }
        #expect(reason.contains("choice has been made"))
    }

    @Test("tokens are 64 hexadecimal digits and differ each time")
    func tokens() {
        let tokens = (0..<50).map { _ in RequestGate.makeToken() }
        #expect(Set(tokens).count == 50)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test("the rate limiter lets a burst through, then refills at its rate")
    func rate() {
        var limiter = RateLimiter(capacity: 5, perSecond: 10)
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        func takes(_ now: NIODeadline, _ count: Int = 1) -> [Bool] { (0..<count).map { _ in limiter.take(now: now) } }
        #expect(takes(start, 6) == [true, true, true, true, true, false])
        #expect(takes(start + .milliseconds(50)) == [false])
        #expect(takes(start + .milliseconds(110), 2) == [true, false])
        // A long pause refills only up to the burst.
        let later = start + .seconds(60)
        #expect(takes(later, 6) == [true, true, true, true, true, false])
        // A clock going backwards gives nothing.
        #expect(takes(start) == [false])
    }
}
