import Fetching
import ForecastModel
import Foundation

/// OpenWeatherMap, with the user's API key: current weather plus the free 5 day / 3 hour forecast
/// (two requests), or One Call 3.0 (one request, its own subscription) when enabled.
///
/// Always asks `units=metric`, so values are stored in canonical units and a units switch needs no
/// request. The key travels only in the `appid` query parameter to this provider's URL; logs show it
/// as `REDACTED` and no error message contains it.
public struct OpenWeatherMapProvider: WeatherProvider {
    public var name: String { OpenWeatherMapDecoder.providerName }

    /// The API's root (``ServiceURL/openWeatherMap``); the paths `/data/2.5/…` and `/data/3.0/onecall` are
    /// appended.
    public let url: URL
    /// Whether One Call 3.0 is used instead of current weather + the 5-day forecast.
    public let oneCall: Bool
    private let apiKey: String
    /// The `units=` asked for: metric in production; tests replaying recordings made in other units
    /// set it to match the recording.
    let units: OpenWeatherMapDecoder.Units
    private let fetcher: Fetcher
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - url: `[providers.openweathermap] url`.
    ///   - apiKey: the resolved `api_key` (or the contents of `api_key_file`).
    ///   - oneCall: `[providers.openweathermap] one_call`.
    ///   - fetcher: the HTTP exchange (the daemon's User-Agent, `[providers.openweathermap] timeout_seconds`).
    public init(
        url: URL, apiKey: String, oneCall: Bool = false, fetcher: Fetcher,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(url: url, apiKey: apiKey, oneCall: oneCall, units: .metric, fetcher: fetcher, now: now)
    }

    init(
        url: URL, apiKey: String, oneCall: Bool, units: OpenWeatherMapDecoder.Units, fetcher: Fetcher,
        now: @escaping @Sendable () -> Date
    ) {
        self.url = url
        self.apiKey = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        self.oneCall = oneCall
        self.units = units
        self.fetcher = fetcher
        self.now = now
    }

    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        try ProviderError.check(coordinate, provider: name)
        guard !apiKey.isEmpty else {
            throw ProviderError(
                provider: name, kind: .auth,
                detail: "no API key is set; set [providers.openweathermap] api_key or api_key_file")
        }
        if oneCall {
            let body = try await get("/data/3.0/onecall", coordinate, extra: [("exclude", "minutely")])
            return try OpenWeatherMapDecoder.decode(oneCall: body, units: units, fetchedAt: now())
        }
        let current = try await get("/data/2.5/weather", coordinate)
        let forecast = try await get("/data/2.5/forecast", coordinate)
        return try OpenWeatherMapDecoder.decode(current: current, forecast: forecast, units: units, fetchedAt: now())
    }

    /// The request URL for a path and a point (public for tests and diagnostics; it holds the key).
    func requestURL(_ path: String, _ coordinate: Coordinate, extra: [(String, String)] = []) throws(ProviderError)
        -> URL
    {
        let items =
            [
                ("lat", QueryURL.format(coordinate.latitude)), ("lon", QueryURL.format(coordinate.longitude)),
                ("units", units.rawValue),
            ] + extra + [("appid", QueryURL.encode(apiKey))]
        return try QueryURL.make(url, appendingPath: path, items: items, provider: name)
    }

    /// One GET, with OpenWeatherMap's errors (in the status or only in the body's `cod`) classified.
    private func get(_ path: String, _ coordinate: Coordinate, extra: [(String, String)] = [])
        async throws(ProviderError)
        -> [UInt8]
    {
        let response = try await fetcher.get(try requestURL(path, coordinate, extra: extra), provider: name)
        let json = JSONValue.parse(Data(response.body))
        let reported = OpenWeatherMapDecoder.reportedError(json)
        if response.isSuccess, reported == nil {
            guard json?.object != nil else {
                throw ProviderError(
                    provider: name, kind: .badResponse,
                    detail: "the response to \(path) is not a JSON object "
                        + "(\(response.mediaType ?? "no content type"), \(response.status))")
            }
            return response.body
        }
        // A 200 whose body says `"cod": "404"` is as much an error as a 404.
        var answer = response
        if answer.isSuccess { answer.status = reported?.code ?? answer.status }
        let message = reported?.message ?? json?["message"]?.string
        switch answer.status {
        case 401:
            let hint = oneCall ? "; One Call 3.0 needs its own subscription, or set one_call = false" : ""
            throw ProviderError(
                provider: name, kind: .auth,
                detail: "the API key was refused (HTTP 401: \(message ?? "Unauthorized")); check "
                    + "[providers.openweathermap] api_key\(hint)")
        default:
            throw ProviderError(provider: name, answer: answer, reason: message)
        }
    }
}
