import AsyncHTTPClient
import FileStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Waiting

/// The one way forecastd talks HTTP: a deadline for the whole exchange (connect to last body byte), an
/// identifying User-Agent, a body cap enforced while reading (an announced larger body is refused unread),
/// and every transport failure classified once (``FetchFailure``).
///
/// Status codes are left to the caller: an answer of any status comes back as an ``HTTPAnswer``, whose
/// ``HTTPAnswer/meaning`` each service's error type maps once.
public struct Fetcher: Sendable {
    public struct Limits: Sendable, Hashable {
        /// The deadline for the whole exchange, from connecting to the last body byte.
        public var timeout: Duration
        /// Answers larger than this are refused: a runaway body must not grow the daemon's memory.
        public var maxBodyBytes: Int
        /// Our own request bodies (a POST's JSON): refused before sending when larger.
        public var maxRequestBytes: Int = 64 * 1024

        public init(timeout: Duration, maxBodyBytes: Int) {
            self.timeout = timeout
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// The name in messages and logs (`open-meteo`, `nws`, `ip geolocation (ipinfo)`).
    public let service: String
    public let client: HTTPClient
    /// What every request carries as `User-Agent` (see ``UserAgent``).
    public let userAgent: String
    public let limits: Limits
    public let logger: Logger

    public init(service: String, client: HTTPClient, userAgent: String, limits: Limits, logger: Logger) {
        self.service = service
        self.client = client
        self.userAgent = userAgent
        self.limits = limits
        self.logger = logger
    }

    /// Sends one GET and reads the whole answer, whatever its status.
    public func get(_ url: URL, accept: String = "application/json", headers: [(String, String)] = [])
        async throws(FetchFailure) -> HTTPAnswer
    {
        try await send(
            FetchRequest(method: .get, url: url, accept: accept, headers: headers.map { (name: $0.0, value: $0.1) }))
    }

    /// Sends one POST of a JSON body and reads the whole answer, whatever its status.
    public func post(
        _ url: URL, json body: [UInt8], accept: String = "application/json", headers: [(String, String)] = []
    ) async throws(FetchFailure) -> HTTPAnswer {
        try await send(
            FetchRequest(
                method: .post, url: url, accept: accept, headers: headers.map { (name: $0.0, value: $0.1) },
                body: (contentType: "application/json", bytes: body)))
    }

    /// What ``get(_:accept:headers:)`` and ``post(_:json:accept:headers:)`` are made of.
    ///
    /// - Throws: ``FetchFailure`` when no complete answer came: see ``FetchFailure/Kind``.
    public func send(_ request: FetchRequest) async throws(FetchFailure) -> HTTPAnswer {
        var logger = self.logger
        logger[metadataKey: "http.service"] = "\(service)"
        logger[metadataKey: "http.method"] = "\(request.method.rawValue)"
        logger[metadataKey: "http.url"] = "\(QueryURL.redacted(request.url))"
        if let body = request.body, body.bytes.count > limits.maxRequestBytes {
            let failure = FetchFailure(
                service: service, kind: .tooLarge(limit: limits.maxRequestBytes),
                detail: "the request body is larger than \(ByteCount(limits.maxRequestBytes)); it was not sent")
            logger.warning("A request was not sent: its body is too large.", metadata: ["error": "\(failure.detail)"])
            throw failure
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = request.method == .get ? .GET : .POST
        outgoing.headers.add(name: "User-Agent", value: userAgent)
        outgoing.headers.add(name: "Accept", value: request.accept)
        if let body = request.body {
            outgoing.headers.add(name: "Content-Type", value: body.contentType)
            outgoing.body = .bytes(body.bytes)
        }
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }

        let started = ContinuousClock.now
        logger.debug("Sending an HTTP request.")
        do {
            let answer = try await perform(outgoing, until: started.advanced(by: limits.timeout), logger: logger)
            logger.debug(
                "The service answered.",
                metadata: [
                    "http.status": "\(answer.status)", "http.bytes": "\(answer.body.count)",
                    "http.elapsed_ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            return answer
        } catch {
            let failure = FetchFailure.classify(
                error, service: service, url: request.url, timeout: limits.timeout, maxBodyBytes: limits.maxBodyBytes)
            logger.debug(
                "The request failed.", metadata: ["error.kind": "\(failure.kindName)", "error": "\(failure.detail)"])
            throw failure
        }
    }

    private func perform(_ request: HTTPClientRequest, until end: ContinuousClock.Instant, logger: Logger)
        async throws -> HTTPAnswer
    {
        let response = try await client.execute(
            request, deadline: NIODeadline.now() + TimeAmount(limits.timeout), logger: logger)
        let limit = limits.maxBodyBytes
        let service = self.service
        let announced = response.headers.first(name: "content-length").flatMap(Int.init)
        if let announced, announced > limit {
            // Refused unread: the connection is closed rather than drained.
            throw FetchFailure.tooLarge(service: service, limit: limit)
        }
        // The client's deadline stops at the response head; the body gets what is left of the same budget.
        let body = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                // Room for the announced length at once: growing by doubling would hold up to twice the body.
                if let announced, announced > 0 { bytes.reserveCapacity(announced) }
                for try await chunk in response.body {
                    guard bytes.count + chunk.readableBytes <= limit else {
                        throw FetchFailure.tooLarge(service: service, limit: limit)
                    }
                    bytes.append(contentsOf: chunk.readableBytesView)
                }
                return bytes
            }
            group.addTask {
                try await Alarm.sleep(until: end)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return bytes
        }
        return HTTPAnswer(status: Int(response.status.code), headers: response.headers, body: body)
    }
}

/// One request as ``Fetcher/send(_:)`` sends it.
public struct FetchRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }
    public var method: Method
    public var url: URL
    /// The `Accept` header.
    public var accept: String
    /// More header fields; each replaces one of the same name (`User-Agent` and `Accept` included).
    public var headers: [(name: String, value: String)]
    /// The body and its media type (a POST's JSON).
    public var body: (contentType: String, bytes: [UInt8])?

    public init(
        method: Method, url: URL, accept: String = "application/json", headers: [(name: String, value: String)] = [],
        body: (contentType: String, bytes: [UInt8])? = nil
    ) {
        self.method = method
        self.url = url
        self.accept = accept
        self.headers = headers
        self.body = body
    }
}

extension TimeAmount {
    /// The same span as a Swift `Duration`, to the nanosecond.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
