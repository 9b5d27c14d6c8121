import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging

/// Asks an Ichnaea-compatible geolocation service (beaconDB unless configured otherwise) where a set of access
/// points is: one POST of ``WiFiGeolocationRequest/body`` through the daemon's ``Fetcher``, its answer read by
/// ``WiFiGeolocationAnswer/decode(status:body:)`` and handed back as the ``WiFiQueryRule/Outcome`` that the query
/// rule records. When to ask is the rule's business, not this client's: it asks when told.
public struct WiFiGeolocationClient: Sendable {
    /// The deadline of one answer: an answer is a hundred bytes, and a laptop that just woke must not wait long.
    public static let timeout: Duration = .seconds(10)

    public let url: URL
    let fetcher: Fetcher
    let logger: Logger

    /// - Parameters:
    ///   - url: the service's `geolocate` endpoint (``ServiceURL/beaconDB`` by default in the settings).
    ///   - client, userAgent: the daemon's HTTP client and User-Agent.
    public init(
        url: URL, client: HTTPClient, userAgent: String, timeout: Duration = WiFiGeolocationClient.timeout,
        logger: Logger
    ) {
        self.url = url
        self.logger = logger
        fetcher = Fetcher(
            service: "wifi geolocation", client: client, userAgent: userAgent,
            limits: Fetcher.Limits(timeout: timeout, maxBodyBytes: WiFiGeolocationAnswer.maxBodyBytes), logger: logger)
    }

    /// Sends `request` (which must be askable: ``WiFiGeolocationRequest/canAsk``) and says what came of it.
    ///
    /// - A 429 or a rate-limit refusal: ``WiFiQueryRule/Outcome/slowDown(retryAfter:)`` with the answer's
    ///   `Retry-After` in seconds, when it gave one.
    /// - No answer at all (offline, refused, no answer within the deadline): ``WiFiQueryRule/Outcome/unreachable``;
    ///   the service saw nothing, so nothing is held back for it.
    /// - A body over the cap or not HTTP: an answered refusal, which the rule backs off from.
    /// - Anything else: ``WiFiQueryRule/Outcome/answered(_:)`` with the decoded answer.
    public func locate(_ request: WiFiGeolocationRequest) async -> WiFiQueryRule.Outcome {
        let answer: HTTPAnswer
        do {
            answer = try await fetcher.post(url, json: request.body)
        } catch {
            switch error.kind {
            case .offline, .timeout, .closed:
                logger.info(
                    "The Wi-Fi geolocation service could not be reached.",
                    metadata: ["error.kind": "\(error.kindName)", "error": "\(error.detail)"])
                return .unreachable
            case .truncated, .tooLarge, .malformed, .unexpectedNotModified, .invalidURL:
                return .answered(.refused(error.detail))
            }
        }
        let decoded = WiFiGeolocationAnswer.decode(status: answer.status, body: answer.body)
        switch decoded {
        case .rateLimited:
            let retryAfter = answer.retryAfter.map { TimeInterval($0.components.seconds) }
            logger.notice(
                "The Wi-Fi geolocation service asked to slow down.",
                metadata: [
                    "http.status": "\(answer.status)",
                    "retry_after_s": "\(retryAfter.map { "\(Int($0))" } ?? "none")",
                ])
            return .slowDown(retryAfter: retryAfter)
        case .refused(let reason), .serviceError(let reason):
            logger.warning(
                "The Wi-Fi geolocation service's answer was refused.",
                metadata: ["http.status": "\(answer.status)", "error": "\(reason)"])
        case .notFound:
            logger.info(
                "The Wi-Fi geolocation service knows none of the access points.",
                metadata: ["wifi.access_points": "\(request.accessPoints.count)"])
        case .position(let position):
            logger.info(
                "The Wi-Fi geolocation service placed the access points.",
                metadata: [
                    "wifi.access_points": "\(request.accessPoints.count)",
                    "location.accuracy_m": "\(Int(position.accuracyMeters.rounded()))",
                ])
        }
        return .answered(decoded)
    }
}
