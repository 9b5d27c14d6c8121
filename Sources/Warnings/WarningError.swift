import ForecastModel
import Foundation

/// Why a warning source delivered nothing this time: a stable reason for decisions and a sentence
/// for people. The daemon keeps the source's last good warnings when it gets one of these.
public struct WarningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, by name.
    public enum Reason: Sendable, Hashable {
        /// No connection could be made (DNS, refused, unreachable).
        case offline
        /// No complete answer within the deadline.
        case timeout
        /// The service answered with this non-2xx status.
        case httpStatus(Int)
        /// The service said to slow down (429), with its `Retry-After` when it gave one.
        case rateLimited(retryAfter: Duration?)
        /// An HTML page (a proxy's or load balancer's) instead of the feed.
        case html
        /// The body ended before it was complete: fewer bytes than announced, or JSON cut off.
        case truncated
        /// The body is not the feed the source expects (not JSON, or JSON of another shape).
        case malformed
        /// The body is larger than the source's cap; reading stopped there.
        case tooLarge(limit: Int)
        /// The answer's shapes hold more positions than ``GeometryLimits/maxFeedPositions``.
        case tooComplex(limit: Int)
        /// 304 Not Modified although no validator was sent.
        case unexpectedNotModified
        /// forecastd's own request budget for this source: it may be asked again at this time.
        case throttled(until: Date)
        /// The source does not cover the position's country.
        case notCovered
    }

    public var source: String
    public var reason: Reason
    /// What happened, without the source's name.
    public var detail: String

    public init(source: String, reason: Reason, detail: String) {
        self.source = source
        self.reason = reason
        self.detail = detail
    }

    /// `meteoalarm: the response is larger than 16 MiB`.
    public var description: String { "\(source): \(detail)" }

    /// An answer whose shapes hold more positions than an answer may (``PositionBudget``).
    static func tooComplex(_ exceeded: PositionBudget.Exceeded, source: String) -> WarningError {
        WarningError(
            source: source, reason: .tooComplex(limit: exceeded.limit),
            detail: "the answer's shapes hold more than \(exceeded.limit) positions; it was not used")
    }
}

/// Why one entry of an otherwise good feed was left out; the other entries are kept.
public enum WarningEntryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The CAP `info` has no `area`: nothing says where the warning applies.
    case noArea
    /// The area's shape breaks a rule of ``GeometryError``.
    case invalidGeometry(GeometryError)
    /// A field every warning needs is missing or empty (`identifier`, `event`).
    case missingField(String)
    /// Its hazard's end (`ends`; MET Norway's interval end) is not after its start (`onset`): never in force.
    case neverInForce(from: Date, until: Date)

    public var description: String {
        switch self {
        case .noArea: "it has no area, so nothing says where it applies"
        case .invalidGeometry(let error): "its area is refused: \(error)"
        case .missingField(let field): "it has no \(field)"
        case .neverInForce(let from, let until):
            "it is never in force: it ends (\(Timestamps.rfc3339(until))) before it starts (\(Timestamps.rfc3339(from)))"
        }
    }
}

/// An entry left out of a feed, and why.
public struct RefusedEntry: Sendable, Hashable, CustomStringConvertible {
    /// The CAP identifier, or the entry's position in the feed when it has none (`#3`).
    public var entry: String
    public var problem: WarningEntryProblem

    public init(entry: String, problem: WarningEntryProblem) {
        self.entry = entry
        self.problem = problem
    }

    public var description: String { "entry \(entry) was left out: \(problem)" }
}
