import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging

// The providers' side of the one HTTP layer: transport failures and statuses mapped onto ProviderError once.
// (ProviderError.swift itself stays free of HTTP: the decoders that throw it are fuzzed alone.)

extension ProviderError {
    /// A transport failure as the providers classify it, in `provider`'s name.
    public init(_ failure: FetchFailure, provider: String) {
        let kind: ErrorKind =
            switch failure.kind {
            case .offline: .offline
            case .timeout: .timeout
            case .closed, .invalidURL: .providerError
            case .truncated, .tooLarge, .malformed, .unexpectedNotModified: .badResponse
            }
        self.init(provider: provider, kind: kind, detail: failure.detail)
    }

    /// The error a non-2xx answer stands for, by what its status means: a rate limit (with its
    /// `Retry-After` and, from `reason`, its quota window), refused credentials, or the provider's own
    /// failure. `reason` is the provider's explanation from the body, when it gave one.
    public init(provider: String, answer: HTTPAnswer, reason: String?) {
        self = .httpStatus(provider: provider, status: answer.status, reason: reason, retryAfter: answer.retryAfter)
        kind =
            switch answer.meaning {
            case .rateLimited: .rateLimited
            case .refused: .auth
            default: .providerError
            }
    }

    /// A URL that could not be built from the settings' URL.
    init(_ invalid: QueryURL.Invalid, provider: String) {
        self.init(provider: provider, kind: .providerError, detail: invalid.detail)
    }

    /// Refuses coordinates no provider can answer for, before any request is made.
    static func check(_ coordinate: Coordinate, provider: String) throws(ProviderError) {
        if let refusal = QueryURL.refusal(coordinate, asking: "a forecast") {
            throw ProviderError(provider: provider, kind: .providerError, detail: refusal)
        }
    }
}

extension QueryURL {
    /// ``make(_:appendingPath:items:)`` with its failure as `provider`'s error.
    static func make(_ base: URL, appendingPath path: String? = nil, items: [(String, String)], provider: String)
        throws(ProviderError) -> URL
    {
        try make(base, appendingPath: path, items: items) { ProviderError($0, provider: provider) }
    }
}

extension Fetcher {
    /// Answers larger than this are refused: a forecast is tens of kilobytes, and a runaway body must not
    /// grow the daemon's memory.
    public static let weatherMaxBodyBytes = 2 * 1024 * 1024

    /// A weather service's fetcher: its `[providers.*] timeout_seconds` and the 2 MiB cap.
    public static func weather(
        _ service: String, client: HTTPClient, userAgent: String, timeout: Duration, logger: Logger
    ) -> Fetcher {
        Fetcher(
            service: service, client: client, userAgent: userAgent,
            limits: Limits(timeout: timeout, maxBodyBytes: weatherMaxBodyBytes), logger: logger)
    }

    /// One GET whose transport failure comes back as `provider`'s error.
    func get(_ url: URL, provider: String, headers: [(String, String)] = []) async throws(ProviderError) -> HTTPAnswer {
        do {
            return try await get(url, headers: headers)
        } catch {
            throw ProviderError(error, provider: provider)
        }
    }
}

extension HTTPAnswer {
    /// The body of an Open-Meteo answer (forecast or air quality) as JSON, or the error it stands for.
    ///
    /// A non-2xx answer is classified by its status, with Open-Meteo's `reason` when the body has one;
    /// a body that is not JSON (a proxy's HTML page) is a bad response, except for a rate limit or a
    /// refusal, whose status alone says what to do.
    func openMeteoJSON(provider: String) throws(ProviderError) -> JSONValue {
        let json = JSONValue.parse(Data(body))
        guard isSuccess else {
            switch meaning {
            case .rateLimited, .refused: break
            default: if json == nil { throw notJSON(provider: provider) }
            }
            throw ProviderError(provider: provider, answer: self, reason: json?["reason"]?.string)
        }
        guard let json else { throw notJSON(provider: provider) }
        return json
    }

    /// A body that should have been JSON and is not.
    func notJSON(provider: String) -> ProviderError {
        ProviderError(
            provider: provider, kind: .badResponse,
            detail: "the response is not JSON (\(mediaType ?? "no content type"), \(status))")
    }
}
