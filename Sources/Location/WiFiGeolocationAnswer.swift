import ForecastModel
import Foundation

/// A position a Wi-Fi geolocation service gave: where, and within what radius (95 %, Ichnaea's documentation says).
public struct WiFiPosition: Sendable, Hashable, Codable {
    public var coordinate: Coordinate
    public var accuracyMeters: Double

    public init(coordinate: Coordinate, accuracyMeters: Double) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
    }
}

/// What an Ichnaea-compatible service's answer to a geolocation request says, read with bounds and checked. Pure
/// and HTTP-free (the status and the body in, a verdict out), so it fuzzes alone.
///
/// - 2xx `{"location": {"lat", "lng"}, "accuracy"}`: a position, if it is one: coordinates in range and not (0, 0),
///   an accuracy over 0 and at most ``maxAccuracyMeters``, and no `fallback` (an answer from the service's IP
///   database or cell areas is not what was asked: `considerIp` is false, and a VPN's exit must never come back as a
///   Wi-Fi position).
/// - 404 (`{"error": {"errors": [{"reason": "notFound"}], …}}`): the service knows none of the access points.
/// - 429, and 403 with reason `dailyLimitExceeded`: slow down (the caller reads `Retry-After`).
/// - Anything else: the service's error, with its own message when it gave one.
public enum WiFiGeolocationAnswer: Sendable, Hashable {
    case position(WiFiPosition)
    case notFound
    case rateLimited
    /// A 2xx answer that cannot be used; the sentence says why.
    case refused(String)
    /// Another status; the sentence names it and the service's message.
    case serviceError(String)

    /// Answers are a hundred bytes; one over this is not an answer to this request.
    public static let maxBodyBytes = 64 * 1024
    /// A Wi-Fi position is good to tens or hundreds of metres; one vaguer than this is the service guessing from
    /// something else.
    public static let maxAccuracyMeters = 100_000.0

    public static func decode(status: Int, body: [UInt8]) -> WiFiGeolocationAnswer {
        guard body.count <= maxBodyBytes else {
            return .refused("the answer is \(body.count) bytes, more than the \(maxBodyBytes) an answer can be")
        }
        switch status {
        case 200..<300:
            guard let answer = try? JSONDecoder().decode(Success.self, from: Data(body)) else {
                return .refused("the answer is not a JSON object")
            }
            return answer.verdict
        case 404:
            return .notFound
        case 429:
            return .rateLimited
        default:
            let error = (try? JSONDecoder().decode(Failure.self, from: Data(body)))
            let reason = error?.reason.map { String($0.prefix(64)) }
            if status == 403, reason == "dailyLimitExceeded" || reason == "userRateLimitExceeded" { return .rateLimited }
            let message = error?.message.map { ": " + String($0.prefix(200)) } ?? ""
            return .serviceError("HTTP \(status)" + (reason.map { " (\($0))" } ?? "") + message)
        }
    }

    private enum Key: String, CodingKey {
        case location, lat, lng, accuracy, fallback, error, errors, reason, message
    }

    /// A 2xx body, read leniently: a field of the wrong type is as good as missing, and is refused below.
    private struct Success: Decodable {
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
        var fallback: String?

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            if object.contains(.fallback) {
                fallback = (try? object.decode(String.self, forKey: .fallback)).map { String($0.prefix(20)) } ?? "?"
            }
            if let location = try? object.nestedContainer(keyedBy: Key.self, forKey: .location) {
                latitude = try? location.decode(Double.self, forKey: .lat)
                longitude = try? location.decode(Double.self, forKey: .lng)
            }
            accuracy = try? object.decode(Double.self, forKey: .accuracy)
        }

        var verdict: WiFiGeolocationAnswer {
            if let fallback {
                return .refused("the answer comes from the service's fallback (\(fallback)), not from the access points")
            }
            guard let latitude, let longitude else { return .refused("the answer has no location with lat and lng") }
            guard let accuracy else { return .refused("the answer has no accuracy") }
            let coordinate = Coordinate(latitude: latitude, longitude: longitude)
            guard coordinate.isPlausible else {
                return .refused("the answer's position (\(latitude), \(longitude)) is not a real place")
            }
            guard accuracy > 0, accuracy <= maxAccuracyMeters else {
                return .refused(
                    "the answer's accuracy, \(accuracy) m, is not that of a Wi-Fi position (over 0, at most "
                        + "\(Int(maxAccuracyMeters / 1000)) km)")
            }
            return .position(WiFiPosition(coordinate: coordinate, accuracyMeters: accuracy))
        }
    }

    /// Ichnaea's error body: `{"error": {"errors": [{"reason"}], "message"}}`.
    private struct Failure: Decodable {
        var reason: String?
        var message: String?

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            let error = try object.nestedContainer(keyedBy: Key.self, forKey: .error)
            message = try? error.decode(String.self, forKey: .message)
            if var errors = try? error.nestedUnkeyedContainer(forKey: .errors), !errors.isAtEnd,
                let first = try? errors.nestedContainer(keyedBy: Key.self)
            {
                reason = try? first.decode(String.self, forKey: .reason)
            }
        }
    }
}
