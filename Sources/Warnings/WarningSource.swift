import AsyncHTTPClient
import ForecastModel
import Foundation
import Logging

/// A service that publishes official warnings: the I/O seam between the daemon and the network.
///
/// Each implementation keeps its service's terms: an identifying User-Agent, rounded coordinates,
/// at most one request per ``minimumInterval``, conditional requests where the service supports them.
public protocol WarningSource: Sendable {
    /// The stable source identifier (`nws`), as in ``WeatherWarning/source``.
    var name: String { get }
    /// The shortest time between two requests to the service.
    var minimumInterval: Duration { get }

    /// The service's current messages sorted by whether they cover `position`.
    ///
    /// Within ``minimumInterval`` of the last request, the last answer is matched again without a
    /// request when it was for the same rounded position (or the same country feed); for another
    /// position the call fails with ``WarningError/Reason/throttled(until:)``, which says when to ask.
    func warnings(at position: Coordinate) async throws(WarningError) -> SourceAnswer
}

/// A source's answer for a position.
public struct SourceAnswer: Sendable, Hashable {
    public var feed: MatchedFeed
    /// When the service last answered with content (a 304 keeps the earlier time's content fresh).
    public var fetchedAt: Date
    /// True when no request was made: the last answer was reused within the minimum interval.
    public var fromCache: Bool
    /// The earliest time the next request may be made.
    public var nextRequest: Date
}

/// What every source shares: the minimum interval, the last answer per key, and validators for
/// conditional requests. One per source instance; the key is what the request was about (a rounded
/// position, or a country feed).
actor FeedClient {
    private struct Entry {
        var key: String
        var feed: DecodedFeed?
        var fetchedAt: Date?
        var etag: String?
        var lastModified: String?
    }

    let source: String
    let http: WarningHTTP
    let minimumInterval: TimeInterval
    private let now: @Sendable () -> Date
    private var lastRequest: Date?
    private var entry: Entry?

    init(source: String, http: WarningHTTP, minimumInterval: Duration, now: @escaping @Sendable () -> Date) {
        self.source = source
        self.http = http
        let (seconds, attoseconds) = minimumInterval.components
        self.minimumInterval = Double(seconds) + Double(attoseconds) / 1e18
        self.now = now
    }

    /// The feed for `key`: from the last answer while the interval runs, else from the service.
    func feed(
        key: String, url: URL, accept: String, decode: @Sendable (Data) throws(WarningError) -> DecodedFeed
    ) async throws(WarningError) -> (feed: DecodedFeed, fetchedAt: Date, fromCache: Bool, nextRequest: Date) {
        let started = now()
        if let lastRequest {
            let allowed = lastRequest.addingTimeInterval(minimumInterval)
            if started < allowed {
                if let entry, entry.key == key, let feed = entry.feed, let fetchedAt = entry.fetchedAt {
                    return (feed, fetchedAt, true, allowed)
                }
                throw WarningError(
                    source: source, reason: .throttled(until: allowed),
                    detail: "asked for another position within \(Int(minimumInterval)) s of the last request; "
                        + "the service may be asked again at \(Timestamps.rfc3339(allowed))")
            }
        }
        // The slot is taken before the request, so concurrent callers cannot both spend it.
        lastRequest = started
        let nextRequest = started.addingTimeInterval(minimumInterval)
        var headers: [(String, String)] = []
        let previous = entry?.key == key ? entry : nil
        if let etag = previous?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = previous?.lastModified { headers.append(("If-Modified-Since", lastModified)) }

        let response = try await http.get(url, accept: accept, headers: headers)
        switch response.status {
        case 304:
            guard var previous, let feed = previous.feed else {
                throw WarningError(
                    source: source, reason: .unexpectedNotModified,
                    detail: "HTTP 304 Not Modified came back although no validator was sent")
            }
            let fetchedAt = now()
            previous.fetchedAt = fetchedAt
            previous.etag = response.headers.first(name: "etag") ?? previous.etag
            previous.lastModified = response.headers.first(name: "last-modified") ?? previous.lastModified
            entry = previous
            return (feed, fetchedAt, false, nextRequest)
        case 200..<300:
            // Decoded before it is kept: a body that cannot be used must not be served again.
            let feed = try decode(response.body)
            let fetchedAt = now()
            entry = Entry(
                key: key, feed: feed, fetchedAt: fetchedAt, etag: response.headers.first(name: "etag"),
                lastModified: response.headers.first(name: "last-modified"))
            return (feed, fetchedAt, false, nextRequest)
        case 429:
            let retryAfter = response.headers.first(name: "retry-after").flatMap(Int64.init).map(Duration.seconds)
            throw WarningError(
                source: source, reason: .rateLimited(retryAfter: retryAfter),
                detail: "HTTP 429: the service asks forecastd to slow down")
        case 403:
            throw WarningError(
                source: source, reason: .httpStatus(403),
                detail: "HTTP 403: the service refused the request (its terms ask for an identifying User-Agent; "
                    + "sent \"\(http.userAgent)\")")
        default:
            let page = FeedBody.isHTML(ArraySlice(response.body.prefix(512))) ? " (an HTML error page)" : ""
            throw WarningError(
                source: source, reason: .httpStatus(response.status), detail: "HTTP \(response.status)\(page)")
        }
    }
}

/// Query building shared by the sources.
enum WarningURL {
    /// `53.19`, `-2.06`, `0`: at most `decimals` decimals, no trailing zeros, never exponent notation.
    static func format(_ degrees: Double, decimals: Int) -> String {
        var text = String(format: "%.\(max(0, min(decimals, 4)))f", degrees)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// `base` with `items` added to its query (values already URL-safe).
    static func make(_ base: URL, appendingPath path: String? = nil, items: [(String, String)], source: String)
        throws(WarningError) -> URL
    {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw WarningError(source: source, reason: .malformed, detail: "the URL \(base) cannot be parsed")
        }
        if let path {
            var basePath = components.percentEncodedPath
            while basePath.hasSuffix("/") { basePath.removeLast() }
            components.percentEncodedPath = basePath + "/" + path
        }
        if !items.isEmpty {
            let query = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
            components.percentEncodedQuery = [existing, query].compactMap { $0 }.joined(separator: "&")
        }
        guard let url = components.url, url.scheme != nil, url.host != nil else {
            throw WarningError(source: source, reason: .malformed, detail: "the URL \(base) is not a valid http(s) URL")
        }
        return url
    }

    /// Refuses a position no service can answer for, before any request.
    static func check(_ position: Coordinate, source: String) throws(WarningError) {
        guard position.latitude.isFinite, position.longitude.isFinite, abs(position.latitude) <= 90,
            abs(position.longitude) <= 180
        else {
            throw WarningError(
                source: source, reason: .malformed,
                detail: "cannot ask for warnings at (\(position.latitude), \(position.longitude)): latitude must be "
                    + "within -90...90 and longitude within -180...180")
        }
    }
}

/// What every source is built from: the HTTP client, the User-Agent, the deadline, a clock.
public struct WarningSourceContext: Sendable {
    public var httpClient: HTTPClient
    /// forecastd's identifying User-Agent (`forecastd/0.3.0 (me@example.org)`); NWS and MET Norway
    /// require one.
    public var userAgent: String
    public var timeout: Duration
    /// Decimals of latitude and longitude sent to point services (0...4): `[providers] coordinate_precision`.
    public var coordinatePrecision: Int
    public var logger: Logger
    public var now: @Sendable () -> Date

    public init(
        httpClient: HTTPClient, userAgent: String, timeout: Duration = .seconds(20), coordinatePrecision: Int = 2,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.httpClient = httpClient
        self.userAgent = userAgent
        self.timeout = timeout
        self.coordinatePrecision = max(0, min(coordinatePrecision, 4))
        self.logger = logger
        self.now = now
    }

    func http(source: String, maxBodyBytes: Int) -> WarningHTTP {
        WarningHTTP(
            source: source, httpClient: httpClient, timeout: timeout, userAgent: userAgent,
            maxBodyBytes: maxBodyBytes, logger: logger)
    }
}
