import AsyncHTTPClient
import Fetching
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
    let source: String
    let fetcher: Fetcher
    let minimumInterval: TimeInterval
    private let now: @Sendable () -> Date
    private var lastRequest: Date?
    /// The last answer with its validators: one entry, so another key forgets it.
    private let cache = ConditionalCache<DecodedFeed>(capacity: 1)

    init(source: String, fetcher: Fetcher, minimumInterval: Duration, now: @escaping @Sendable () -> Date) {
        self.source = source
        self.fetcher = fetcher
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
                if let entry = await cache.entry(for: key) {
                    return (entry.value, entry.fetchedAt, true, allowed)
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
        let result: ConditionalAnswer<DecodedFeed>
        do {
            // Decoded before it is kept: a body that cannot be used must not be served again.
            result = try await fetcher.conditionalGet(
                url, key: key, cache: cache, accept: accept, now: now,
                decode: { (answer: HTTPAnswer) throws(WarningError) in try decode(Data(answer.body)) })
        } catch {
            switch error {
            case .fetch(let failure): throw WarningError(failure, source: source)
            case .decode(let failure): throw failure
            }
        }
        switch result {
        case .fresh(let feed, _), .notModified(let feed, _):
            let fetchedAt = await cache.entry(for: key)?.fetchedAt ?? now()
            return (feed, fetchedAt, false, nextRequest)
        case .other(let answer):
            throw WarningError(source: source, answer: answer, userAgent: fetcher.userAgent)
        }
    }
}

/// What every source is built from: the HTTP client, the User-Agent, the deadline, a clock; each source
/// makes its ``Fetcher`` from it with its own body cap.
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
        httpClient: HTTPClient, userAgent: String, timeout: Duration = .seconds(20), coordinatePrecision: Int,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.httpClient = httpClient
        self.userAgent = userAgent
        self.timeout = timeout
        self.coordinatePrecision = max(0, min(coordinatePrecision, 4))
        self.logger = logger
        self.now = now
    }

    /// A source's fetcher: the context's client, User-Agent and deadline with the source's own cap.
    func fetcher(source: String, maxBodyBytes: Int) -> Fetcher {
        Fetcher(
            service: source, client: httpClient, userAgent: userAgent,
            limits: Fetcher.Limits(timeout: timeout, maxBodyBytes: maxBodyBytes), logger: logger)
    }
}
