import ForecastModel
import Foundation
import Logging

/// How long a failing provider is left alone before it is asked again.
///
/// Exponential: ``initial`` after the first failure, times ``multiplier`` after each further one, up to
/// ``maximum``, each delay spread by ±``jitter`` so that many daemons that failed together do not
/// come back together. A provider's own word wins when it asks for longer: `Retry-After`, or a quota
/// period ("daily limit": the next UTC midnight, plus up to ``windowJitter``).
public struct BackoffPolicy: Sendable, Hashable {
    /// Seconds to wait after the first failure.
    public var initial: TimeInterval
    /// Growth of the delay with each consecutive failure.
    public var multiplier: Double
    /// The longest delay the policy itself chooses, in seconds.
    public var maximum: TimeInterval
    /// The longest delay after failures to connect at all (`offline`): they cost the provider nothing
    /// and say nothing about it, and the network coming back must be noticed soon.
    public var offlineMaximum: TimeInterval
    /// The relative spread of each delay: 0.2 makes a 60 s delay anything from 48 s to 72 s.
    public var jitter: Double
    /// The longest `Retry-After` believed, in seconds; a larger one is cut to this.
    public var longestRetryAfter: TimeInterval
    /// Up to this many seconds are added after a quota period ends.
    public var windowJitter: TimeInterval

    public init(
        initial: TimeInterval = 30, multiplier: Double = 2, maximum: TimeInterval = 1800,
        offlineMaximum: TimeInterval = 60, jitter: Double = 0.2, longestRetryAfter: TimeInterval = 86_400,
        windowJitter: TimeInterval = 300
    ) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.offlineMaximum = offlineMaximum
        self.jitter = jitter
        self.longestRetryAfter = longestRetryAfter
        self.windowJitter = windowJitter
    }

    /// The delay after `failures` consecutive failures (1 for the first) of this kind, before jitter.
    ///
    /// Refused credentials (`auth`) wait the maximum at once: they do not mend themselves.
    public func baseDelay(afterFailures failures: Int, kind: ErrorKind) -> TimeInterval {
        if kind == .auth { return maximum }
        let exponent = Double(max(0, failures - 1))
        let grown = min(maximum, initial * pow(multiplier, min(exponent, 64)))
        return kind == .offline ? min(grown, offlineMaximum) : grown
    }

    /// When a provider may be asked again after `error`, its `failures`-th consecutive failure at `now`.
    ///
    /// - Parameter random: a uniform random number in the range it is given.
    public func nextAttempt(
        after error: ProviderError, failures: Int, now: Date, random: (ClosedRange<Double>) -> Double
    ) -> Date {
        let spread = max(0, min(jitter, 1))
        var wait = baseDelay(afterFailures: failures, kind: error.kind) * random((1 - spread)...(1 + spread))
        if let retryAfter = error.retryAfter {
            let (seconds, attoseconds) = retryAfter.components
            let asked = Double(seconds) + Double(attoseconds) / 1e18
            wait = max(wait, min(asked, longestRetryAfter))
        }
        if let window = error.rateLimitWindow {
            let untilWindowEnds = window.end(after: now).timeIntervalSince(now) + random(0...max(0, windowJitter))
            wait = max(wait, untilWindowEnds)
        }
        return now.addingTimeInterval(wait)
    }
}

/// Why a round of the chain asks now: it decides which providers in backoff are asked anyway.
///
/// The chain's backoff is the daemon's one retry policy; these are its only exceptions. A wait a
/// provider asked for (`Retry-After`, a quota period) or one after refused credentials always holds.
public enum FetchReason: Sendable, Hashable {
    /// The forecast is due (or a retry is): providers in backoff are skipped.
    case due
    /// A user asked (`forecastctl refresh`): waits the chain chose by itself are passed over, so that
    /// who has just seen the network come back need not wait out a backoff meant for unattended retries.
    case userAsked
    /// The network came back or the machine resumed: providers that failed for want of a connection
    /// (offline, no answer in time) are asked again; a provider's own refusal (HTTP 429, a server
    /// error) keeps its wait, since the network's return changes nothing for it.
    case networkReturned

    /// Whether a provider whose last failure was `error` is asked for this reason despite its backoff.
    public func asksAgain(after error: ProviderError) -> Bool {
        guard error.retryAfter == nil, error.rateLimitWindow == nil, error.kind != .auth else { return false }
        switch self {
        case .due: return false
        case .userAsked: return true
        case .networkReturned: return [.offline, .timeout].contains(error.kind)
        }
    }
}

/// What one round of the chain produced: the forecast of the first provider that served, and why
/// each provider before it did not.
public struct ChainOutcome: Sendable {
    /// A provider the chain did not ask because it is backing off.
    public struct Skipped: Sendable {
        /// The provider's name.
        public var provider: String
        /// When it may be asked again.
        public var until: Date
        /// The failure that put it in backoff.
        public var lastError: ProviderError
    }

    /// The forecast, whose ``Forecast/provider`` names the provider that served; nil when none did.
    public var forecast: Forecast?
    /// The coordinate the providers were asked for, rounded to the chain's precision.
    public var coordinate: Coordinate
    /// The providers asked that failed this round, in the order asked.
    public var failures: [ProviderError]
    /// The providers not asked this round because they are backing off, in chain order.
    public var skipped: [Skipped]
    /// When no provider served: the earliest moment one may be asked again (nil when one served).
    public var nextAttempt: Date?
    /// Every problem of this round for the report, in chain order: the failures as they came, and
    /// for each skipped provider its last error restated (`met-norway: not asked again before
    /// 2026-11-22T05:30:00Z after: HTTP 503: Service Unavailable`).
    public var errors: [ProviderError]
}

/// One provider's health as the chain sees it.
public struct ProviderHealth: Sendable, Hashable {
    public var provider: String
    /// Failures since its last success.
    public var consecutiveFailures: Int
    /// When it may be asked again; nil when it may be asked now.
    public var backoffUntil: Date?
    public var lastError: ProviderError?
}

/// The providers in the user's order, so that the bar is never blank while one of them answers.
///
/// Each round rounds the coordinate to ``coordinatePrecision`` decimals (privacy, and cache hits at
/// the providers), then asks the providers in order and stops at the first forecast. A provider that
/// fails (offline, timeout, 5xx, HTML instead of JSON, a truncated or unusable body, an answer dated
/// in the past or older than the forecast held, 429, refused credentials) is put in backoff (``BackoffPolicy``) and is not asked at all until its time has come;
/// the next provider serves meanwhile. A provider that answers again is trusted again at once.
///
/// Meant to be driven by one refresh loop; concurrent rounds are safe but not merged.
public actor ProviderChain: WeatherProvider {
    /// The providers' names in order: `open-meteo → met-norway`.
    public nonisolated let name: String
    /// Decimals kept of latitude and longitude before any provider sees them (0...4).
    public nonisolated let coordinatePrecision: Int
    public nonisolated let policy: BackoffPolicy
    /// How far from now an answer's own time (``Forecast/speaksFor``) may lie, before or after, in seconds,
    /// for it to count as a forecast (``AnswerCheck/time(_:now:maximumOffset:)``); one beyond is that
    /// provider's failure (`bad_response`). Nil: not judged.
    public nonisolated let maximumAnswerOffset: TimeInterval?
    /// How much earlier than the forecast already held an answer may speak for and still replace it: providers
    /// speak for different moments (Open-Meteo the quarter hour, MET Norway the hour), and one may take over from
    /// the other. An answer older than that is that provider's failure (`bad_response`): newer data is never
    /// replaced by older.
    public static let heldForecastTolerance: TimeInterval = 3600

    private let providers: [any WeatherProvider]
    private var health: [ProviderHealth]
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let random: @Sendable (ClosedRange<Double>) -> Double

    /// - Parameters:
    ///   - providers: in the order of `[providers] order`.
    ///   - coordinatePrecision: `[providers] coordinate_precision`; clamped to 0...4.
    ///   - maximumAnswerOffset: see ``maximumAnswerOffset``; nil for recorded answers replayed at another date.
    ///   - now: the clock for backoff; tests pass a controllable one.
    ///   - random: a uniform random number in the given range, for jitter; tests pass a fixed one.
    public init(
        providers: [any WeatherProvider], coordinatePrecision: Int, policy: BackoffPolicy = BackoffPolicy(),
        maximumAnswerOffset: TimeInterval? = nil, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        self.providers = providers
        self.name = providers.map(\.name).joined(separator: " → ")
        self.coordinatePrecision = max(0, min(coordinatePrecision, 4))
        self.policy = policy
        self.maximumAnswerOffset = maximumAnswerOffset
        self.health = providers.map { ProviderHealth(provider: $0.name, consecutiveFailures: 0) }
        self.logger = logger
        self.now = now
        self.random = random
    }

    /// `coordinate` rounded to `decimals` decimals (half away from zero): 2 decimals is about 1 km.
    public static func round(_ coordinate: Coordinate, decimals: Int) -> Coordinate {
        let scale = pow(10, Double(max(0, min(decimals, 4))))
        func round(_ value: Double) -> Double {
            let rounded = (value * scale).rounded(.toNearestOrAwayFromZero) / scale
            return rounded == 0 ? 0 : rounded  // no "-0" in URLs
        }
        return Coordinate(latitude: round(coordinate.latitude), longitude: round(coordinate.longitude))
    }

    /// Asks the providers in order for the forecast at `coordinate` (rounded first), skipping those in
    /// backoff (unless `reason` passes over their wait), and returns the first forecast with every
    /// failure met on the way. `held`: the time the forecast already held for that place speaks for
    /// (``Forecast/speaksFor``); an answer older than it by more than ``heldForecastTolerance`` is refused.
    public func fetch(for coordinate: Coordinate, reason: FetchReason = .due, held: Date? = nil) async -> ChainOutcome {
        let rounded = Self.round(coordinate, decimals: coordinatePrecision)
        var outcome = ChainOutcome(
            forecast: nil, coordinate: rounded, failures: [], skipped: [], nextAttempt: nil, errors: [])
        for (index, provider) in providers.enumerated() {
            let started = now()
            if let until = health[index].backoffUntil, started < until,
                !(health[index].lastError.map(reason.asksAgain(after:)) ?? false)
            {
                if let lastError = health[index].lastError {
                    outcome.skipped.append(.init(provider: provider.name, until: until, lastError: lastError))
                    // The wait the provider itself asked for, if any, stays the error's: the chain's own backoff
                    // is said in the detail. So the network's return still asks again a provider skipped after
                    // it failed offline (a listed city fetched right after here's failure meets it skipped).
                    outcome.errors.append(
                        ProviderError(
                            provider: lastError.provider, kind: lastError.kind,
                            detail: "not asked again before \(Timestamps.rfc3339(until)) after: \(lastError.detail)",
                            retryAfter: lastError.retryAfter, rateLimitWindow: lastError.rateLimitWindow))
                }
                logger.debug(
                    "Skipping a weather provider that is backing off.",
                    metadata: ["provider": "\(provider.name)", "backoff.until": "\(Timestamps.rfc3339(until))"])
                continue
            }
            do throws(ProviderError) {
                let forecast = try await provider.forecast(for: rounded)
                if let maximumAnswerOffset, let time = forecast.speaksFor,
                    let problem = AnswerCheck.time(time, now: now(), maximumOffset: maximumAnswerOffset)
                {
                    // Whether a good forecast stays is only known here: said only when one is held for the place.
                    throw ProviderError(
                        provider: provider.name, kind: .badResponse,
                        detail: problem + (held != nil ? "; kept the last good forecast" : ""))
                }
                if let held, let older = forecast.olderThanHeld(held, tolerance: Self.heldForecastTolerance) {
                    throw ProviderError(provider: provider.name, kind: .badResponse, detail: older)
                }
                succeeded(index)
                outcome.forecast = forecast
                return outcome
            } catch {
                failed(index, error)
                outcome.failures.append(error)
                outcome.errors.append(error)
            }
        }
        outcome.nextAttempt = health.compactMap(\.backoffUntil).min()
        return outcome
    }

    /// The forecast from the first provider that serves; when none does, the error of the first
    /// provider in the user's order (use ``fetch(for:)`` to see every error).
    ///
    /// A forecast served after earlier providers failed says so in its notes (the report's
    /// `provider.notes`), not in the report's errors: the data is good and fresh, but the user should
    /// know the first choice is failing.
    public func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast {
        try await forecast(for: coordinate, reason: .due)
    }

    /// ``forecast(for:)`` for a `reason` other than a due forecast, or never older than a forecast `held`
    /// (see ``fetch(for:reason:held:)``).
    public func forecast(
        for coordinate: Coordinate, reason: FetchReason, held: Date? = nil
    ) async throws(ProviderError) -> Forecast {
        let outcome = await fetch(for: coordinate, reason: reason, held: held)
        if var forecast = outcome.forecast {
            for error in outcome.errors {
                forecast.notes.append("Served by \(forecast.provider) because \(error.message).")
            }
            return forecast
        }
        if let first = outcome.errors.first { throw first }
        throw ProviderError(provider: name, kind: .providerError, detail: "no weather provider is configured")
    }

    /// Each provider's failures and backoff, in chain order.
    public func providerHealth() -> [ProviderHealth] {
        health
    }

    /// Forgets every backoff, so the next round asks every provider again: for when the network is
    /// known to be back, or the settings changed.
    public func resetBackoff() {
        for index in health.indices {
            health[index].consecutiveFailures = 0
            health[index].backoffUntil = nil
        }
    }

    /// When a provider may be asked again after a round that got no forecast: the earliest end of a
    /// backoff. The daemon retries then, and not before (the chain's backoff is its one retry policy).
    public func nextAttempt() -> Date? {
        let at = now()
        return health.compactMap(\.backoffUntil).filter { $0 > at }.min()
    }

    private func succeeded(_ index: Int) {
        if health[index].consecutiveFailures > 0 {
            logger.info(
                "A weather provider answers again.",
                metadata: [
                    "provider": "\(health[index].provider)",
                    "provider.failures": "\(health[index].consecutiveFailures)",
                ])
        }
        health[index].consecutiveFailures = 0
        health[index].backoffUntil = nil
        health[index].lastError = nil
    }

    private func failed(_ index: Int, _ error: ProviderError) {
        let at = now()
        health[index].consecutiveFailures += 1
        health[index].lastError = error
        let until = policy.nextAttempt(
            after: error, failures: health[index].consecutiveFailures, now: at, random: random)
        health[index].backoffUntil = until
        logger.warning(
            "A weather provider failed; the next one in order is asked.",
            metadata: [
                "provider": "\(error.provider)", "error.kind": "\(error.kind.rawValue)",
                "error.message": "\(error.message)",
                "provider.failures": "\(health[index].consecutiveFailures)",
                "backoff.until": "\(Timestamps.rfc3339(until))",
            ])
    }
}
