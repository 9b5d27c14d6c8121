import Fetching
import ForecastModel
import Foundation
import Logging
import Waiting

/// What the point services share (``PointFeedSource`` and ``ECCCSource``): round the position, ask through the
/// source's gate, and match the answer at the exact position.
struct PointFeed: Sendable {
    let source: String
    let url: URL
    let decimals: Int
    let client: FeedClient
    let matcher = WarningMatcher()

    init(
        source: String, url: URL, decimals: Int, minimumInterval: Duration, maxBodyBytes: Int,
        context: WarningSourceContext
    ) {
        self.source = source
        self.url = url
        self.decimals = decimals
        self.client = FeedClient(
            source: source, fetcher: context.fetcher(source: source, maxBodyBytes: maxBodyBytes),
            minimumInterval: minimumInterval, now: context.now)
    }

    /// - Parameters:
    ///   - query: the query items for the rounded latitude and longitude, already formatted.
    ///   - decode: the source's decoder, given the rounded position that was asked for.
    func answer(
        at position: Coordinate, accept: String, query: (String, String) -> [(String, String)],
        decode: @escaping @Sendable (Data, Coordinate) throws(WarningError) -> DecodedFeed
    ) async throws(WarningError) -> SourceAnswer {
        try await answer(
            at: position, accept: accept, query: { latitude, longitude, _ in query(latitude, longitude) },
            decode: decode)
    }

    /// - Parameter query: the query items for the rounded latitude and longitude (formatted, then as numbers).
    func answer(
        at position: Coordinate, accept: String, query: (String, String, Coordinate) -> [(String, String)],
        decode: @escaping @Sendable (Data, Coordinate) throws(WarningError) -> DecodedFeed
    ) async throws(WarningError) -> SourceAnswer {
        try WarningError.check(position, source: source)
        let asked = position.rounded(decimals: decimals)
        let latitude = QueryURL.format(asked.latitude, decimals: decimals)
        let longitude = QueryURL.format(asked.longitude, decimals: decimals)
        let requestURL = try QueryURL.make(url, items: query(latitude, longitude, asked), source: source)
        let result = try await client.feed(key: "\(latitude),\(longitude)", url: requestURL, accept: accept) {
            data throws(WarningError) in try decode(data, asked)
        }
        return SourceAnswer(
            feed: matcher.match(result.feed, at: position), fetchedAt: result.fetchedAt, fromCache: result.fromCache,
            nextRequest: result.nextRequest)
    }
}

/// A warning service asked about one point, configured per service (``Service/nws``,
/// ``Service/metNorwayAlerts``, ``Service/brightSky``): the rounded position in the query, the answer matched
/// at the exact position.
public struct PointFeedSource: WarningSource {
    /// What differs between the point services.
    public struct Service: Sendable {
        /// The source identifier (`nws`).
        public var name: String
        /// The shortest time between two requests unless the settings say otherwise.
        public var defaultMinimumInterval: Duration
        /// A floor the service's terms set on the interval, whatever is asked.
        public var shortestInterval: Duration
        /// The largest answer read.
        public var maxBodyBytes: Int
        /// The most decimals the service takes (`[providers] coordinate_precision` is capped to it).
        public var maxDecimals: Int
        public var accept: String
        /// The query items for the rounded latitude and longitude, already formatted.
        var query: @Sendable (String, String) -> [(String, String)]
        /// The service's decoder, given the rounded position that was asked for.
        var decode: @Sendable (Data, Coordinate) throws(WarningError) -> DecodedFeed

        /// The National Weather Service's active alerts for a point (US and territories):
        /// `GET <url>?status=actual&point=LAT,LON` with `Accept: application/geo+json` and forecastd's
        /// User-Agent (NWS's terms ask for one that identifies the application and a contact). Alerts are issued
        /// and updated within minutes; five is the longest a tornado warning should wait. A point's alerts are
        /// kilobytes; a state's can reach a few hundred.
        public static let nws = Service(
            name: NWSDecoder.sourceName, defaultMinimumInterval: .seconds(5 * 60), shortestInterval: .zero,
            maxBodyBytes: 4 * 1024 * 1024, maxDecimals: 4, accept: "application/geo+json",
            query: { [("status", "actual"), ("point", "\($0),\($1)")] },
            decode: { data, asked throws(WarningError) in try NWSDecoder.decode(data, askedPoint: asked) })

        /// MET Norway's MetAlerts 2.0 for a point (Norway and its waters): `GET <url>?lat=..&lon=..&lang=en`
        /// with at most 4 decimals and forecastd's User-Agent, at most once every 10 minutes, as MET Norway's
        /// terms ask.
        public static let metNorwayAlerts = Service(
            name: MetNorwayAlertsDecoder.sourceName, defaultMinimumInterval: .seconds(10 * 60),
            shortestInterval: .seconds(10 * 60), maxBodyBytes: 4 * 1024 * 1024, maxDecimals: 4,
            accept: "application/json", query: { [("lat", $0), ("lon", $1), ("lang", "en")] },
            decode: { data, _ throws(WarningError) in try MetNorwayAlertsDecoder.decode(data) })

        /// The DWD's warnings through Bright Sky for a point (Germany): `GET <url>?lat=..&lon=..` with
        /// forecastd's User-Agent. The DWD updates its warnings every few minutes.
        public static let brightSky = Service(
            name: BrightSkyDecoder.sourceName, defaultMinimumInterval: .seconds(5 * 60), shortestInterval: .zero,
            maxBodyBytes: 2 * 1024 * 1024, maxDecimals: 4, accept: "application/json",
            query: { [("lat", $0), ("lon", $1)] },
            decode: { data, _ throws(WarningError) in try BrightSkyDecoder.decode(data) })
    }

    public let service: Service
    public var name: String { service.name }
    public let minimumInterval: Duration
    public var url: URL { feed.url }
    private let feed: PointFeed

    /// - Parameters:
    ///   - url: the service's `[warnings.*] url` (``ServiceURL``'s by default).
    ///   - minimumInterval: the service's default when nil; raised to its terms' floor when shorter.
    public init(_ service: Service, url: URL, minimumInterval: Duration? = nil, context: WarningSourceContext) {
        self.service = service
        self.minimumInterval = max(minimumInterval ?? service.defaultMinimumInterval, service.shortestInterval)
        feed = PointFeed(
            source: service.name, url: url, decimals: min(context.coordinatePrecision, service.maxDecimals),
            minimumInterval: self.minimumInterval, maxBodyBytes: service.maxBodyBytes, context: context)
    }

    public func warnings(at position: Coordinate) async throws(WarningError) -> SourceAnswer {
        try await feed.answer(at: position, accept: service.accept, query: service.query, decode: service.decode)
    }
}

/// Environment and Climate Change Canada's alerts (Canada) through MSC GeoMet's OGC API.
///
/// `GET <url>?f=json&lang=en&limit=500&bbox=W,S,E,N`, the box one rounding step
/// (`[providers] coordinate_precision`) around the rounded position, so it holds every position that rounds
/// the same way and the service is told no more than the rounded position. The answer lists the alerts of the
/// regions the box touches; ``WarningMatcher`` places the exact position in their polygons.
public struct ECCCSource: WarningSource {
    /// As often as NWS and Bright Sky: ECCC issues and updates within minutes.
    public static let defaultMinimumInterval: Duration = .seconds(5 * 60)
    /// A box's alerts carry their regions' polygons, up to a few hundred kilobytes each.
    public static let maxBodyBytes = 8 * 1024 * 1024
    /// Features asked for at once: far more than a box ever has (the service's default is 10).
    public static let pageSize = 500

    public var name: String { ECCCDecoder.sourceName }
    public let minimumInterval: Duration
    public var url: URL { feed.url }
    /// `en` or `fr`: the language of the texts (`[display] language`).
    public let language: String
    private let feed: PointFeed

    public init(
        url: URL, minimumInterval: Duration = ECCCSource.defaultMinimumInterval,
        language: String = "en", context: WarningSourceContext
    ) {
        self.minimumInterval = minimumInterval
        self.language = language.lowercased().hasPrefix("fr") ? "fr" : "en"
        feed = PointFeed(
            source: ECCCDecoder.sourceName, url: url, decimals: context.coordinatePrecision,
            minimumInterval: minimumInterval, maxBodyBytes: Self.maxBodyBytes, context: context)
    }

    public func warnings(at position: Coordinate) async throws(WarningError) -> SourceAnswer {
        let language = self.language
        let decimals = feed.decimals
        return try await feed.answer(
            at: position, accept: "application/geo+json, application/json",
            query: { _, _, asked in
                let step = pow(10, -Double(decimals))
                let box = [
                    asked.longitude - step, asked.latitude - step, asked.longitude + step, asked.latitude + step,
                ]
                .map { QueryURL.format($0, decimals: decimals) }
                return [
                    ("f", "json"), ("lang", language), ("limit", "\(Self.pageSize)"),
                    ("bbox", box.joined(separator: ",")),
                ]
            },
            decode: { data, _ throws(WarningError) in try ECCCDecoder.decode(data, language: language) })
    }
}

/// One country's MeteoAlarm feed (about 38 European countries), matched to the position by geometry.
///
/// `GET <url>feeds-<country>` (the country's whole feed: the position is never sent) with forecastd's
/// User-Agent and the validators of the last answer (`If-None-Match`, `If-Modified-Since`), so an
/// unchanged feed costs a 304 without a body. The position is placed in the warnings' areas by
/// ``WarningMatcher`` with the shipped ``MeteoAlarmAreas`` (MeteoAlarm's regions, then Eurostat's NUTS
/// regions), read for this country only and only once a warning needs them.
public actor MeteoAlarmSource: WarningSource {
    /// A country feed changes when a national service issues; with validators most requests are 304s.
    public static let defaultMinimumInterval: Duration = .seconds(10 * 60)
    /// A large country's feed (every language, every region) runs to a few megabytes.
    public static let defaultMaxBodyBytes = 16 * 1024 * 1024

    public nonisolated var name: String { MeteoAlarmDecoder.sourceName }
    public nonisolated let minimumInterval: Duration
    public nonisolated let url: URL
    /// ISO 3166-1 alpha-2 code of the country whose feed this is.
    public nonisolated let country: String
    /// The feed's name in MeteoAlarm's URLs (`united-kingdom`).
    public nonisolated let feed: String
    private let areasFiles: [URL]
    private let client: FeedClient
    private let logger: Logger
    private var matcher: WarningMatcher?

    /// - Parameters:
    ///   - country: the position's country (ISO code); it must have a feed (``MeteoAlarmCountries``).
    ///   - areasFiles: the shipped ``MeteoAlarmAreas`` files, MeteoAlarm's first (the daemon finds them as it
    ///     finds the gazetteer: in the `forecastd_Warnings.resources` bundle beside the executable, or under
    ///     `share/forecastd`); none places only warnings with shapes of their own.
    /// - Returns: nil when MeteoAlarm has no feed for `country`.
    public init?(
        country: String, url: URL,
        minimumInterval: Duration = MeteoAlarmSource.defaultMinimumInterval,
        maxBodyBytes: Int = MeteoAlarmSource.defaultMaxBodyBytes, areasFiles: [URL],
        context: WarningSourceContext
    ) {
        let code = country.uppercased()
        guard let feed = MeteoAlarmCountries.feed(for: code) else { return nil }
        self.country = code
        self.feed = feed
        self.url = url
        self.minimumInterval = minimumInterval
        self.areasFiles = areasFiles
        self.logger = context.logger
        self.client = FeedClient(
            source: MeteoAlarmDecoder.sourceName,
            fetcher: context.fetcher(source: MeteoAlarmDecoder.sourceName, maxBodyBytes: maxBodyBytes),
            minimumInterval: minimumInterval, now: context.now)
    }

    public func warnings(at position: Coordinate) async throws(WarningError) -> SourceAnswer {
        try WarningError.check(position, source: name)
        let requestURL = try QueryURL.make(url, appendingPath: "feeds-\(feed)", items: [], source: name)
        let result = try await client.feed(key: feed, url: requestURL, accept: "application/json") {
            data throws(WarningError) in try MeteoAlarmDecoder.decode(data)
        }
        return SourceAnswer(
            feed: await areaMatcher().match(result.feed, at: position), fetchedAt: result.fetchedAt,
            fromCache: result.fromCache, nextRequest: result.nextRequest)
    }

    /// The matcher with this country's region shapes, read once. A file that cannot be read is logged
    /// and its warnings stay unplaced: the feed's own polygons still work.
    private func areaMatcher() async -> WarningMatcher {
        if let matcher { return matcher }
        var areas: MeteoAlarmAreas?
        if !areasFiles.isEmpty {
            let (files, country) = (areasFiles, self.country)
            do {
                // About 1 MB read and parsed: on the blocking thread, never on an event loop.
                areas = try await Blocking.run { () throws(MeteoAlarmAreasError) in
                    try MeteoAlarmAreas.load(from: files, countries: [country])
                }
            } catch {
                logger.error(
                    "MeteoAlarm's region shapes cannot be read; warnings named only by region code stay unplaced.",
                    metadata: ["warnings.source": "\(name)", "error.message": "\(error)"])
            }
        }
        let made = WarningMatcher(areas: areas)
        matcher = made
        return made
    }
}
