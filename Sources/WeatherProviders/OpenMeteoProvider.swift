import AsyncHTTPClient
import ForecastModel
import Foundation
import Logging

/// Open-Meteo's forecast API: keyless, global, the default provider.
///
/// One GET per forecast asks for current conditions, 7 days of hourly steps and 7 daily summaries in
/// metric units with the location's own time zone (`timezone=auto`).
public struct OpenMeteoProvider: WeatherProvider {
    /// The public endpoint.
    public static let defaultURL = URL(string: "https://api.open-meteo.com/v1/forecast")!

    /// The variables and options every request carries, in the order Open-Meteo documents them.
    ///
    /// Units are fixed to the canonical ones so no conversion is needed, although the decoder would
    /// convert if a configured URL asked for others.
    public static let queryParameters: [(String, String)] = [
        (
            "current",
            "temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m,"
                + "wind_direction_10m,precipitation,pressure_msl,is_day"
        ),
        (
            "hourly",
            "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,precipitation_probability,"
                + "weather_code,wind_speed_10m,wind_direction_10m,is_day"
        ),
        (
            "daily",
            "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,"
                + "wind_speed_10m_max,sunrise,sunset"
        ),
        ("timezone", "auto"),
        ("forecast_days", "7"),
        ("temperature_unit", "celsius"),
        ("wind_speed_unit", "kmh"),
        ("precipitation_unit", "mm"),
    ]

    public var name: String { OpenMeteoDecoder.providerName }

    /// The endpoint, possibly with a query of its own (a customer `apikey`, a `models=` choice).
    public let url: URL
    private let http: ProviderHTTP
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - url: the forecast endpoint, normally ``defaultURL``; its query, if any, is kept.
    ///   - timeout: the deadline for each request, from connecting to the last body byte.
    ///   - userAgent: how forecastd identifies itself (see ``UserAgent/make(version:contact:)``).
    ///   - now: the clock that stamps `fetchedAt`; tests pass a fixed one.
    public init(
        url: URL = OpenMeteoProvider.defaultURL, httpClient: HTTPClient, timeout: Duration, userAgent: String,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.http = ProviderHTTP(
            provider: OpenMeteoDecoder.providerName, httpClient: httpClient, timeout: timeout, userAgent: userAgent,
            logger: logger)
        self.now = now
    }

    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        let response = try await http.get(try requestURL(for: coordinate))
        let fetchedAt = now()
        let json = JSONValue.parse(Data(response.body))

        guard response.isSuccess else {
            let reason = json?["reason"]?.string
            switch response.status {
            case 429, 401, 403:
                // The status alone says what to do, whatever page a proxy put in the body.
                break
            default:
                if json == nil { throw notJSON(response) }
            }
            throw ProviderError.httpStatus(
                provider: name, status: response.status, reason: reason, retryAfter: response.retryAfter)
        }
        guard let json else { throw notJSON(response) }
        return try OpenMeteoDecoder.decode(json: json, fetchedAt: fetchedAt, requested: coordinate)
    }

    /// The request URL for a point: the configured URL's query followed by ours.
    ///
    /// Coordinates are rounded to 4 decimals (about 11 m): finer is noise to a 1–11 km weather grid,
    /// and shorter URLs keep Open-Meteo's cache hits up.
    public func requestURL(for coordinate: Coordinate) throws(ProviderError) -> URL {
        guard coordinate.latitude.isFinite, coordinate.longitude.isFinite else {
            throw ProviderError(
                provider: name, kind: .providerError,
                detail: "cannot ask for a forecast at (\(coordinate.latitude), \(coordinate.longitude)): "
                    + "latitude and longitude must be finite numbers")
        }
        let ours =
            [
                ("latitude", Self.format(coordinate.latitude)), ("longitude", Self.format(coordinate.longitude)),
            ] + Self.queryParameters
        let query = ours.map { "\($0.0)=\($0.1)" }.joined(separator: "&")

        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw ProviderError(
                provider: name, kind: .providerError, detail: "the URL \(url.absoluteString) cannot be parsed")
        }
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = [existing, query].compactMap { $0 }.joined(separator: "&")
        components.fragment = nil
        guard let result = components.url else {
            throw ProviderError(
                provider: name, kind: .providerError,
                detail: "the URL \(url.absoluteString) cannot take a query")
        }
        return result
    }

    /// `53.1875`, `-2.06`, `0`: at most 4 decimals, no trailing zeros, never exponent notation.
    static func format(_ degrees: Double) -> String {
        var text = String(format: "%.4f", degrees)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    private func notJSON(_ response: ProviderHTTPResponse) -> ProviderError {
        ProviderError(
            provider: name, kind: .badResponse,
            detail: "the response is not JSON (\(response.mediaType ?? "no content type"), \(response.status))")
    }
}
