import ForecastModel
import Foundation
import Logging
import WeatherProviders

/// The fetches' side of the state owner: what the forecast service and the cities' fetches report back, a
/// user's refresh, and the network's return. Kept apart from ForecastState.swift (position, settings,
/// time, publication) so that each file reads in one sitting.
extension ForecastState {
    // MARK: Cities

    /// The next listed city whose forecast is due (missing, older than the refresh interval, or its
    /// backoff over, or the network back after it failed offline), nil when every city is fresh: one request
    /// per city per interval. With why (for the chain's backoff) and the time its held forecast speaks for,
    /// which the answer must not be older than.
    public func dueCityFetch() -> (id: String, coordinate: Coordinate, reason: FetchReason, held: Date?)? {
        cities.due(at: clock(), refreshInterval: settings.value.refreshSeconds).map {
            ($0.city.id, $0.city.coordinate, $0.reason, cities.held(id: $0.city.id))
        }
    }

    /// Records a good forecast for a listed city.
    public func cityForecastSucceeded(_ forecast: Forecast, id: String) {
        guard let city = cities.succeeded(forecast, id: id) else { return }
        if city.favorite { historyContinuation.yield(CityReading(cityID: id, forecast: forecast)) }
        publishIfChanged(now: clock())
        saveState()
    }

    /// Records a failed fetch for a listed city; its last good forecast stays, marked stale, and it is
    /// retried at `retryAt` (the provider chain's next attempt).
    public func cityForecastFailed(_ error: ProviderError, id: String, retryAt: Date?) {
        let now = clock()
        if cities.failed(error, id: id, at: now, retryAt: retryAt ?? now.addingTimeInterval(settings.value.refreshSeconds)) {
            logger.warning(
                "The forecast fetch for a listed city failed; keeping its last good forecast.",
                metadata: ["city": "\(id)", "error": "\(error)", "error.kind": "\(error.kind.rawValue)"])
        }
        publishIfChanged(now: now)
    }

    /// The network came back (an address or route appeared), the machine resumed from suspend or the wall
    /// clock was set: judges
    /// everything again at once instead of at the timer's next moment, which a suspend or a clock change
    /// made wrong.
    ///
    /// A forecast that is overdue is fetched now; one whose last fetch failed because no connection could
    /// be made or no answer came (offline, timeout) is retried now, whatever its backoff said: here's, and
    /// each listed city's. A
    /// provider's own refusal (HTTP 429, Retry-After, a server error) keeps its wait: the network returning
    /// changes nothing for it.
    public func networkOrClockChanged() {
        here.networkOrClockChanged()
        cities.networkOrClockChanged()
        reevaluate()
    }

    /// Fetches the forecast now (a user asked) and returns when the fetch is done.
    ///
    /// After a failure a user may ask again only after 10 s (``DaemonIntervals/userRefresh``): more would
    /// only hammer the provider.
    public func refreshNow() async -> RefreshOutcome {
        if let follow { return RefreshOutcome(.following, provider: follow.topic) }
        guard inputs.fix != nil else {
            return RefreshOutcome(.noPosition)
        }
        if let refusal = here.askedByUser(at: clock()) { return refusal }
        refreshContinuation.yield()
        return await withCheckedContinuation { refreshWaiters.append($0) }
    }

    /// Whether a user's refresh waits for the forecast service (for tests that play its part).
    public var refreshRequestsPending: Bool { !refreshWaiters.isEmpty }

    private func finishRefreshWaiters(_ outcome: RefreshOutcome) {
        let waiters = refreshWaiters
        refreshWaiters = []
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Records a good forecast for a position.
    public func forecastSucceeded(_ forecast: Forecast, for coordinate: Coordinate) {
        if let failure = here.succeeded(for: coordinate) {
            logger.info(
                "The forecast provider answers again.",
                metadata: ["provider": "\(forecast.provider)", "failed_attempts": "\(failure.attempts)"])
        }
        logger.debug(
            "Fetched a forecast.",
            metadata: [
                "provider": "\(forecast.provider)", "location.latitude": "\(coordinate.latitude)",
                "location.longitude": "\(coordinate.longitude)",
            ])
        inputs.forecast = forecast
        inputs.fromSavedState = false
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
        saveState()
        finishRefreshWaiters(RefreshOutcome(.fetched, provider: forecast.provider))
    }

    /// Records a failed fetch; the last good forecast stays, marked stale.
    ///
    /// - Parameters:
    ///   - forced: the fetch was a user's refresh. It says what went wrong, but never moves the
    ///     automatic retry later: asking during a provider's Retry-After must not extend it.
    ///   - retryAt: when the provider chain may ask a provider again (``ProviderChain/nextAttempt()``):
    ///     the automatic retry comes then. Nil (no provider to ask): after the refresh interval.
    public func forecastFailed(_ error: ProviderError, for coordinate: Coordinate, forced: Bool = false, retryAt: Date?) {
        let now = clock()
        switch here.failed(error, at: now, userAsked: forced, retryAt: retryAt ?? now.addingTimeInterval(settings.value.refreshSeconds)) {
        case .userAskedDuringStreak:
            // The failure that set the automatic retry stays as it is, timing and all; the user is
            // told what this try met in the refresh's answer.
            logger.debug("A refresh a user asked for failed.", metadata: ["error": "\(error)"])
        case .continuedStreak:
            logger.debug(
                "The forecast fetch failed again.", metadata: ["error": "\(error)", "attempts": "\(here.failure?.attempts ?? 0)"])
        case .startedStreak:
            logger.warning(
                "The forecast fetch failed; keeping the last good forecast.",
                metadata: ["error": "\(error)", "error.kind": "\(error.kind.rawValue)"])
        }
        inputs.errors = currentErrors()
        publishIfChanged(now: now)
        finishRefreshWaiters(RefreshOutcome(.failed, error: error.message))
    }
}

/// How a refresh asked for by a user went.
public struct RefreshOutcome: Sendable, Hashable {
    /// What happened, as the `REFRESH` answer's `outcome` names it.
    public enum Kind: String, Sendable, Hashable {
        case fetched
        /// No position: nothing to fetch a forecast for.
        case noPosition = "no_position"
        /// Refused: the last attempt failed moments ago (``DaemonIntervals/userRefresh``).
        case tooSoon = "too_soon"
        case failed
        /// This daemon follows another's report on MQTT (`[mqtt] follow`) and fetches nothing: `provider` is the
        /// followed topic.
        case following
    }

    public var kind: Kind
    /// The provider that answered (`fetched`).
    public var provider: String?
    /// What went wrong (`too_soon`, `failed`), in the provider error's own words.
    public var error: String?
    /// When the next attempt is due (`too_soon`).
    public var retryAt: Date?

    public init(_ kind: Kind, provider: String? = nil, error: String? = nil, retryAt: Date? = nil) {
        self.kind = kind
        self.provider = provider
        self.error = error
        self.retryAt = retryAt
    }

    public var ok: Bool { kind == .fetched }

    /// The outcome in English, the answer's `message` (forecastctl says it in its language from the fields).
    public var message: String {
        switch kind {
        case .fetched: "fetched a new forecast from \(provider ?? "the provider")"
        case .noPosition: "no position to fetch a forecast for"
        case .tooSoon:
            "the last attempt failed moments ago: \(error ?? ""); the next one is due at "
                + (retryAt.map { Timestamps.rfc3339($0) } ?? "")
        case .failed: error ?? "the fetch failed"
        case .following: "this forecastd follows \(provider ?? "another") on MQTT and asks no provider itself"
        }
    }
}

/// A good forecast of a favourite city, for the history database.
public struct CityReading: Sendable {
    public var cityID: String
    public var forecast: Forecast
}
