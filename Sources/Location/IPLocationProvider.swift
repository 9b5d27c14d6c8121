import AsyncHTTPClient
import Fetching
import FileStore
import ForecastModel
import Foundation
import Logging
import Waiting

/// Positions from IP geolocation services: city-level at best, wrong behind a VPN, and asked rarely.
///
/// A lookup asks the services in order until one gives a position. At most one lookup an hour is
/// made, whatever happens (a restart included: the last lookup and its answer are kept in a small file
/// in the state directory). A service that asks to slow down (HTTP 429, its own rate-limit answer,
/// `Retry-After`, ip-api's `X-Ttl`) is not asked again before it allows. The one exception to the hourly
/// rule is a lookup that reached no service at all (offline): it is retried after a few minutes, since
/// no service saw it.
///
/// The daemon runs this provider only while it needs it (no fresh or recent gpsd fix, no static
/// file), so a machine with a working receiver never tells anyone its address.
public struct IPLocationProvider: LocationProvider {
    public struct Endpoint: Sendable, Hashable {
        public var service: IPGeolocationService
        public var url: URL

        public init(service: IPGeolocationService, url: URL) {
            self.service = service
            self.url = url
        }
    }

    /// The deadline of one service's answer: there is no settings key, and an answer is a few hundred bytes.
    public static let timeout: Duration = .seconds(10)
    /// An answer is a few hundred bytes; anything near this is not one.
    public static let maxBodyBytes = 64 * 1024

    /// Removes what an interrupted run left beside the saved lookup at `cachePath` (temporaries of its
    /// atomic writes, old set-aside copies). At start, before the provider runs.
    @discardableResult
    public static func removeLeftovers(cachePath: String) -> [String] {
        IPLocationCache.file(cachePath).removeLeftovers()
    }

    public var endpoints: [Endpoint]
    /// One per endpoint, in the same order.
    let fetchers: [Fetcher]
    /// The file that keeps the last lookup across restarts; nil keeps it in memory only.
    public var cachePath: String?
    public var minimumInterval: Duration
    public var offlineRetry: Duration
    let logger: Logger
    let clock: @Sendable () -> Date
    /// Waits a duration: the daemon's timer (``Alarm/sleep(for:)``) unless a test lends its own.
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - client, userAgent: how the services are asked (the daemon's client and User-Agent); each endpoint
    ///     gets its own ``Fetcher`` with ``timeout`` and ``maxBodyBytes``.
    public init(
        endpoints: [Endpoint], client: HTTPClient, userAgent: String, timeout: Duration = IPLocationProvider.timeout,
        cachePath: String?, minimumInterval: Duration = .seconds(3600), offlineRetry: Duration = .seconds(300),
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) {
        self.endpoints = endpoints
        self.fetchers = endpoints.map { endpoint in
            Fetcher(
                service: "ip geolocation (\(endpoint.service.rawValue))", client: client, userAgent: userAgent,
                limits: Fetcher.Limits(timeout: timeout, maxBodyBytes: Self.maxBodyBytes), logger: logger)
        }
        self.cachePath = cachePath
        self.minimumInterval = minimumInterval
        self.offlineRetry = offlineRetry
        self.logger = logger
        self.clock = clock
        self.sleep = sleep ?? { try await Alarm.sleep(for: $0) }
    }

    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        // Read on the blocking thread, as it is saved: not on the event loop this task runs on.
        var cache = await Blocking.run { [cachePath, logger] in IPLocationCache.load(from: cachePath, logger: logger) }
        if let result = cache.result, let at = cache.lookedUpAt {
            // The cached answer serves at once; its age shows in the report.
            deliver(.fix(result.fix(receivedAt: at)))
        }
        while !Task.isCancelled {
            let now = clock()
            let next = cache.nextLookup(
                services: endpoints.map(\.service), minimumInterval: minimumInterval, offlineRetry: offlineRetry)
            if next > now {
                // One timer for the moment the lookup falls due. The wait is measured on the monotonic clock,
                // so a wall clock set back while it runs cannot postpone the lookup; a moment further off than
                // the longest wait the rules allow can only come from a clock set back before, so it is
                // judged again after that longest wait rather than trusted.
                let longest = max(minimumInterval, offlineRetry, .seconds(3600))
                let wait = min(max(next.timeIntervalSince(now), 0.05), TimeInterval(longest.components.seconds))
                do {
                    try await sleep(.milliseconds(Int64((wait * 1000).rounded(.up))))
                } catch {
                    return
                }
                continue
            }
            let event = await lookUp(&cache, now: now)
            await Blocking.run { [cache, cachePath, logger] in cache.save(to: cachePath, logger: logger) }
            if let event { deliver(event) }
        }
    }

    /// Asks the services in order until one answers with a position.
    func lookUp(_ cache: inout IPLocationCache, now: Date) async -> LocationEvent? {
        var failures: [IPGeolocationFailure] = []
        for (endpoint, fetcher) in zip(endpoints, fetchers) {
            if Task.isCancelled { return nil }
            if let until = cache.blockedUntil[endpoint.service.rawValue], until > now {
                failures.append(
                    IPGeolocationFailure(
                        service: endpoint.service, kind: .rateLimited,
                        detail: "rate limited until \(Timestamps.rfc3339(until)); not asked"))
                continue
            }
            let outcome: Result<IPGeolocationResult, IPGeolocationFailure>
            do {
                outcome = endpoint.service.decode(try await fetcher.get(endpoint.url))
            } catch {
                outcome = .failure(IPGeolocationFailure(error, service: endpoint.service))
            }
            switch outcome {
            case .success(let result):
                cache.result = result
                cache.lookedUpAt = now
                cache.lastAttempt = now
                cache.lastAttemptReachedNoService = false
                logger.info(
                    "IP geolocation placed this machine's public address.",
                    metadata: [
                        "ip.service": "\(result.service.rawValue)", "ip.place": "\(result.summary)",
                        "location.latitude": "\(result.coordinate.latitude)",
                        "location.longitude": "\(result.coordinate.longitude)",
                    ])
                return .fix(result.fix(receivedAt: now))
            case .failure(let failure):
                failures.append(failure)
                if failure.kind == .rateLimited {
                    // Never before the service allows, and never sooner than the hourly rule anyway.
                    let wait = max(failure.retryAfter?.seconds ?? 3600, minimumInterval.seconds)
                    cache.blockedUntil[endpoint.service.rawValue] = now.addingTimeInterval(wait)
                }
                logger.debug(
                    "An IP geolocation service gave no position.",
                    metadata: ["ip.service": "\(failure.service.rawValue)", "error.kind": "\(failure.kind.rawValue)", "error": "\(failure.detail)"])
            }
        }
        cache.lastAttempt = now
        cache.lastAttemptReachedNoService = !failures.isEmpty && failures.allSatisfy { $0.kind == .offline }
        let reason =
            failures.isEmpty
            ? "no IP geolocation service is configured"
            : "no IP geolocation service gave a position: " + failures.map(\.description).joined(separator: "; ")
        logger.warning("IP geolocation failed.", metadata: ["error": "\(reason)"])
        return .unavailable(source: .ip, reason: reason)
    }
}

/// The last IP lookup, kept across restarts so that restarting the daemon never means another lookup.
struct IPLocationCache: VersionedState, Hashable {
    static let version = 1
    /// The largest `ip-location.json` read: one answer and a few dates are under a kilobyte.
    static let maximumFileBytes = 64 << 10

    var version: Int = Self.version
    var result: IPGeolocationResult?
    var lookedUpAt: Date?
    var lastAttempt: Date?
    /// Whether the last attempt reached no service at all (offline): such an attempt is retried sooner.
    var lastAttemptReachedNoService = false
    /// Services that asked to slow down, by raw name, and until when.
    var blockedUntil: [String: Date] = [:]

    /// When the next lookup may be made.
    func nextLookup(services: [IPGeolocationService], minimumInterval: Duration, offlineRetry: Duration) -> Date {
        guard let lastAttempt else { return .distantPast }
        var next = lastAttempt.addingTimeInterval(lastAttemptReachedNoService ? offlineRetry.seconds : minimumInterval.seconds)
        // When every service is blocked for longer, wait for the first to allow again.
        let blocks = services.map { blockedUntil[$0.rawValue] ?? .distantPast }
        if let earliest = blocks.min(), earliest > next { next = earliest }
        return next
    }

    /// The file at `path`: ISO 8601 dates, pretty-printed, for people who look at it.
    static func file(_ path: String) -> VersionedJSONFile<IPLocationCache> {
        VersionedJSONFile(path: path, dates: .iso8601, pretty: true, maximumBytes: maximumFileBytes)
    }

    /// The saved lookup; an empty cache when there is none, or when it could not be used (then it is set
    /// aside as `ip-location.json.corrupt-<seconds>` and logged).
    static func load(from path: String?, logger: Logger) -> IPLocationCache {
        guard let path else { return IPLocationCache() }
        switch file(path).load() {
        case .value(let cache):
            return cache
        case .missing:
            return IPLocationCache()
        case .unusable(let reason, let aside):
            logger.warning(
                "The saved IP lookup cannot be read; it will be done again.",
                metadata: ["path": "\(path)", "set_aside_as": "\(aside ?? "(could not rename)")", "error": "\(reason)"])
            return IPLocationCache()
        }
    }

    func save(to path: String?, logger: Logger) {
        guard let path else { return }
        do {
            try Self.file(path).save(self)
        } catch {
            logger.warning(
                "The IP lookup could not be saved; a restart may look it up again.",
                metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
