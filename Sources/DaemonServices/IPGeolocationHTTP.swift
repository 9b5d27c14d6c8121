import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Location
import Logging

/// IP lookups over the daemon's HTTP client through the one HTTP layer, with its deadlines, size cap and
/// error classification.
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
        let fetcher = Fetcher(
            service: "ip geolocation (\(service.rawValue))", client: httpClient, userAgent: userAgent,
            limits: .init(timeout: timeout, maxBodyBytes: Self.maxBodyBytes), logger: logger)
        do {
            let answer = try await fetcher.get(url)
            let headers = answer.headers
            return .success(
                IPGeolocationAnswer(status: answer.status, header: { headers.first(name: $0) }, body: answer.body))
        } catch {
            let kind: IPGeolocationFailure.Kind =
                switch error.kind {
                case .offline: .offline
                case .timeout: .timeout
                case .closed, .invalidURL: .serviceError
                case .truncated, .tooLarge, .malformed, .unexpectedNotModified: .badResponse
                }
            return .failure(IPGeolocationFailure(service: service, kind: kind, detail: error.detail))
        }
    }
}
