import ForecastModel
import Foundation

/// The answers a Wi-Fi geolocation service gave, by the set of access points asked about, so that the same place
/// is never asked about twice: a laptop that goes home every evening asks once a week, not every evening. Pure
/// (every judgement takes `now`), Codable for the state file that keeps it across restarts.
public struct WiFiAnswerCache: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        /// The access points asked about, sorted.
        public var accessPoints: [BSSID]
        /// The answer; nil when the service knew none of them (404), which is kept too, for a shorter time.
        public var position: WiFiPosition?
        public var answeredAt: Date

        public init(accessPoints: [BSSID], position: WiFiPosition?, answeredAt: Date) {
            self.accessPoints = accessPoints
            self.position = position
            self.answeredAt = answeredAt
        }
    }

    /// How long a position is trusted: access points rarely move, and when one does the others outvote it.
    public static let positionLifetime: TimeInterval = 7 * 86_400
    /// How long "the service does not know these" is trusted: the service learns new access points from its
    /// contributors, so a place it did not know is asked about again later.
    public static let notFoundLifetime: TimeInterval = 3600
    /// At most this many answers are kept (the oldest go first): a week of a traveller's places.
    public static let capacity = 128

    public private(set) var entries: [Entry] = []

    public init(entries: [Entry] = []) {
        self.entries = Array(entries.suffix(Self.capacity))
    }

    /// The freshest unexpired answer for a set at the same place as `accessPoints`
    /// (``WiFiQueryRule/samePlace(known:current:)``).
    public func answer(for accessPoints: Set<BSSID>, now: Date) -> Entry? {
        entries.last { entry in
            !isExpired(entry, now: now) && WiFiQueryRule.samePlace(known: Set(entry.accessPoints), current: accessPoints)
        }
    }

    /// Keeps an answer (replacing one for the same set), and forgets expired and surplus ones.
    public mutating func record(_ position: WiFiPosition?, for accessPoints: Set<BSSID>, now: Date) {
        let sorted = accessPoints.sorted()
        let kept = entries.filter { $0.accessPoints != sorted && !isExpired($0, now: now) }
        entries = kept
        entries.append(Entry(accessPoints: sorted, position: position, answeredAt: now))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    /// An earlier position that a new answer for `accessPoints` contradicts, if any: when at least half of the
    /// access points were located before, and the new position is far from every earlier position of those access
    /// points, the new answer is the odd one out (a service's database poisoned, or a batch of access points moved
    /// with a van) and is refused. A set most of whose access points were never located before contradicts nothing:
    /// that is a new place, and a phone's hotspot carried along must not veto it.
    public func contradiction(of position: WiFiPosition, for accessPoints: Set<BSSID>, now: Date)
        -> (earlier: WiFiPosition, distanceKm: Double)?
    {
        var earlier: [BSSID: WiFiPosition] = [:]
        for entry in entries where !isExpired(entry, now: now) {
            guard let known = entry.position else { continue }
            for bssid in entry.accessPoints where accessPoints.contains(bssid) { earlier[bssid] = known }
        }
        guard !earlier.isEmpty, earlier.count * 2 >= accessPoints.count else { return nil }
        let distances = earlier.values.map { known in
            (known, known.coordinate.distanceKm(to: position.coordinate))
        }
        guard
            distances.allSatisfy({ known, distance in
                distance > Self.contradictionKm + (known.accuracyMeters + position.accuracyMeters) / 1000
            }),
            let nearest = distances.min(by: { $0.1 < $1.1 })
        else { return nil }
        return (nearest.0, nearest.1)
    }

    /// How far, beyond both answers' accuracy, a new answer may be from an earlier one for the same access points.
    public static let contradictionKm = 10.0

    private func isExpired(_ entry: Entry, now: Date) -> Bool {
        let age = now.timeIntervalSince(entry.answeredAt)
        // An answer from the future (the clock was set back) is taken as new rather than thrown away.
        return age > (entry.position == nil ? Self.notFoundLifetime : Self.positionLifetime)
    }
}

/// When to ask the geolocation service, so that a laptop asks once per place, not once per scan: the service's
/// terms ask clients not to query more than they need, and each request tells it where the user is.
///
/// - A set of access points fewer than half of which were in the one asked about last is a new place: ask, at
///   once (waking at a new place locates within seconds), but never within ``minimumGap`` of the last request (a
///   train passing one village after another).
/// - The same place as last asked: no more often than once in ``samePlaceInterval`` (a place whose answer failed is
///   retried that often, no more).
/// - An answer kept for the same place (``WiFiAnswerCache``) is used instead of asking.
/// - A `Retry-After` or a failure's backoff holds every request until it passes.
public struct WiFiQueryRule: Sendable, Hashable {
    public static let samePlaceInterval: TimeInterval = 10 * 60
    public static let minimumGap: TimeInterval = 60
    /// After the service failed (5xx, an answer that could not be used), and when it asked to slow down without
    /// saying for how long.
    public static let failureBackoff: TimeInterval = 10 * 60

    /// What was asked last, and until when asking is held.
    public struct State: Sendable, Hashable, Codable {
        public var lastAsked: [BSSID]?
        public var lastAskedAt: Date?
        /// No request before this (Retry-After, a failure's backoff).
        public var notBefore: Date?

        public init(lastAsked: [BSSID]? = nil, lastAskedAt: Date? = nil, notBefore: Date? = nil) {
            self.lastAsked = lastAsked
            self.lastAskedAt = lastAskedAt
            self.notBefore = notBefore
        }
    }

    public enum Decision: Sendable, Hashable {
        /// Fewer access points than the service locates: no request.
        case tooFew
        /// The same place was answered before: that answer (nil: the service did not know it).
        case known(WiFiPosition?)
        /// Ask now.
        case ask
        /// Not before this moment; judge again then.
        case wait(until: Date)
    }

    /// Whether the access points seen now are at a place known by an earlier set: at least half of those seen now
    /// were in it. Scans of one place differ by the weakest access points coming and going, and a scan that caught
    /// only some of them is still that place; a new place's scan holds few or none of the old ones (a few may linger
    /// in the scan list for minutes after a move, and are outnumbered as soon as the new place's are found).
    public static func samePlace(known: Set<BSSID>, current: Set<BSSID>) -> Bool {
        guard !current.isEmpty else { return false }
        return known.intersection(current).count * 2 >= current.count
    }

    public static func decide(
        _ request: WiFiGeolocationRequest, state: State, cache: WiFiAnswerCache, now: Date
    ) -> Decision {
        guard request.canAsk else { return .tooFew }
        let current = request.bssids
        if let known = cache.answer(for: current, now: now) { return .known(known.position) }
        var earliest = state.notBefore ?? .distantPast
        if let lastAsked = state.lastAsked, let at = state.lastAskedAt {
            let interval = samePlace(known: Set(lastAsked), current: current) ? samePlaceInterval : minimumGap
            // A last request in the future (the clock was set back) holds nothing.
            if at <= now { earliest = max(earliest, at.addingTimeInterval(interval)) }
        }
        return now >= earliest ? .ask : .wait(until: earliest)
    }

    /// What an outcome does to the state and the cache, and what it means for the position.
    public enum Outcome: Sendable, Hashable {
        case answered(WiFiGeolocationAnswer)
        /// The request reached no service (offline, DNS, refused, a timeout): nothing is held back for it, since
        /// the service saw nothing; the network's return judges again.
        case unreachable
        /// Asked to slow down for this long (`Retry-After`), or nil when the service did not say.
        case slowDown(retryAfter: TimeInterval?)
    }

    /// The verdict on an outcome: the position to use (if any), and why not (for the log and the report).
    public struct Verdict: Sendable, Hashable {
        public var position: WiFiPosition?
        /// Why there is no position; nil when there is one.
        public var problem: String?
    }

    /// Records a request made at `now` for `request` and its outcome.
    public static func record(
        _ outcome: Outcome, for request: WiFiGeolocationRequest, state: inout State, cache: inout WiFiAnswerCache,
        now: Date
    ) -> Verdict {
        let current = request.bssids
        state.lastAsked = current.sorted()
        state.lastAskedAt = now
        switch outcome {
        case .unreachable:
            return Verdict(position: nil, problem: "the geolocation service could not be reached")
        case .slowDown(let retryAfter):
            state.notBefore = now.addingTimeInterval(max(minimumGap, retryAfter ?? failureBackoff))
            return Verdict(position: nil, problem: "the geolocation service asked to slow down")
        case .answered(.rateLimited):
            state.notBefore = now.addingTimeInterval(failureBackoff)
            return Verdict(position: nil, problem: "the geolocation service asked to slow down")
        case .answered(.notFound):
            cache.record(nil, for: current, now: now)
            return Verdict(position: nil, problem: "the geolocation service knows none of these access points")
        case .answered(.refused(let reason)), .answered(.serviceError(let reason)):
            state.notBefore = now.addingTimeInterval(failureBackoff)
            return Verdict(position: nil, problem: "the geolocation service's answer was refused: \(reason)")
        case .answered(.position(let position)):
            if let (earlier, distance) = cache.contradiction(of: position, for: current, now: now) {
                state.notBefore = now.addingTimeInterval(failureBackoff)
                return Verdict(
                    position: nil,
                    problem: "the geolocation service's answer was refused: it is \(Int(distance.rounded())) km from "
                        + "where the same access points were before (\(earlier.coordinate.latitude), "
                        + "\(earlier.coordinate.longitude))")
            }
            cache.record(position, for: current, now: now)
            state.notBefore = nil
            return Verdict(position: position, problem: nil)
        }
    }
}
