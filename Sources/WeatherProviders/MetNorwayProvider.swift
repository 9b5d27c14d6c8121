import AsyncHTTPClient
import ForecastModel
import Foundation
import Logging
import NIOHTTP1

/// MET Norway's Locationforecast 2.0: keyless, global, CC BY 4.0, with terms a client must keep.
///
/// The terms, and how this provider keeps them:
/// - An identifying User-Agent with a contact (`forecastd/0.2.0 (+mailto:me@example.org)`): without
///   one the service answers 403. Built by ``UserAgent/make(version:contact:)`` from `[providers.met_norway] contact`.
/// - At most 4 decimals in `lat`/`lon`.
/// - No request before the last answer's `Expires`: until then the cached forecast is served without
///   asking. After it, `If-Modified-Since` carries the last `Last-Modified`, and a 304 serves the cache.
/// - 203 means the product is deprecated: the forecast is used and says so in its ``Forecast/notes``.
///
/// The cache is keyed by the coordinate as sent (4 decimals) and lives as long as the provider.
public struct MetNorwayProvider: WeatherProvider {
    /// The public endpoint of the compact product.
    public static let defaultURL = URL(string: "https://api.met.no/weatherapi/locationforecast/2.0/compact")!
    /// An `Expires` further ahead than this is not believed: a misconfigured cache must not freeze the
    /// forecast for days.
    public static let longestExpiry: TimeInterval = 3 * 3600
    /// How many locations the cache keeps (the least recently used goes first).
    static let cacheCapacity = 16

    public var name: String { MetNorwayDecoder.providerName }

    public let url: URL
    /// The User-Agent every request carries.
    public let userAgent: String
    private let contactGiven: Bool
    private let http: ProviderHTTP
    private let logger: Logger
    private let timeZone: @Sendable (Coordinate) -> TimeZone?
    private let now: @Sendable () -> Date
    private let cache = MetNorwayCache()

    /// - Parameters:
    ///   - url: `[providers.met_norway] url`, normally ``defaultURL``.
    ///   - version: forecastd's version, for the User-Agent.
    ///   - contact: `[providers.met_norway] contact`: an e-mail address or URL where MET Norway can reach
    ///     the operator. Empty is allowed but risks a 403.
    ///   - timeout: `[providers.met_norway] timeout_seconds`, the deadline of each request.
    ///   - timeZone: the location's time zone (the daemon passes the gazetteer place's IANA zone); nil
    ///     when unknown, and days are then counted at an offset estimated from the longitude.
    ///   - now: the clock for `Expires` and `fetchedAt`; tests pass a fixed one.
    public init(
        url: URL = MetNorwayProvider.defaultURL, version: String, contact: String, httpClient: HTTPClient,
        timeout: Duration, logger: Logger, timeZone: @escaping @Sendable (Coordinate) -> TimeZone? = { _ in nil },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        let contact = contact.trimmingCharacters(in: .whitespaces)
        self.contactGiven = !contact.isEmpty
        self.userAgent = UserAgent.make(version: version, contact: contact)
        self.http = ProviderHTTP(
            provider: MetNorwayDecoder.providerName, httpClient: httpClient, timeout: timeout, userAgent: userAgent,
            logger: logger)
        self.logger = logger
        self.timeZone = timeZone
        self.now = now
    }

    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        try ProviderURL.check(coordinate, provider: name)
        let latitude = ProviderURL.format(coordinate.latitude)
        let longitude = ProviderURL.format(coordinate.longitude)
        let key = "\(latitude),\(longitude)"
        let zone = timeZone(coordinate)
        let started = now()
        let cached = await cache.entry(for: key)

        if let cached, let expires = cached.expires, started < expires {
            logger.debug(
                "Serving MET Norway's cached forecast: its Expires time has not come.",
                metadata: [
                    "provider": "\(name)", "cache.key": "\(key)", "cache.expires": "\(Timestamps.rfc3339(expires))",
                ])
            return try decode(cached, now: started, timeZone: zone, requested: coordinate)
        }
        if !contactGiven, await cache.shouldWarnAboutContact() {
            logger.warning(
                "MET Norway asks every client for a contact in its User-Agent; set [providers.met_norway] contact.",
                metadata: ["provider": "\(name)", "http.user_agent": "\(userAgent)"])
        }

        let requestURL = try ProviderURL.make(url, items: [("lat", latitude), ("lon", longitude)], provider: name)
        var headers: [(String, String)] = []
        if let lastModified = cached?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let response = try await http.get(requestURL, headers: headers)
        let receivedAt = now()
        let expires = Self.expiry(response.headers, receivedAt: receivedAt)

        switch response.status {
        case 304:
            guard var entry = cached else {
                throw ProviderError(
                    provider: name, kind: .badResponse,
                    detail: "HTTP 304 Not Modified came back although no If-Modified-Since was sent")
            }
            entry.expires = expires
            entry.fetchedAt = receivedAt
            entry.lastModified = response.headers.first(name: "last-modified") ?? entry.lastModified
            await cache.store(entry, for: key)
            logger.debug(
                "MET Norway's forecast has not changed since the last answer.",
                metadata: ["provider": "\(name)", "cache.key": "\(key)"])
            return try decode(entry, now: receivedAt, timeZone: zone, requested: coordinate)
        case 200, 203:
            guard let json = JSONValue.parse(Data(response.body)) else {
                throw ProviderError(
                    provider: name, kind: .badResponse,
                    detail: "the response is not JSON (\(response.mediaType ?? "no content type"), \(response.status))")
            }
            let entry = MetNorwayCache.Entry(
                json: json, fetchedAt: receivedAt, expires: expires,
                lastModified: response.headers.first(name: "last-modified"), deprecated: response.status == 203)
            // Decoded before it is cached: a body that cannot be used must not be served again.
            let forecast = try decode(entry, now: receivedAt, timeZone: zone, requested: coordinate)
            await cache.store(entry, for: key)
            if entry.deprecated {
                logger.warning(
                    "MET Norway says this product is deprecated (HTTP 203); forecastd needs an update before it is withdrawn.",
                    metadata: ["provider": "\(name)", "http.url": "\(url.absoluteString)"])
            }
            return forecast
        case 403:
            throw ProviderError(
                provider: name, kind: .auth,
                detail: "HTTP 403: MET Norway refused the request. Its terms require a User-Agent that identifies "
                    + "the application and a contact (sent: \"\(userAgent)\"); set [providers.met_norway] contact "
                    + "to your e-mail address or URL")
        default:
            let json = JSONValue.parse(Data(response.body))
            let reason = json?["message"]?.string ?? json?["reason"]?.string
            throw ProviderError.httpStatus(
                provider: name, status: response.status, reason: reason, retryAfter: response.retryAfter)
        }
    }

    private func decode(
        _ entry: MetNorwayCache.Entry, now: Date, timeZone: TimeZone?, requested: Coordinate
    ) throws(ProviderError) -> Forecast {
        var forecast = try MetNorwayDecoder.decode(
            json: entry.json, fetchedAt: entry.fetchedAt, now: now, timeZone: timeZone, requested: requested)
        if entry.deprecated {
            forecast.notes.append(
                "\(name): MET Norway announced (HTTP 203) that this product version is deprecated and will be "
                    + "withdrawn; update forecastd")
        }
        return forecast
    }

    /// When the answer may next be asked for again: its `Expires`, never in the past, at most
    /// ``longestExpiry`` ahead; nil without a usable `Expires`.
    static func expiry(_ headers: HTTPHeaders, receivedAt: Date) -> Date? {
        guard let expires = HTTPDate.parse(headers.first(name: "expires")), expires > receivedAt else { return nil }
        return min(expires, receivedAt.addingTimeInterval(longestExpiry))
    }
}

/// MET Norway's answers by location, so the provider keeps the service's caching rules.
actor MetNorwayCache {
    struct Entry: Sendable {
        var json: JSONValue
        var fetchedAt: Date
        var expires: Date?
        var lastModified: String?
        var deprecated: Bool
    }

    private var entries: [String: Entry] = [:]
    /// Keys from least to most recently used.
    private var recency: [String] = []
    private var warnedAboutContact = false

    func entry(for key: String) -> Entry? {
        guard let entry = entries[key] else { return nil }
        touch(key)
        return entry
    }

    func store(_ entry: Entry, for key: String) {
        entries[key] = entry
        touch(key)
        while recency.count > MetNorwayProvider.cacheCapacity {
            entries.removeValue(forKey: recency.removeFirst())
        }
    }

    /// True the first time only, so a missing contact is logged once per provider, not per request.
    func shouldWarnAboutContact() -> Bool {
        defer { warnedAboutContact = true }
        return !warnedAboutContact
    }

    private func touch(_ key: String) {
        recency.removeAll { $0 == key }
        recency.append(key)
    }
}
