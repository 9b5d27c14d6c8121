import ForecastModel
import Foundation

/// What an IP geolocation service said about the machine's public address.
public struct IPGeolocationResult: Sendable, Hashable, Codable {
    public var service: IPGeolocationService
    public var coordinate: Coordinate
    public var city: String?
    public var region: String?
    public var countryCode: String?

    public init(service: IPGeolocationService, coordinate: Coordinate, city: String?, region: String?, countryCode: String?) {
        self.service = service
        self.coordinate = coordinate
        self.city = city
        self.region = region
        self.countryCode = countryCode
    }

    /// An IP position is only ever city-level: GeoClue's "city" accuracy, 15 km.
    public static let accuracyMeters = 15_000.0

    /// The position as a fix, marked with city-level accuracy.
    public func fix(receivedAt: Date) -> LocationFix {
        LocationFix(
            coordinate: coordinate, source: .ip, accuracyMeters: Self.accuracyMeters, receivedAt: receivedAt,
            label: nil)
    }

    /// `Berlin, DE` and the like, for logs and `forecastctl locate`.
    public var summary: String {
        [city, countryCode].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: ", ")
    }
}

/// Why one service gave no position.
public struct IPGeolocationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No connection could be made: offline, DNS, refused. Nothing reached the service.
        case offline
        case timeout
        /// The service asked us to slow down (429, or its own rate-limit body).
        case rateLimited = "rate_limited"
        /// The service answered with an error (HTTP 200 error bodies included).
        case serviceError = "service_error"
        /// The answer was not what the service documents (HTML, truncated JSON, no coordinates).
        case badResponse = "bad_response"
    }

    public var service: IPGeolocationService
    public var kind: Kind
    public var detail: String
    /// How long the service asked us to wait, when it said.
    public var retryAfter: Duration?

    public init(service: IPGeolocationService, kind: Kind, detail: String, retryAfter: Duration? = nil) {
        self.service = service
        self.kind = kind
        self.detail = detail
        self.retryAfter = retryAfter
    }

    public var description: String { "\(service.rawValue): \(detail)" }
}

/// An HTTP answer, reduced to what the decoders look at.
public struct IPGeolocationAnswer: Sendable {
    public var status: Int
    /// Header lookup, case-insensitive.
    public var header: @Sendable (String) -> String?
    public var body: [UInt8]

    public init(status: Int, header: @escaping @Sendable (String) -> String?, body: [UInt8]) {
        self.status = status
        self.header = header
        self.body = body
    }
}

extension IPGeolocationService {
    /// Reads an answer of this service: a position, or why there is none.
    public func decode(_ answer: IPGeolocationAnswer) -> Result<IPGeolocationResult, IPGeolocationFailure> {
        func fail(_ kind: IPGeolocationFailure.Kind, _ detail: String, retryAfter: Duration? = nil)
            -> Result<IPGeolocationResult, IPGeolocationFailure>
        {
            .failure(IPGeolocationFailure(service: self, kind: kind, detail: detail, retryAfter: retryAfter))
        }
        let retryAfter = Self.retryAfter(answer)
        if answer.status == 429 {
            return fail(.rateLimited, "rate limited (HTTP 429)", retryAfter: retryAfter ?? .seconds(3600))
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
        guard let object else {
            let start = String(decoding: answer.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let looksLikeHTML = start.lowercased().hasPrefix("<")
            if !(200..<300).contains(answer.status) {
                return fail(.serviceError, "HTTP \(answer.status)" + (looksLikeHTML ? " with an HTML page" : ""))
            }
            return fail(.badResponse, looksLikeHTML ? "an HTML page instead of JSON" : "the answer is not a JSON object")
        }
        // Errors sent as a body, whatever the status.
        switch self {
        case .ipapi:
            if object["error"] as? Bool == true {
                let reason = (object["reason"] as? String) ?? "error"
                let message = (object["message"] as? String).map { ": \($0)" } ?? ""
                if reason.lowercased().contains("ratelimit") || reason.lowercased().contains("quota") {
                    return fail(.rateLimited, "rate limited (\(reason))", retryAfter: retryAfter ?? .seconds(3600))
                }
                return fail(.serviceError, "\(reason)\(message)")
            }
        case .ipAPI:
            if let status = object["status"] as? String, status != "success" {
                return fail(.serviceError, "status \"\(status)\": \((object["message"] as? String) ?? "no message")")
            }
        case .ipinfo:
            if let error = object["error"] as? [String: Any] {
                let title = (error["title"] as? String) ?? "error"
                let message = (error["message"] as? String).map { ": \($0)" } ?? ""
                return fail(.serviceError, "\(title)\(message)")
            }
            if object["bogon"] as? Bool == true {
                return fail(.serviceError, "the address is private (bogon), so it has no position")
            }
        case .ifconfig:
            if let error = object["error"] as? String { return fail(.serviceError, error) }
        }
        guard (200..<300).contains(answer.status) else {
            return fail(.serviceError, "HTTP \(answer.status)")
        }

        let latitude: Double?
        let longitude: Double?
        let city: String?
        let region: String?
        let country: String?
        switch self {
        case .ipinfo:
            let parts = (object["loc"] as? String)?.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            latitude = parts?.count == 2 ? parts?[0] : nil
            longitude = parts?.count == 2 ? parts?[1] : nil
            city = object["city"] as? String
            region = object["region"] as? String
            country = object["country"] as? String
        case .ipapi:
            latitude = Self.number(object["latitude"])
            longitude = Self.number(object["longitude"])
            city = object["city"] as? String
            region = object["region"] as? String
            country = object["country_code"] as? String ?? object["country"] as? String
        case .ifconfig:
            latitude = Self.number(object["latitude"])
            longitude = Self.number(object["longitude"])
            city = object["city"] as? String
            region = object["region_name"] as? String
            country = object["country_iso"] as? String
        case .ipAPI:
            latitude = Self.number(object["lat"])
            longitude = Self.number(object["lon"])
            city = object["city"] as? String
            region = object["regionName"] as? String
            country = object["countryCode"] as? String
        }
        guard let latitude, let longitude else {
            return fail(.badResponse, "the answer has no coordinates")
        }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isPlausible else {
            // Some services answer (0, 0) or nulls for addresses they cannot place.
            return fail(.badResponse, "the answer's position (\(latitude), \(longitude)) is not a real one")
        }
        return .success(
            IPGeolocationResult(service: self, coordinate: coordinate, city: city, region: region, countryCode: country))
    }

    /// Numbers may come as JSON numbers or strings.
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: number.doubleValue
        case let string as String: Double(string)
        default: nil
        }
    }

    /// `Retry-After` in seconds, or ip-api's `X-Ttl` when `X-Rl` says no requests are left.
    private static func retryAfter(_ answer: IPGeolocationAnswer) -> Duration? {
        if let value = answer.header("Retry-After"), let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return .seconds(seconds)
        }
        if answer.header("X-Rl")?.trimmingCharacters(in: .whitespaces) == "0",
            let ttl = answer.header("X-Ttl").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), ttl >= 0
        {
            return .seconds(ttl)
        }
        return nil
    }
}

/// How IP lookups reach the services: the I/O seam, so the daemon can lend its HTTP client (with its
/// deadlines, size caps and error classification) and tests can run against a local server.
public protocol IPGeolocationTransport: Sendable {
    /// One GET of `url`; a transport failure comes back as a failure of `service`.
    func get(_ url: URL, service: IPGeolocationService) async -> Result<IPGeolocationAnswer, IPGeolocationFailure>
}
