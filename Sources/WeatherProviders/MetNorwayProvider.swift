import Fetching
import ForecastModel
import Foundation
import Logging

/// MET Norway's Locationforecast 2.0: keyless, global, CC BY 4.0, with terms a client must keep.
///
/// The terms, and how this provider keeps them:
/// - An identifying User-Agent with a contact (`forecastd/0.2.0 (+mailto:me@example.org)`): without
///   one the service answers 403. Built by ``UserAgent/identifying(contact:)`` from `[providers.met_norway] contact`.
/// - At most 4 decimals in `lat`/`lon`.
/// - No request before the last answer's `Expires`: until then the cached forecast is served without
///   asking. After it, `If-Modified-Since` carries the last `Last-Modified`, and a 304 serves the cache.
/// - 203 means the product is deprecated: the forecast is used and says so in its ``Forecast/notes``.
///
/// The cache is keyed by the coordinate as sent (4 decimals) and lives as long as the provider.
public struct MetNorwayProvider: WeatherProvider {
    /// An `Expires` further ahead than this is not believed: a misconfigured cache must not freeze the
    /// forecast for days.
    public static let longestExpiry: TimeInterval = 3 * 3600
    /// How many locations the cache keeps (the least recently used goes first).
    static let cacheCapacity = 16

    public var name: String { MetNorwayDecoder.providerName }

    public let url: URL
    /// The User-Agent every request carries.
    public var userAgent: String { fetcher.userAgent }
    private let contactGiven: Bool
    private let fetcher: Fetcher
    private let logger: Logger
    private let timeZone: @Sendable (Coordinate) -> TimeZone?
    private let now: @Sendable () -> Date
    private let cache = ConditionalCache<MetNorwayAnswer>(capacity: MetNorwayProvider.cacheCapacity)
    private let contactWarning = OnceFlag()

    /// - Parameters:
    ///   - url: `[providers.met_norway] url` (``ServiceURL/metNorway`` by default).
    ///   - contact: `[providers.met_norway] contact`: an e-mail address or URL where MET Norway can reach
    ///     the operator. Empty is allowed but risks a 403 (and is logged once).
    ///   - fetcher: the HTTP exchange, whose User-Agent names the contact (``UserAgent/identifying(contact:)``)
    ///     and whose deadline is `[providers.met_norway] timeout_seconds`.
    ///   - timeZone: the location's time zone (the daemon passes the gazetteer place's IANA zone); nil
    ///     when unknown, and days are then counted at an offset estimated from the longitude.
    ///   - now: the clock for `Expires` and `fetchedAt`; tests pass a fixed one.
    public init(
        url: URL, contact: String, fetcher: Fetcher, logger: Logger,
        timeZone: @escaping @Sendable (Coordinate) -> TimeZone? = { _ in nil },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.contactGiven = !contact.trimmingCharacters(in: .whitespaces).isEmpty
        self.fetcher = fetcher
        self.logger = logger
        self.timeZone = timeZone
        self.now = now
    }

    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        try ProviderError.check(coordinate, provider: name)
        let latitude = QueryURL.format(coordinate.latitude)
        let longitude = QueryURL.format(coordinate.longitude)
        let key = "\(latitude),\(longitude)"
        let zone = timeZone(coordinate)
        let started = now()

        if let cached = await cache.entry(for: key), let expires = cached.expires, started < expires {
            logger.debug(
                "Serving MET Norway's cached forecast: its Expires time has not come.",
                metadata: [
                    "provider": "\(name)", "cache.key": "\(key)", "cache.expires": "\(Timestamps.rfc3339(expires))",
                ])
            return try decode(cached.value, fetchedAt: cached.fetchedAt, now: started, timeZone: zone, requested: coordinate)
        }
        if !contactGiven, await contactWarning.first() {
            logger.warning(
                "MET Norway asks every client for a contact in its User-Agent; set [providers.met_norway] contact.",
                metadata: ["provider": "\(name)", "http.user_agent": "\(userAgent)"])
        }

        let requestURL = try QueryURL.make(url, items: [("lat", latitude), ("lon", longitude)], provider: name)
        // The forecast of a fresh answer, decoded before the answer is kept: a body that cannot be used must
        // not be served again.
        var fresh: Forecast?
        let result: ConditionalAnswer<MetNorwayAnswer>
        do {
            result = try await fetcher.conditionalGet(
                requestURL, key: key, cache: cache, now: now,
                expires: { answer, receivedAt in Self.expiry(answer, receivedAt: receivedAt) },
                decode: { (answer: HTTPAnswer) throws(ProviderError) -> MetNorwayAnswer in
                    guard answer.status == 200 || answer.status == 203 else {
                        throw ProviderError(provider: name, answer: answer, reason: nil)
                    }
                    guard let json = JSONValue.parse(Data(answer.body)) else { throw answer.notJSON(provider: name) }
                    let value = MetNorwayAnswer(json: json, deprecated: answer.status == 203)
                    let receivedAt = now()
                    fresh = try self.decode(value, fetchedAt: receivedAt, now: receivedAt, timeZone: zone, requested: coordinate)
                    return value
                })
        } catch {
            switch error {
            case .fetch(let failure): throw ProviderError(failure, provider: name)
            case .decode(let failure): throw failure
            }
        }

        switch result {
        case .fresh(let value, _):
            if value.deprecated {
                logger.warning(
                    "MET Norway says this product is deprecated (HTTP 203); forecastd needs an update before it is withdrawn.",
                    metadata: ["provider": "\(name)", "http.url": "\(url.absoluteString)"])
            }
            guard let fresh else { throw ProviderError(provider: name, kind: .badResponse, detail: "no forecast was decoded") }
            return fresh
        case .notModified(let value, _):
            logger.debug(
                "MET Norway's forecast has not changed since the last answer.",
                metadata: ["provider": "\(name)", "cache.key": "\(key)"])
            let fetchedAt = await cache.entry(for: key)?.fetchedAt ?? now()
            return try decode(value, fetchedAt: fetchedAt, now: fetchedAt, timeZone: zone, requested: coordinate)
        case .other(let answer) where answer.status == 403:
            throw ProviderError(
                provider: name, kind: .auth,
                detail: "HTTP 403: MET Norway refused the request. Its terms require a User-Agent that identifies "
                    + "the application and a contact (sent: \"\(userAgent)\"); set [providers.met_norway] contact "
                    + "to your e-mail address or URL")
        case .other(let answer):
            let json = JSONValue.parse(Data(answer.body))
            let reason = json?["message"]?.string ?? json?["reason"]?.string
            throw ProviderError(provider: name, answer: answer, reason: reason)
        }
    }

    private func decode(
        _ value: MetNorwayAnswer, fetchedAt: Date, now: Date, timeZone: TimeZone?, requested: Coordinate
    ) throws(ProviderError) -> Forecast {
        var forecast = try MetNorwayDecoder.decode(
            json: value.json, fetchedAt: fetchedAt, now: now, timeZone: timeZone, requested: requested)
        if value.deprecated {
            forecast.notes.append(
                "\(name): MET Norway announced (HTTP 203) that this product version is deprecated and will be "
                    + "withdrawn; update forecastd")
        }
        return forecast
    }

    /// When the answer may next be asked for again: its `Expires`, never in the past, at most
    /// ``longestExpiry`` ahead; nil without a usable `Expires`.
    static func expiry(_ answer: HTTPAnswer, receivedAt: Date) -> Date? {
        guard let expires = answer.expires, expires > receivedAt else { return nil }
        return min(expires, receivedAt.addingTimeInterval(longestExpiry))
    }
}

/// One MET Norway answer as kept for its location: the JSON and whether it came as 203 (deprecated).
struct MetNorwayAnswer: Sendable {
    var json: JSONValue
    var deprecated: Bool
}

/// True the first time only, so a missing contact is logged once per provider, not per request.
actor OnceFlag {
    private var done = false

    func first() -> Bool {
        defer { done = true }
        return !done
    }
}
