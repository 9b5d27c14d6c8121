import ForecastModel
import Foundation
import WeatherProviders

/// When the forecast for here is due: after the refresh interval, after a move farther than
/// `refresh_distance_km`, when a user asks (`forecastctl refresh`), when the network returns after a
/// failure for want of it, and after a failure at the moment the provider chain names.
///
/// A value with no clock of its own: every judgement takes `now`, so tests set the time.
struct HereSchedule {
    /// The failure streak and its retry.
    private(set) var schedule = FetchSchedule()
    /// Where the forecast held was asked for; nil before the first fetch and after settings that make
    /// the old one say nothing (fetch at once).
    private var requestedFor: Coordinate?
    /// A user asked: fetch now, whatever the interval.
    private var userAsked = false
    /// The network came back or the machine resumed after a failure for want of a network.
    private var networkReturned = false
    /// When a user's refresh last failed: a user may ask again after ``userInterval``. Kept apart from
    /// the streak's last attempt so that a user's refresh never moves the automatic retry later.
    private var lastUserFailure: Date?

    /// How soon after a failure a user may ask again: more would only hammer the provider
    /// (``DaemonIntervals/userRefresh``).
    let userInterval: TimeInterval

    init(userInterval: TimeInterval = DaemonIntervals.real.userRefresh) {
        self.userInterval = userInterval
    }

    /// The failure streak going on, nil after a success.
    var failure: FetchSchedule.Failure? { schedule.failure }

    /// Forgets where the forecast was asked for and the streak: new settings (another position
    /// source, other providers) fetch at once, whatever the backoff of the old ones said.
    mutating func reset() {
        requestedFor = nil
        schedule.reset()
    }

    /// Where a forecast is due at `now` and why, or nil: only looks (``take(position:forecast:now:refreshInterval:refreshDistanceKm:)``
    /// takes a user's request).
    func due(
        position: Coordinate?, forecast: Forecast?, now: Date, refreshInterval: TimeInterval, refreshDistanceKm: Double
    ) -> DueFetch? {
        guard let target = position else { return nil }
        let reason: FetchReason = userAsked ? .userAsked : networkReturned ? .networkReturned : .due
        let due = DueFetch(coordinate: target, reason: reason, held: forecast?.heldTime(near: target, withinKm: refreshDistanceKm))
        if userAsked { return due }
        if schedule.isWaiting(at: now), !networkReturned { return nil }
        guard let forecast, let requestedFor else { return due }
        if requestedFor.distanceKm(to: target) > refreshDistanceKm
            || now.timeIntervalSince(forecast.fetchedAt) >= refreshInterval
        {
            return due
        }
        return nil
    }

    /// ``due(position:forecast:now:refreshInterval:refreshDistanceKm:)``, taking a user's request and
    /// the network's return with it: for the forecast service only.
    mutating func take(
        position: Coordinate?, forecast: Forecast?, now: Date, refreshInterval: TimeInterval, refreshDistanceKm: Double
    ) -> DueFetch? {
        guard
            let due = due(
                position: position, forecast: forecast, now: now, refreshInterval: refreshInterval,
                refreshDistanceKm: refreshDistanceKm)
        else { return nil }
        userAsked = false
        networkReturned = false
        return due
    }

    /// Why a user's refresh at `now` is refused, or nil when it may go ahead (and is then due at once).
    mutating func askedByUser(at now: Date) -> RefreshOutcome? {
        if let failure = schedule.failure,
            let attempt = [failure.lastAttempt, lastUserFailure].compactMap({ $0 }).max(),
            now.timeIntervalSince(attempt) < userInterval
        {
            // Say when the next attempt comes (a provider's Retry-After included): "moments ago" alone
            // does not tell the user how long to wait.
            return RefreshOutcome(.tooSoon, error: failure.error.message, retryAt: failure.retryAt)
        }
        userAsked = true
        return nil
    }

    /// The network came back or the machine resumed: a fetch that failed for want of a connection is
    /// retried at once (the chain asks the providers that failed so); a provider's own refusal keeps
    /// its wait.
    mutating func networkOrClockChanged() {
        if let failure = schedule.failure, FetchReason.networkReturned.asksAgain(after: failure.error) {
            networkReturned = true
        }
    }

    /// Records a good forecast asked for `coordinate`; returns the streak it ends.
    mutating func succeeded(for coordinate: Coordinate) -> FetchSchedule.Failure? {
        networkReturned = false
        lastUserFailure = nil
        requestedFor = coordinate
        return schedule.succeeded()
    }

    /// What a failure did to the streak.
    enum FailureNote {
        /// A user's refresh failed during a streak: the streak, and its retry, stay as they were.
        case userAskedDuringStreak
        case startedStreak
        case continuedStreak
    }

    /// Records a failed fetch at `now`, retried at `retryAt` (the chain's next attempt).
    mutating func failed(_ error: ProviderError, at now: Date, userAsked: Bool, retryAt: Date) -> FailureNote {
        networkReturned = false
        if userAsked, schedule.failure != nil {
            lastUserFailure = now
            return .userAskedDuringStreak
        }
        return schedule.failed(error, at: now, retryAt: retryAt) ? .startedStreak : .continuedStreak
    }

    /// The moments a judgement changes by itself: the retry, or the forecast due again.
    func judgementMoments(forecast: Forecast?, refreshInterval: TimeInterval) -> [Date] {
        if let failure = schedule.failure { return [failure.retryAt] }
        if let forecast, requestedFor != nil { return [forecast.fetchedAt.addingTimeInterval(refreshInterval)] }
        return []
    }
}

/// A forecast fetch that is due: where, and why now.
public struct DueFetch: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Passed to the provider chain: it decides which providers in backoff a user's refresh or the
    /// network's return may ask anyway.
    public var reason: FetchReason
    /// The time the forecast already held for this place speaks for: the answer must not be older
    /// (``ProviderChain/fetch(for:reason:held:)``). Nil when none is held for this place.
    public var held: Date?
    /// Whether a user asked (`forecastctl refresh`).
    public var forced: Bool { reason == .userAsked }

    package init(coordinate: Coordinate, reason: FetchReason, held: Date? = nil) {
        self.coordinate = coordinate
        self.reason = reason
        self.held = held
    }
}

extension Forecast {
    /// The time this forecast speaks for when it is one for `coordinate` (within `km`): a newer answer for
    /// that place must not be older. Nil for another place, which an older answer may well replace.
    func heldTime(near coordinate: Coordinate, withinKm km: Double) -> Date? {
        self.coordinate.distanceKm(to: coordinate) <= km ? speaksFor : nil
    }
}
