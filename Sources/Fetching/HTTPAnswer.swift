import ForecastModel
import Foundation
import NIOHTTP1

/// An answer, read whole within the cap, whatever its status.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The media type without parameters, lower-cased (`text/html`), when the server named one.
    public var mediaType: String? {
        guard let value = headers.first(name: "content-type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether the body is an HTML page (a proxy's or load balancer's error page) rather than what was asked
    /// for, judged from its first 512 bytes.
    public var looksLikeHTML: Bool { Self.isHTML(body.prefix(512)) }

    /// Whether `start` (the first bytes of a body) is an HTML page: it opens with `<` and holds
    /// `<!doctype html` or `<html`.
    public static func isHTML(_ start: ArraySlice<UInt8>) -> Bool {
        guard start.first == UInt8(ascii: "<") else { return false }
        let head = String(decoding: start.prefix(512), as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.contains("<html")
    }

    /// `Retry-After` in its delay-seconds form (`120`, surrounding blanks allowed): the one parser.
    ///
    /// The HTTP-date form yields nil, as does anything else that is not a plain count of seconds: no
    /// service forecastd asks sends a date, and the caller then falls back to its own backoff.
    public var retryAfter: Duration? { Self.parseRetryAfter(headers.first(name: "retry-after")) }

    /// The parser behind ``retryAfter``.
    public static func parseRetryAfter(_ value: String?) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seconds = Int64(text)
        else { return nil }
        return .seconds(seconds)
    }

    /// The `ETag` validator, as sent.
    public var etag: String? { headers.first(name: "etag") }
    /// The `Last-Modified` validator, as sent (compared by servers as text, so never re-formatted).
    public var lastModified: String? { headers.first(name: "last-modified") }
    /// `Expires` as an instant, when it is an IMF-fixdate.
    public var expires: Date? { HTTPDate.parse(headers.first(name: "expires")) }

    /// What the status says.
    public var meaning: StatusMeaning { StatusMeaning(status: status) }
}

/// What a status says, the same for every service; each service's error type maps it once.
public enum StatusMeaning: Sendable, Hashable, CaseIterable {
    /// 2xx.
    case success
    /// 304.
    case notModified
    /// 429.
    case rateLimited
    /// 401, 403: credentials or identification refused.
    case refused
    /// 404.
    case notFound
    /// 5xx.
    case serverError
    /// Any other 4xx.
    case clientError
    /// 1xx, 3xx other than 304, anything outside 100...599.
    case unexpected

    public init(status: Int) {
        switch status {
        case 200..<300: self = .success
        case 304: self = .notModified
        case 429: self = .rateLimited
        case 401, 403: self = .refused
        case 404: self = .notFound
        case 400..<500: self = .clientError
        case 500..<600: self = .serverError
        default: self = .unexpected
        }
    }
}

/// HTTP dates (`Mon, 20 Jul 2020 12:14:53 GMT`, RFC 9110 IMF-fixdate), as in `Expires` and
/// `Last-Modified`, parsed without DateFormatter (locale-dependent and slow).
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant, or nil for anything that is not an IMF-fixdate in GMT.
    public static func parse(_ text: String?) -> Date? {
        guard let text else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[0].hasSuffix(","),
            parts[5].uppercased() == "GMT" || parts[5].uppercased() == "UTC",
            let day = Int(parts[1]), let month = months.firstIndex(of: parts[2].lowercased()),
            let year = Int(parts[3]), (1...31).contains(day), (1970...9999).contains(year)
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        let iso = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month + 1, day, hour, minute, second)
        return Timestamps.parseUTC(iso)
    }
}
