import Fetching
import ForecastModel
import Foundation

// The warning sources' side of the one HTTP layer: transport failures mapped onto WarningError once.
// (WarningError.swift itself stays free of HTTP: the decoders that throw it are fuzzed alone.)

extension WarningError {
    /// A transport failure as the warning sources classify it, in `source`'s name.
    init(_ failure: FetchFailure, source: String) {
        let reason: Reason =
            switch failure.kind {
            case .offline: .offline
            case .timeout: .timeout
            case .closed, .truncated: .truncated
            case .tooLarge(let limit): .tooLarge(limit: limit)
            case .malformed, .invalidURL: .malformed
            case .unexpectedNotModified: .unexpectedNotModified
            }
        self.init(source: source, reason: reason, detail: failure.detail)
    }

    /// The error a non-2xx answer stands for, by what its status means.
    ///
    /// - Parameter userAgent: what was sent, named when the service refused it (its terms ask for one that
    ///   identifies the application).
    init(source: String, answer: HTTPAnswer, userAgent: String) {
        switch answer.meaning {
        case .rateLimited:
            self.init(
                source: source, reason: .rateLimited(retryAfter: answer.retryAfter),
                detail: "HTTP 429: the service asks forecastd to slow down")
        case .refused:
            self.init(
                source: source, reason: .httpStatus(answer.status),
                detail: "HTTP \(answer.status): the service refused the request (its terms ask for an identifying "
                    + "User-Agent; sent \"\(userAgent)\")")
        default:
            let page = answer.looksLikeHTML ? " (an HTML error page)" : ""
            self.init(source: source, reason: .httpStatus(answer.status), detail: "HTTP \(answer.status)\(page)")
        }
    }

    /// Refuses a position no service can answer for, before any request.
    static func check(_ position: Coordinate, source: String) throws(WarningError) {
        if let refusal = QueryURL.refusal(position, asking: "warnings") {
            throw WarningError(source: source, reason: .malformed, detail: refusal)
        }
    }
}

extension QueryURL {
    /// ``make(_:appendingPath:items:)`` with its failure as `source`'s error.
    static func make(_ base: URL, appendingPath path: String? = nil, items: [(String, String)], source: String)
        throws(WarningError) -> URL
    {
        try make(base, appendingPath: path, items: items) {
            WarningError(source: source, reason: .malformed, detail: $0.detail)
        }
    }
}
