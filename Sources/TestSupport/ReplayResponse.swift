import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the replay server answers on a route: a recorded response, or a misbehaviour on purpose.
public struct ReplayResponse: Sendable {
    /// How the answer is delivered.
    public enum Behaviour: Sendable, Hashable {
        /// The whole response.
        case answer
        /// Read the request, then close the connection without a byte of answer.
        case closeWithoutAnswer
        /// Send the head (announcing the full length) and the first bytes of the body, then close.
        case truncateBody(afterBytes: Int)
        /// Send the head and the first bytes of the body, then send nothing more and keep the
        /// connection open: a server that stalls mid-body.
        case stallBody(afterBytes: Int)
    }

    public var status: Int
    /// Header fields in order. `Content-Length` is added when neither it nor `Transfer-Encoding` is given.
    public var headers: ReplayHeaders
    public var body: [UInt8]
    /// How long to wait after the request before answering (or closing).
    public var delay: Duration
    public var behaviour: Behaviour
    /// When true, a request whose validators match this response's `ETag` (`If-None-Match`) or
    /// `Last-Modified` (`If-Modified-Since`) gets `304 Not Modified` without a body, as a caching
    /// server answers. Off unless asked for (``withETag(_:)``, ``answeringConditionally()``), so recorded
    /// headers replay as they are.
    public var conditional = false

    public init(
        status: Int = 200, headers: ReplayHeaders = [], body: [UInt8] = [], delay: Duration = .zero,
        behaviour: Behaviour = .answer
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.behaviour = behaviour
    }

    /// A response whose body is text, sent as UTF-8.
    public init(
        status: Int = 200, headers: ReplayHeaders = [], body: String, delay: Duration = .zero,
        behaviour: Behaviour = .answer
    ) {
        self.init(status: status, headers: headers, body: Array(body.utf8), delay: delay, behaviour: behaviour)
    }

    /// A response whose body is these bytes.
    public init(
        status: Int = 200, headers: ReplayHeaders = [], body: Data, delay: Duration = .zero,
        behaviour: Behaviour = .answer
    ) {
        self.init(status: status, headers: headers, body: Array(body), delay: delay, behaviour: behaviour)
    }

    /// A JSON answer, as Open-Meteo and most services send it.
    public static func json(
        _ text: String, status: Int = 200, headers: ReplayHeaders = []
    ) -> ReplayResponse {
        ReplayResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
            body: Array(text.utf8))
    }

    /// An HTML page, as load balancers send in front of an overloaded service.
    public static func html(_ text: String, status: Int = 502) -> ReplayResponse {
        ReplayResponse(status: status, headers: [("Content-Type", "text/html")], body: Array(text.utf8))
    }

    /// A fixture file's bytes (`open-meteo/error-429-daily-limit.json`) as a JSON answer.
    public static func fixture(
        _ relativePath: String, status: Int = 200, headers: ReplayHeaders = []
    ) throws -> ReplayResponse {
        ReplayResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
            body: Array(try Fixtures.data(relativePath)))
    }

    /// A fixture replayed with the status and headers recorded beside it in `<name>.meta.json`, when
    /// there is one (otherwise a plain 200 JSON answer).
    ///
    /// Framing and encoding headers of the recording are dropped: the saved body is already
    /// decompressed and de-chunked, so replaying `Content-Encoding: gzip` would be a lie.
    public static func recorded(_ relativePath: String) throws -> ReplayResponse {
        let body = Array(try Fixtures.data(relativePath))
        let metaPath = relativePath.replacingOccurrences(of: ".json", with: ".meta.json")
        guard metaPath != relativePath, FileManager.default.fileExists(atPath: Fixtures.url(metaPath).path) else {
            return ReplayResponse(
                status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
        }
        let meta = try JSONSerialization.jsonObject(with: Fixtures.data(metaPath)) as? [String: Any]
        let response = meta?["response"] as? [String: Any]
        let status = ((response?["status"] as? [String: Any])?["code"] as? Int) ?? 200
        let dropped: Set<String> = ["content-length", "transfer-encoding", "content-encoding", "connection"]
        var headers: [(name: String, value: String)] = []
        for (name, values) in (response?["headers"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key })
        where !dropped.contains(name.lowercased()) {
            let list = values as? [String] ?? [(values as? String)].compactMap { $0 }
            headers += list.map { (name, $0) }
        }
        return ReplayResponse(status: status, headers: ReplayHeaders(headers), body: body)
    }

    /// A fixture saved as `{status_code, headers, data}` (MET Norway's `*-with-headers.json`): `data`
    /// is replayed as the JSON body with the recorded status and headers.
    ///
    /// Framing and encoding headers are dropped as in ``recorded(_:)``; `extraHeaders` replace
    /// recorded ones of the same name (a test moves `Expires`, say).
    public static func wrapped(_ relativePath: String, extraHeaders: ReplayHeaders = []) throws -> ReplayResponse {
        let wrapper = try JSONSerialization.jsonObject(with: Fixtures.data(relativePath)) as? [String: Any]
        guard let wrapper, let data = wrapper["data"] else {
            throw ReplayServerError(message: "\(relativePath) is not a {status_code, headers, data} wrapper")
        }
        let body = try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys, .withoutEscapingSlashes])
        let status = wrapper["status_code"] as? Int ?? 200
        let dropped: Set<String> = ["content-length", "transfer-encoding", "content-encoding", "connection"]
        let replaced = Set(extraHeaders.fields.map { $0.name.lowercased() })
        var headers: [(name: String, value: String)] = []
        for (name, value) in (wrapper["headers"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key })
        where !dropped.contains(name.lowercased()) && !replaced.contains(name.lowercased()) {
            if let value = value as? String { headers.append((name, value)) }
        }
        return ReplayResponse(status: status, headers: ReplayHeaders(headers) + extraHeaders, body: Array(body))
    }

    /// The same response with another status (a recording replayed as a 203, say).
    public func withStatus(_ status: Int) -> ReplayResponse {
        var copy = self
        copy.status = status
        return copy
    }

    /// The same response after a pause.
    public func delayed(by delay: Duration) -> ReplayResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// The same response with an `ETag` validator, answered conditionally: a request whose
    /// `If-None-Match` names it gets `304 Not Modified` without a body instead.
    public func withETag(_ etag: String) -> ReplayResponse {
        var copy = self
        copy.headers = ReplayHeaders(copy.headers.fields.filter { $0.name.lowercased() != "etag" } + [("ETag", etag)])
        copy.conditional = true
        return copy
    }

    /// The same response, answered conditionally on its own `ETag` or `Last-Modified` (see ``conditional``).
    public func answeringConditionally() -> ReplayResponse {
        var copy = self
        copy.conditional = true
        return copy
    }

    /// This response, or `304 Not Modified` when the request's validators match its `ETag`
    /// (`If-None-Match`) or its `Last-Modified` (`If-Modified-Since`, compared as text).
    func conditional(for request: RecordedRequest) -> ReplayResponse {
        func header(_ name: String) -> String? { headers.fields.first { $0.name.lowercased() == name }?.value }
        let etag = header("etag"), lastModified = header("last-modified")
        let etagMatches = etag.map { tag in
            (request.header("If-None-Match") ?? "").split(separator: ",").contains {
                let candidate = $0.trimmingCharacters(in: .whitespaces)
                return candidate == "*" || candidate == tag || candidate == "W/" + tag
            }
        } ?? false
        let dateMatches = lastModified != nil && request.header("If-None-Match") == nil
            && request.header("If-Modified-Since") == lastModified
        guard conditional, behaviour == .answer, etagMatches || dateMatches else { return self }
        let validators = headers.fields.filter { ["etag", "last-modified"].contains($0.name.lowercased()) }
        return ReplayResponse(status: 304, headers: ReplayHeaders(validators), body: [UInt8](), delay: delay)
    }

    /// The same response delivered with another behaviour.
    public func behaving(_ behaviour: Behaviour) -> ReplayResponse {
        var copy = self
        copy.behaviour = behaviour
        return copy
    }
}

/// Response header fields in order, written either as `["Content-Type": "text/html"]` or as
/// `[("Retry-After", "60"), ("Retry-After", "61")]` when a name repeats.
public struct ReplayHeaders: Sendable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    public var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// These fields followed by `other`'s.
    public static func + (lhs: ReplayHeaders, rhs: ReplayHeaders) -> ReplayHeaders {
        ReplayHeaders(lhs.fields + rhs.fields)
    }
}

/// A request the replay server received.
public struct RecordedRequest: Sendable {
    public var method: String
    /// The request target as sent, with the query (`/v1/forecast?latitude=…`).
    public var uri: String
    public var headers: [(name: String, value: String)]
    /// The request's body as it arrived (a POST's JSON), up to ``ReplayServer/maxRecordedBodyBytes``.
    public var body: [UInt8] = []
    /// When the whole request had arrived: for tests of a cadence.
    public var receivedAt = Date()

    public init(method: String, uri: String, headers: [(name: String, value: String)], body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The path without the query.
    public var path: String { String(uri.prefix { $0 != "?" }) }

    /// The query's parameters, percent-decoded; for a repeated name the last value.
    public var query: [String: String] {
        let items = URLComponents(string: "http://localhost" + uri)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    /// The first value of a header field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
