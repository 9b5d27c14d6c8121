import Fetching
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

    /// A transport failure as IP lookups classify it.
    public init(_ failure: FetchFailure, service: IPGeolocationService) {
        let kind: Kind =
            switch failure.kind {
            case .offline: .offline
            case .timeout: .timeout
            case .closed, .invalidURL: .serviceError
            case .truncated, .tooLarge, .malformed, .unexpectedNotModified: .badResponse
            }
        self.init(service: service, kind: kind, detail: failure.detail)
    }
}

extension IPGeolocationService {
    /// Reads an answer of this service: a position, or why there is none.
    public func decode(_ answer: HTTPAnswer) -> Result<IPGeolocationResult, IPGeolocationFailure> {
        func fail(_ kind: IPGeolocationFailure.Kind, _ detail: String, retryAfter: Duration? = nil)
            -> Result<IPGeolocationResult, IPGeolocationFailure>
        {
            .failure(IPGeolocationFailure(service: self, kind: kind, detail: detail, retryAfter: retryAfter))
        }
        let retryAfter = Self.retryAfter(answer)
        if answer.meaning == .rateLimited {
            return fail(.rateLimited, "rate limited (HTTP 429)", retryAfter: retryAfter ?? .seconds(3600))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any] else {
            let start = String(decoding: answer.body.prefix(200), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let looksLikeHTML = start.lowercased().hasPrefix("<")
            if !answer.isSuccess {
                return fail(.serviceError, "HTTP \(answer.status)" + (looksLikeHTML ? " with an HTML page" : ""))
            }
            return fail(.badResponse, looksLikeHTML ? "an HTML page instead of JSON" : "the answer is not a JSON object")
        }
        // Errors sent as a body, whatever the status.
        if let error = reportedError(object) {
            return fail(error.kind, error.detail, retryAfter: error.kind == .rateLimited ? retryAfter ?? .seconds(3600) : nil)
        }
        guard answer.isSuccess else { return fail(.serviceError, "HTTP \(answer.status)") }
        return position(object)
    }

    /// The error a service reports in its body (some with HTTP 200), if it reports one.
    func reportedError(_ object: [String: Any]) -> (kind: IPGeolocationFailure.Kind, detail: String)? {
        switch self {
        case .ipapi:
            guard object["error"] as? Bool == true else { return nil }
            let reason = (object["reason"] as? String) ?? "error"
            let message = (object["message"] as? String).map { ": \($0)" } ?? ""
            if reason.lowercased().contains("ratelimit") || reason.lowercased().contains("quota") {
                return (.rateLimited, "rate limited (\(reason))")
            }
            return (.serviceError, "\(reason)\(message)")
        case .ipAPI:
            guard let status = object["status"] as? String, status != "success" else { return nil }
            return (.serviceError, "status \"\(status)\": \((object["message"] as? String) ?? "no message")")
        case .ipinfo:
            if let error = object["error"] as? [String: Any] {
                let title = (error["title"] as? String) ?? "error"
                let message = (error["message"] as? String).map { ": \($0)" } ?? ""
                return (.serviceError, "\(title)\(message)")
            }
            if object["bogon"] as? Bool == true {
                return (.serviceError, "the address is private (bogon), so it has no position")
            }
            return nil
        case .ifconfig:
            return (object["error"] as? String).map { (.serviceError, $0) }
        }
    }

    /// Where each service writes what: latitude, longitude (or ipinfo's `loc`, "lat,lon"), city, region and
    /// country code (first key present wins).
    private var fields: (latitude: String, longitude: String, city: String, region: String, country: [String]) {
        switch self {
        case .ipinfo: ("loc", "loc", "city", "region", ["country"])
        case .ipapi: ("latitude", "longitude", "city", "region", ["country_code", "country"])
        case .ifconfig: ("latitude", "longitude", "city", "region_name", ["country_iso"])
        case .ipAPI: ("lat", "lon", "city", "regionName", ["countryCode"])
        }
    }

    /// The position an answer without an error gives, read through ``fields``.
    func position(_ object: [String: Any]) -> Result<IPGeolocationResult, IPGeolocationFailure> {
        let fields = self.fields
        var latitude = Self.number(object[fields.latitude])
        var longitude = Self.number(object[fields.longitude])
        if fields.latitude == fields.longitude {
            let parts = (object[fields.latitude] as? String)?.split(separator: ",")
                .map { Double($0.trimmingCharacters(in: .whitespaces)) }
            latitude = parts?.count == 2 ? parts?[0] : nil
            longitude = parts?.count == 2 ? parts?[1] : nil
        }
        guard let latitude, let longitude else {
            return .failure(IPGeolocationFailure(service: self, kind: .badResponse, detail: "the answer has no coordinates"))
        }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isPlausible else {
            // Some services answer (0, 0) or nulls for addresses they cannot place.
            return .failure(
                IPGeolocationFailure(
                    service: self, kind: .badResponse,
                    detail: "the answer's position (\(latitude), \(longitude)) is not a real one"))
        }
        return .success(
            IPGeolocationResult(
                service: self, coordinate: coordinate, city: object[fields.city] as? String,
                region: object[fields.region] as? String,
                countryCode: fields.country.lazy.compactMap { object[$0] as? String }.first))
    }

    /// Numbers may come as JSON numbers or strings.
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: number.doubleValue
        case let string as String: Double(string)
        default: nil
        }
    }

    /// `Retry-After` (the one parser), or ip-api's `X-Ttl` when `X-Rl` says no requests are left.
    private static func retryAfter(_ answer: HTTPAnswer) -> Duration? {
        if let retryAfter = answer.retryAfter { return retryAfter }
        if answer.headers.first(name: "X-Rl")?.trimmingCharacters(in: .whitespaces) == "0",
            let ttl = answer.headers.first(name: "X-Ttl").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            ttl >= 0
        {
            return .seconds(ttl)
        }
        return nil
    }
}
