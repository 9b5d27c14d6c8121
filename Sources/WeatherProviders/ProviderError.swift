import ForecastModel
import Foundation

/// Why a provider could not deliver a forecast: a stable kind for decisions and a sentence for people.
public struct ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable class of the problem (offline, timeout, rate limited, auth, provider error, bad response).
    public var kind: ErrorKind
    /// The provider that failed (`open-meteo`).
    public var provider: String
    /// One sentence naming the provider and what happened, e.g. `open-meteo: no answer within 15 s`.
    public var message: String
    /// What happened, without the provider's name: `no answer within 15 s`.
    public var detail: String
    /// How long the provider asked us to wait before asking again (`Retry-After`), when it said.
    public var retryAfter: Duration?
    /// The quota period a rate limit refers to, when the provider named one ("daily limit"): asking
    /// again before the period ends (UTC) is pointless.
    public var rateLimitWindow: RateLimitWindow?

    /// Makes an error whose message is `provider: detail`.
    public init(
        provider: String, kind: ErrorKind, detail: String, retryAfter: Duration? = nil,
        rateLimitWindow: RateLimitWindow? = nil
    ) {
        self.kind = kind
        self.provider = provider
        self.detail = detail
        self.message = "\(provider): \(detail)"
        self.retryAfter = retryAfter
        self.rateLimitWindow = rateLimitWindow
    }

    public var description: String { message }

    /// The error for a non-2xx answer, classified by status alone.
    ///
    /// 429 is a rate limit, 401 and 403 are refused credentials or identification, anything else is
    /// the provider's own failure. `reason` is the provider's explanation from the body, when it gave one;
    /// for a 429 it also tells which quota ran out (``rateLimitWindow``).
    public static func httpStatus(
        provider: String, status: Int, reason: String?, retryAfter: Duration? = nil
    ) -> ProviderError {
        let kind: ErrorKind =
            switch status {
            case 429: .rateLimited
            case 401, 403: .auth
            default: .providerError
            }
        let explanation = reason.map(Self.tidy).flatMap { $0.isEmpty ? nil : $0 } ?? Self.reasonPhrase(status)
        return ProviderError(
            provider: provider, kind: kind, detail: "HTTP \(status): \(explanation)", retryAfter: retryAfter,
            rateLimitWindow: status == 429 ? rateLimitWindow(in: reason) : nil)
    }

    /// The quota period a rate-limit explanation names: Open-Meteo answers 429 with "Daily API request
    /// limit exceeded", "Hourly …" or "Minutely …".
    public static func rateLimitWindow(in reason: String?) -> RateLimitWindow? {
        guard let text = reason?.lowercased() else { return nil }
        if text.contains("daily") || text.contains("per day") || text.contains("tomorrow") { return .day }
        if text.contains("hourly") || text.contains("per hour") { return .hour }
        if text.contains("minutely") || text.contains("per minute") { return .minute }
        return nil
    }

    /// Keeps a provider's reason to one readable line: bodies can hold newlines or whole pages.
    private static func tidy(_ text: String) -> String {
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return oneLine.count > 200 ? String(oneLine.prefix(200)) + "…" : oneLine
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status >= 500 ? "server error" : "unexpected status"
        }
    }
}

/// A provider's quota period, counted in UTC from the start of the minute, hour or day.
public enum RateLimitWindow: String, Sendable, Hashable, CaseIterable {
    case minute, hour, day

    /// The first instant of the next period after `date` (the next UTC midnight for `day`).
    public func end(after date: Date) -> Date {
        let length: Double =
            switch self {
            case .minute: 60
            case .hour: 3600
            case .day: 86_400
            }
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: ((seconds / length).rounded(.down) + 1) * length)
    }
}
