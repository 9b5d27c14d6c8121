import ForecastModel
import AsyncHTTPClient
import Foundation
import Location
import Logging
import WeatherProviders

/// IP lookups over the daemon's HTTP client, with the same deadlines, size cap and error
/// classification as weather requests.
public struct IPGeolocationHTTP: IPGeolocationTransport {
    let httpClient: HTTPClient
    let userAgent: String
    let timeout: Duration
    let logger: Logger
    /// An answer is a few hundred bytes; anything near this is not one.
    static let maxBodyBytes = 64 * 1024

    public init(httpClient: HTTPClient, userAgent: String, timeout: Duration = .seconds(10), logger: Logger) {
        self.httpClient = httpClient
        self.userAgent = userAgent
        self.timeout = timeout
        self.logger = logger
    }

    public func get(_ url: URL, service: IPGeolocationService) async -> Result<IPGeolocationAnswer, IPGeolocationFailure> {
        let http = ProviderHTTP(
            provider: "ip geolocation (\(service.rawValue))", httpClient: httpClient, timeout: timeout,
            userAgent: userAgent, maxBodyBytes: Self.maxBodyBytes, logger: logger)
        do {
            let response = try await http.get(url)
            let headers = response.headers
            return .success(
                IPGeolocationAnswer(status: response.status, header: { headers.first(name: $0) }, body: response.body))
        } catch {
            let kind: IPGeolocationFailure.Kind =
                switch error.kind {
                case .offline: .offline
                case .timeout: .timeout
                case .rateLimited: .rateLimited
                case .badResponse: .badResponse
                default: .serviceError
                }
            return .failure(
                IPGeolocationFailure(service: service, kind: kind, detail: error.detail, retryAfter: error.retryAfter))
        }
    }
}
