import Fetching
import ForecastModel
import Foundation

/// Open-Meteo's forecast API: keyless, global, the default provider.
///
/// One GET per forecast asks for current conditions, the precipitation of the next 3 hours in 15-minute
/// steps (for the nowcast), 48 hourly steps and 7 daily summaries in metric units with the location's own
/// time zone (`timezone=auto`).
public struct OpenMeteoProvider: WeatherProvider {
    /// The variables and options every request carries, in the order Open-Meteo documents them.
    ///
    /// Current conditions, the precipitation of 12 quarter hours (`forecast_minutely_15` counts from the
    /// current one, so at least 2.5 hours lie ahead and the nowcast's 2 hours stay covered until two
    /// refreshes later), the next 48 hours (`forecast_hours` counts from the current hour) and
    /// today + 6 days, in the canonical units so no conversion is needed (the decoder would convert
    /// if a configured URL asked for others). 38 variables: Open-Meteo counts a request with more than
    /// 10 variables as variables / 10 calls (here 3.8; see docs/privacy.md), so nothing is asked twice:
    /// the current UV index and visibility come from the hourly step of the current hour, and the
    /// chance of precipitation of each quarter hour from its hour (Open-Meteo has no 15-minute one).
    public static let queryParameters: [(String, String)] = [
        (
            "current",
            "temperature_2m,apparent_temperature,relative_humidity_2m,dew_point_2m,weather_code,is_day,"
                + "precipitation,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,wind_gusts_10m"
        ),
        ("minutely_15", "precipitation"),
        (
            "hourly",
            "temperature_2m,apparent_temperature,relative_humidity_2m,dew_point_2m,precipitation_probability,"
                + "precipitation,weather_code,pressure_msl,cloud_cover,visibility,wind_speed_10m,"
                + "wind_direction_10m,wind_gusts_10m,uv_index,is_day"
        ),
        (
            "daily",
            "weather_code,temperature_2m_max,temperature_2m_min,sunrise,sunset,uv_index_max,precipitation_sum,"
                + "precipitation_probability_max,wind_speed_10m_max,wind_gusts_10m_max"
        ),
        ("timezone", "auto"),
        ("forecast_days", "7"),
        ("forecast_minutely_15", "12"),
        ("forecast_hours", "48"),
        ("temperature_unit", "celsius"),
        ("wind_speed_unit", "kmh"),
        ("precipitation_unit", "mm"),
    ]

    /// How many variables a request asks for, the measure of Open-Meteo's call weighting.
    public static var variableCount: Int {
        queryParameters.filter { ["current", "minutely_15", "hourly", "daily"].contains($0.0) }
            .map { $0.1.split(separator: ",").count }.reduce(0, +)
    }

    public var name: String { OpenMeteoDecoder.providerName }

    /// The endpoint, possibly with a query of its own (a customer `apikey`, a `models=` choice).
    public let url: URL
    private let fetcher: Fetcher
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - url: `[providers.open_meteo] url` (``ServiceURL/openMeteo`` by default); its query, if any, is kept.
    ///   - fetcher: the HTTP exchange (``Fetcher/weather(_:client:userAgent:timeout:logger:)``: the
    ///     daemon's User-Agent, `[providers.open_meteo] timeout_seconds`).
    ///   - now: the clock that stamps `fetchedAt`; tests pass a fixed one.
    public init(url: URL, fetcher: Fetcher, now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.fetcher = fetcher
        self.now = now
    }

    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        let response = try await fetcher.get(try requestURL(for: coordinate), provider: name)
        let fetchedAt = now()
        let json = try response.openMeteoJSON(provider: name)
        var forecast = try OpenMeteoDecoder.decode(json: json, fetchedAt: fetchedAt, requested: coordinate)
        if choosesModels { forecast.shortTerm?.interpolated = true }
        return forecast
    }

    /// Whether the configured URL picks its own models (`models=…` other than `best_match`): the
    /// 15-minute areas (``OpenMeteoQuarterHour``) are those of the best match, so another choice may
    /// well be interpolated anywhere.
    var choosesModels: Bool {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.contains { $0.name == "models" && ($0.value ?? "") != "" && $0.value != "best_match" }
    }

    /// The request URL for a point: the configured URL's query followed by ours.
    ///
    /// Coordinates are sent with at most 4 decimals (about 11 m): finer is noise to a 1–11 km weather
    /// grid. The chain in front of the providers rounds further (``ProviderChain``).
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
        return try QueryURL.make(url, items: ours, provider: name)
    }

    /// `53.1875`, `-2.06`, `0`: at most 4 decimals, no trailing zeros, never exponent notation.
    static func format(_ degrees: Double) -> String {
        QueryURL.format(degrees)
    }
}
