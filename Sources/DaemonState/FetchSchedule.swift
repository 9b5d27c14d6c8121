import ForecastModel
import Foundation
import WeatherProviders

/// The failure streak of one forecast (here, or a listed city) and when it is retried: one copy of
/// the retry bookkeeping for every forecast the daemon keeps.
///
/// A value with no clock of its own: each call takes `now`, so tests set the time. It chooses no
/// wait itself: the retry comes when the provider chain says a provider may be asked again (its
/// backoff, `Retry-After` included, is the daemon's one retry policy).
struct FetchSchedule: Equatable {
    /// A streak of failed fetches.
    struct Failure: Equatable {
        var error: ProviderError
        /// When the streak began (the report's `since`).
        var since: Date
        var lastAttempt: Date
        var attempts: Int
        /// When the next automatic attempt is due.
        var retryAt: Date
    }

    /// The streak going on, nil after a success.
    private(set) var failure: Failure?

    /// Records a failed attempt at `now`, retried at `retryAt`. Returns true when it starts a streak
    /// (worth a warning).
    @discardableResult
    mutating func failed(_ error: ProviderError, at now: Date, retryAt: Date) -> Bool {
        let started = failure == nil
        failure = Failure(
            error: error, since: failure?.since ?? now, lastAttempt: now, attempts: (failure?.attempts ?? 0) + 1,
            retryAt: retryAt)
        return started
    }

    /// Ends the streak; returns it, for a log line saying the provider answers again.
    @discardableResult
    mutating func succeeded() -> Failure? {
        defer { failure = nil }
        return failure
    }

    /// Forgets the streak: for new settings that make the old backoff say nothing (another position,
    /// other providers).
    mutating func reset() { failure = nil }

    /// Whether the automatic retry is still waiting at `now`.
    func isWaiting(at now: Date) -> Bool {
        guard let failure else { return false }
        return now < failure.retryAt
    }

    /// The streak as an entry of the report's `errors`.
    var reportError: ReportError? {
        failure.map {
            ReportError(kind: $0.error.kind, message: $0.error.message, since: Timestamps.rfc3339($0.since))
        }
    }
}
