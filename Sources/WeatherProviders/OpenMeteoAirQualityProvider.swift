import Fetching
import ForecastModel
import Foundation

/// Open-Meteo's Air Quality API (`/v1/air-quality`): keyless, global, CC BY 4.0, from the Copernicus
/// Atmosphere Monitoring Service (CAMS) forecasts.
///
/// One GET per reading asks for the current hour: the index of the caller's scale and its
/// sub-indices (which say the dominant pollutant), PM2.5, PM10, ozone, nitrogen dioxide, the UV index,
/// and pollen where Open-Meteo has it. Times come as Unix seconds (`timeformat=unixtime`), so no time
/// zone is asked for or needed. How often it may ask is ``AirQualityService``'s business.
public struct OpenMeteoAirQualityProvider: Sendable {
    /// Where Open-Meteo has pollen: the grid of the CAMS European air quality forecast that its pollen
    /// comes from (`CamsDomain.cams_europe` in Open-Meteo's server code: 700 × 420 points of 0.1°),
    /// 30.05–71.95° N, 24.95° W–44.95° E. Its documentation says pollen is "only available in Europe
    /// during pollen season". Outside this area pollen is not asked for at all; inside, it is asked
    /// all year, because the seasons differ by plant, place and year, and outside its season CAMS
    /// answers zero.
    public static let pollenLatitudes = 30.05...71.95
    public static let pollenLongitudes = -24.95...44.95

    public var name: String { OpenMeteoAirQualityDecoder.providerName }

    /// The endpoint, possibly with a query of its own (a customer `apikey`).
    public let url: URL
    private let fetcher: Fetcher
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - url: `[air] url` (``ServiceURL/openMeteoAirQuality`` by default); its query, if any, is kept.
    ///   - fetcher: the HTTP exchange (the daemon's User-Agent, `[air] timeout_seconds`).
    ///   - now: the clock that stamps `fetchedAt` and says which hour is wanted; tests pass their own.
    public init(url: URL, fetcher: Fetcher, now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.fetcher = fetcher
        self.now = now
    }

    /// Whether Open-Meteo has pollen at `coordinate` (``pollenLatitudes``, ``pollenLongitudes``).
    public static func hasPollen(at coordinate: Coordinate) -> Bool {
        pollenLatitudes.contains(coordinate.latitude) && pollenLongitudes.contains(coordinate.longitude)
    }

    /// The `current=` variables for a scale at a position, in the order they are sent; pollen only
    /// where Open-Meteo has it and when `pollen` is true (`[air] pollen`).
    ///
    /// 11 or 12 variables, 17 or 18 with pollen: Open-Meteo counts a request with more than 10
    /// variables as variables / 10 calls, so a reading costs 1.1 to 1.8 calls.
    public static func variables(scale: AQIScale, at coordinate: Coordinate, pollen: Bool = true) -> [String] {
        [OpenMeteoAirQualityDecoder.indexField(scale)]
            + OpenMeteoAirQualityDecoder.subIndexFields(scale).map(\.1)
            + OpenMeteoAirQualityDecoder.concentrationFields.map(\.1) + ["uv_index"]
            + (pollen && hasPollen(at: coordinate) ? OpenMeteoAirQualityDecoder.pollenFields.map(\.1) : [])
    }

    /// The request URL: the configured URL's query followed by ours. Coordinates with at most 4
    /// decimals; the caller rounds further (``AirQualityService`` as the provider chain does).
    public func requestURL(for coordinate: Coordinate, scale: AQIScale, pollen: Bool = true) throws(ProviderError)
        -> URL
    {
        try ProviderError.check(coordinate, provider: name)
        let items = [
            ("latitude", QueryURL.format(coordinate.latitude)),
            ("longitude", QueryURL.format(coordinate.longitude)),
            ("current", Self.variables(scale: scale, at: coordinate, pollen: pollen).joined(separator: ",")),
            ("timeformat", "unixtime"),
        ]
        return try QueryURL.make(url, items: items, provider: name)
    }

    /// Asks for the air at `coordinate` now, its index on `scale`, with pollen when `pollen` is true
    /// and Open-Meteo has it there.
    ///
    /// - Throws: ``ProviderError``: offline, timeout, an HTTP error with Open-Meteo's reason, or a bad
    ///   response (not JSON, no index, an absurd index; see ``OpenMeteoAirQualityDecoder``), including an
    ///   answer for another place or another time than asked (``AnswerCheck``, the forecast's rule).
    public func airQuality(
        for coordinate: Coordinate, scale: AQIScale, pollen: Bool = true
    ) async throws(ProviderError) -> AirQuality {
        let response = try await fetcher.get(
            try requestURL(for: coordinate, scale: scale, pollen: pollen), provider: name)
        let fetchedAt = now()
        let json = try response.openMeteoJSON(provider: name)
        let air = try OpenMeteoAirQualityDecoder.decode(
            json: json, scale: scale, fetchedAt: fetchedAt, now: fetchedAt, requested: coordinate)
        if let problem = AnswerCheck.place(air.coordinate, requested: coordinate)
            ?? AnswerCheck.time(air.time, now: fetchedAt)
        {
            throw ProviderError(provider: name, kind: .badResponse, detail: problem)
        }
        return air
    }
}
