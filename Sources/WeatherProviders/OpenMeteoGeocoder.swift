import Fetching
import ForecastModel
import Foundation

/// Open-Meteo's place search (`/v1/search?name=…`): places by name, worldwide, from GeoNames, down to
/// villages the offline gazetteer leaves out (fewer than 1000 inhabitants).
///
/// Used only by `forecastctl cities add`, and only when the user set `geocoding_url`: a name typed
/// by hand then leaves the machine, which the offline gazetteer otherwise avoids.
public struct OpenMeteoGeocoder: Sendable {
    public static let providerName = "open-meteo geocoding"
    public let url: URL
    private let fetcher: Fetcher

    /// - Parameters:
    ///   - url: `[providers.open_meteo] geocoding_url`.
    ///   - fetcher: the HTTP exchange (forecastctl's User-Agent, `[providers.open_meteo] timeout_seconds`).
    public init(url: URL, fetcher: Fetcher) {
        self.url = url
        self.fetcher = fetcher
    }

    /// The places named `name`, best first as the service ranks them (at most `count`).
    public func search(_ name: String, count: Int = 20) async throws(ProviderError) -> [Place] {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw ProviderError(provider: Self.providerName, kind: .providerError, detail: "\(url) is not a usable URL")
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "name", value: name), URLQueryItem(name: "count", value: String(count)),
                URLQueryItem(name: "language", value: "en"), URLQueryItem(name: "format", value: "json"),
            ]
        guard let requestURL = components.url else {
            throw ProviderError(provider: Self.providerName, kind: .providerError, detail: "cannot make a search URL for \(name)")
        }
        let response = try await fetcher.get(requestURL, provider: Self.providerName)
        guard response.isSuccess else {
            let reason = JSONValue.parse(Data(response.body))?["reason"]?.string
            throw ProviderError(provider: Self.providerName, answer: response, reason: reason)
        }
        return try Self.decode(response.body)
    }

    /// Reads a search answer. No match is an answer without `results` (not an empty array); entries
    /// without a name or a plausible position are skipped rather than failing the whole answer.
    public static func decode(_ body: some Sequence<UInt8>) throws(ProviderError) -> [Place] {
        guard let json = JSONValue.parse(Data(body)), json.object != nil else {
            throw ProviderError(provider: providerName, kind: .badResponse, detail: "the answer is not a JSON object")
        }
        if json["error"]?.bool == true {
            throw ProviderError(
                provider: providerName, kind: .providerError, detail: json["reason"]?.string ?? "the service reported an error")
        }
        guard let results = json["results"]?.array else { return [] }
        return results.compactMap { entry -> Place? in
            guard let name = entry["name"]?.string, !name.isEmpty,
                let latitude = entry["latitude"]?.double, let longitude = entry["longitude"]?.double
            else { return nil }
            let coordinate = Coordinate(latitude: latitude, longitude: longitude)
            guard coordinate.isPlausible else { return nil }
            let code = entry["country_code"]?.string?.uppercased() ?? ""
            return Place(
                name: name, admin1: entry["admin1"]?.string, country: entry["country"]?.string ?? code, countryCode: code,
                population: Int(entry["population"]?.double ?? 0), coordinate: coordinate,
                timezone: entry["timezone"]?.string, distanceKm: 0)
        }
    }
}
