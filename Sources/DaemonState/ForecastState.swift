import ForecastModel
import Foundation
import Control
import Location
import Logging
import MQTTPayloads
import NetworkPath
import Rendering
import Settings
import Waiting
import WeatherProviders

/// The one owner of the daemon's mutable state: positions, place, forecast, errors, and the
/// published report.
///
/// Every other part talks to it with `Sendable` values: location events in, forecasts and
/// failures in, reports out. The published report changes only when something a reader can see
/// changes, so an idle daemon writes nothing.
public actor ForecastState {
    // The fetches' side (the forecast for here and the listed cities: their results, a user's refresh, the
    // network's return) is in ForecastState+Fetches.swift; what it shares with this file is internal, not
    // private, for that reason only.
    let logger: Logger
    let clock: @Sendable () -> Date
    let startedAt: Date

    /// Where the machine is and what each position source says.
    private var position: PositionTracker
    /// The position sources that should run; the location service follows it.
    private let wantedSources: Broadcast<Set<LocationSourceSpec>>

    /// When the forecast for here is due, and its failure streak.
    var here: HereSchedule
    var refreshWaiters: [CheckedContinuation<RefreshOutcome, Never>] = []

    /// The listed cities' forecasts and failures, kept like here's.
    var cities: CityForecasts
    private var publishedCityInputs: [ReportInputs] = []
    var historyContinuation: AsyncStream<CityReading>.Continuation
    /// Yields every good forecast of a favourite city; the history service is its only consumer.
    public nonisolated let historyRecords: AsyncStream<CityReading>

    // Settings.
    /// The settings file's, the saves' and the alert sources' problems, for the report's `errors`.
    var problems = ReportProblems()
    /// Set when this daemon follows another's report on MQTT (ForecastState+Follow.swift): then no position
    /// source or fetch is wanted, and the report is made from the followed one.
    var follow: FollowState?
    /// The warnings state.json keeps (as the alert service last judged them), and those restored from it that
    /// the alert service has not taken yet.
    private var savedWarnings: SavedState.SavedWarnings?
    private var restoredWarnings: SavedState.SavedWarnings?
    /// The settings in force, and word to the services and socket watchers that follow them. Readable from
    /// any thread without a hop to this actor: the socket renders each answer in `[display]` as it writes it.
    public nonisolated let settings: Broadcast<Settings>
    private var savedStateContinuation: AsyncStream<SavedState>.Continuation
    /// Yields what should survive a restart whenever it changes; the state service is its only consumer.
    public nonisolated let savedStates: AsyncStream<SavedState>

    // Output.
    var inputs: ReportInputs
    private var publishedInputs: ReportInputs
    /// The report every reader gets (the status files, the socket, watchers) with its JSON line,
    /// set before anyone is told of it. Readable from any thread without a hop to this actor: the
    /// socket answers `report` from it on its event loop.
    public nonisolated let published: Broadcast<PublishedReport>
    /// The report published last.
    public var report: Report { published.value.report }
    /// The published report as its JSON line, encoded once per change rather than once per reader.
    public var reportLine: String { published.value.line }
    let refreshContinuation: AsyncStream<Void>.Continuation
    /// Yields whenever a forecast fetch may be due; the forecast service is its only consumer.
    public nonisolated let refreshRequests: AsyncStream<Void>

    /// The state's timer: armed for the next moment a time-based judgement falls due (a fix no longer
    /// fresh, the locating grace over, a refresh or retry due, a forecast turning stale), and armed again
    /// after every change. It rings only while someone keeps time (``keepTime()``, the forecast service).
    package nonisolated let judgementAlarm = Alarm()
    /// The moment (on this state's clock) the alarm is armed for, so that an unchanged moment does not
    /// re-arm it.
    private var judgementDue: Date?

    public init(
        settings: Settings, places: (any PlaceNaming)?, logger: Logger,
        intervals: DaemonIntervals = .real, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.logger = logger
        here = HereSchedule(userInterval: intervals.userRefresh)
        self.clock = clock
        let now = clock()
        startedAt = now
        position = PositionTracker(
            settings: settings.location, places: places, logger: logger, startedAt: now, locatingGrace: intervals.locatingGrace)
        wantedSources = Broadcast(position.wantedSources)
        // Read the catalogue of `[display] language` now, so that its problems are logged at start.
        _ = settings.display.phrases(logger: logger)
        self.settings = Broadcast(settings)
        inputs = ReportInputs(
            units: settings.units, staleAfter: settings.staleAfter,
            locating: position.locating,
            nowcastHorizon: settings.nowcast.activeHorizon)
        publishedInputs = inputs
        published = Broadcast(PublishedReport(Report(inputs, now: now), inputs: inputs))
        (refreshRequests, refreshContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (savedStates, savedStateContinuation) = AsyncStream.makeStream(of: SavedState.self, bufferingPolicy: .bufferingNewest(1))
        (historyRecords, historyContinuation) = AsyncStream.makeStream(of: CityReading.self, bufferingPolicy: .bufferingNewest(256))
        cities = CityForecasts(settings.cities, places: places)
    }

    // MARK: Settings

    /// The settings in force.
    public var currentSettings: Settings { settings.value }

    /// The report and the settings in force, read together: a renderer following both never pairs a
    /// report with settings it was not published under.
    public var reportAndSettings: (report: Report, settings: Settings) { (report, settings.value) }

    /// Applies new settings, redoing only what they change: units re-render the data held (no
    /// request); a moved pin, another mode or other provider settings refresh the forecast.
    public func apply(_ new: Settings) {
        let old = settings.value
        guard new != old else { return }
        // Read a newly chosen catalogue now, so that its problems are logged with the reload (and the
        // socket's watchers woken below find it read).
        if new.display != old.display { _ = new.display.phrases(logger: logger) }
        settings.send(new)
        inputs.units = new.units
        inputs.staleAfter = new.staleAfter
        inputs.nowcastHorizon = new.nowcast.activeHorizon
        let locationChanged = position.apply(new.location)
        let providerChanged = old.providers != new.providers
        if locationChanged || providerChanged {
            // Fetch at once for the new position or provider, whatever the backoff of the old one said.
            here.reset()
        }
        if old.cities != new.cities { cities.follow(new.cities) }
        reevaluate()
    }

    /// Problems in the settings file, shown in the report until the file is fixed. The settings in
    /// force stay the last good ones.
    public func setConfigurationProblems(_ problems: [ReportError]) {
        guard self.problems.setConfiguration(problems) else { return }
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
    }

    /// A failure to save `what` (the state, the history, a status file), shown in the report as kind
    /// `state` from its first occurrence until a later save of the same thing succeeds (`message` nil).
    ///
    /// The first failure's message stays while the streak lasts: the report changing is what makes
    /// the status file be written again, and a message that alternated would never let it settle.
    public func setStorageProblem(_ what: String, message: String?) {
        guard problems.setStorage(what, message: message, at: clock()) else { return }
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
    }

    /// The warnings and the air at the position, as `AlertService` last judged them: nil drops them from
    /// the report (switched off, no source for the country, not read yet). The forecast is untouched.
    ///
    /// - Parameters:
    ///   - warningsStale, airStale: the values are the last good ones of a source that has failed for longer
    ///     than its interval and grace.
    ///   - problems: those sources' errors for the report's `errors` (kinds `warnings` and `air`).
    ///   - warningsOmitted: how many more warnings are in force than `warnings` lists.
    ///   - savedWarnings: what state.json keeps of the warnings, so a restart shows them at once; nil keeps none.
    public func setAlerts(
        warnings: [WeatherWarning]?, air: AirQuality?, warningsStale: Bool = false, airStale: Bool = false,
        problems: [ReportError] = [], warningsOmitted: Int = 0, savedWarnings: SavedState.SavedWarnings? = nil
    ) {
        if savedWarnings != self.savedWarnings {
            self.savedWarnings = savedWarnings
            saveState()
        }
        guard
            warnings != inputs.warnings || air != inputs.air || warningsStale != inputs.warningsStale
                || airStale != inputs.airStale || problems != self.problems.alerts
                || warningsOmitted != inputs.warningsOmitted
        else { return }
        inputs.warnings = warnings
        inputs.air = air
        inputs.warningsStale = warningsStale
        inputs.warningsOmitted = warningsOmitted
        inputs.airStale = airStale
        self.problems.setAlerts(problems)
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
    }

    /// The warnings saved before the restart, for the alert service to take as its source's last good answer
    /// (``SavedState/SavedWarnings``); nil once it has taken them, or when none were saved.
    public func takeRestoredWarnings() -> SavedState.SavedWarnings? {
        defer { restoredWarnings = nil }
        return restoredWarnings
    }

    /// When the nowcast judged from the forecast held next changes by itself (it starts, stops, or its
    /// minutes move on: ``Nowcast/nextChange(_:after:horizon:)``); nil without a forecast or nowcast.
    public var nextNowcastChange: Date? {
        guard let forecast = inputs.forecast, let horizon = inputs.nowcastHorizon else { return nil }
        return Nowcast.nextChange(forecast, after: clock(), horizon: horizon)
    }

    /// Publishes the report again when the nowcast judged now differs from the published one: for a timer
    /// set at ``nextNowcastChange``, so "Rain in 20 min" counts down without new data.
    public func rejudgeNowcast() {
        let now = clock()
        guard Report(inputs, now: now).nowcast != report.nowcast else { return }
        publishIfChanged(now: now, force: true)
    }

    /// The settings in force now, then every change, until the caller stops iterating.
    public func settingsUpdates() -> AsyncStream<Settings> {
        settings.updates()
    }

    // MARK: Saved state

    /// Takes the state saved before a restart: its forecast is published at once, marked stale,
    /// and its position is used until a source knows better.
    public func restore(_ saved: SavedState) {
        if follow != nil {
            restoreFollowed(saved)
            return reevaluate()
        }
        if inputs.forecast == nil, let forecast = saved.forecast {
            inputs.forecast = forecast
            inputs.fromSavedState = true
        }
        if let fix = saved.fix { position.restore(savedFix: fix) }
        cities.restore(saved.cities ?? [:])
        if inputs.warnings == nil, let warnings = saved.warnings {
            // Shown at once, before any request: a restart while the source is unreachable must not quiet the
            // bar. Each leaves at its end (the report drops what is no longer in force); stale once the saved
            // answer is older than its source's interval and grace.
            let now = clock()
            inputs.warnings = warnings.warnings.filter { $0.isInForce(at: now) }
            inputs.warningsOmitted = warnings.omitted
            inputs.warningsStale = now >= warnings.staleAt
            restoredWarnings = warnings
            savedWarnings = warnings
        }
        reevaluate()
    }

    func saveState() {
        if let follow {
            let followed = follow.report.map { SavedState.SavedFollowed(topic: follow.topic, report: $0) }
            savedStateContinuation.yield(SavedState(forecast: nil, fix: nil, followed: followed))
            return
        }
        savedStateContinuation.yield(
            SavedState(
                forecast: inputs.forecast, fix: inputs.fix ?? position.savedFix, cities: cities.saved,
                warnings: savedWarnings))
    }

    // MARK: Position

    /// Takes an event from a position source.
    public func handle(_ event: LocationEvent) {
        position.handle(event)
        reevaluate()
    }

    /// Takes the way out as read now (at start and at every route change): while it goes through a VPN, IP
    /// geolocation is neither asked nor used, and the position is judged again at once when that changes.
    public func networkPathJudged(_ verdict: VPNVerdict) {
        if position.apply(vpn: verdict) { reevaluate() }
    }

    /// Re-judges everything that depends on time: fix freshness, staleness, due refreshes.
    /// Called once at start (a pin is usable before any source answers) and each time the judgement alarm
    /// rings.
    public func tick() {
        // The moment rung is over: the next one is armed afresh, even when the clocks disagree on it.
        judgementDue = nil
        reevaluate()
    }

    // MARK: Time

    /// Redoes every time-based judgement when it falls due, and at no other time, until the task is
    /// cancelled: rings the judgement alarm and ticks per ring. The forecast service runs it.
    public nonisolated func keepTime() async {
        let (rings, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { await self.judgementAlarm.ring { ring.yield() } }
            for await _ in rings {
                await tick()
                if Task.isCancelled { break }
            }
            group.cancelAll()
        }
    }

    /// Arms the alarm for the next judgement due, unless it is armed for that moment already. The moment
    /// is on this state's clock; the alarm counts the same interval from now on the real one.
    private func scheduleNextJudgement() {
        let now = clock()
        let next = nextJudgement(after: now)
        guard next != judgementDue else { return }
        judgementDue = next
        judgementAlarm.arm(next.map { Date().addingTimeInterval($0.timeIntervalSince(now)) })
    }

    /// The next moment after `now` when a judgement changes: a comparison such as "older than" flips
    /// just after its limit, so each moment is a millisecond past it.
    func nextJudgement(after now: Date) -> Date? {
        if follow != nil {
            return followJudgementMoments().map { $0.addingTimeInterval(0.001) }.filter { $0 > now }.min()
        }
        var moments = position.judgementMoments
        moments += here.judgementMoments(forecast: inputs.forecast, refreshInterval: settings.value.refreshSeconds)
        if let forecast = inputs.forecast { moments.append(forecast.fetchedAt.addingTimeInterval(inputs.staleAfter)) }
        moments += cities.judgementMoments(refreshInterval: settings.value.refreshSeconds, staleAfter: inputs.staleAfter)
        // A warning leaves the report at its end even when no source answers (those restored from state.json).
        moments += inputs.warnings?.compactMap(\.until) ?? []
        return moments.map { $0.addingTimeInterval(0.001) }.filter { $0 > now }.min()
    }

    func reevaluate() {
        let now = clock()
        if let follow { return reevaluateFollowing(follow, now: now) }
        position.judge(now: now)
        inputs.fix = position.chosen?.fix
        inputs.place = position.chosen?.place
        inputs.locality = position.chosen?.locality
        inputs.placeIsNear = position.chosen?.isNear ?? false
        inputs.locating = position.locating
        inputs.errors = currentErrors()
        publishIfChanged(now: now)
        if position.wantedSources != wantedSources.value { wantedSources.send(position.wantedSources) }
        // Only looks: taking the fetch (and a user's forced refresh with it) is the forecast service's job.
        let due = here.due(
            position: inputs.fix?.coordinate, forecast: inputs.forecast, now: now,
            refreshInterval: settings.value.refreshSeconds, refreshDistanceKm: settings.value.location.refreshDistanceKm)
        if due != nil || dueCityFetch() != nil { refreshContinuation.yield() }
    }

    /// The position sources that should run now, then every change, until the caller stops iterating.
    public func locationSourceUpdates() -> AsyncStream<Set<LocationSourceSpec>> {
        wantedSources.updates()
    }

    // MARK: Forecast

    /// Where a forecast should be fetched for now and why (a user asked, the network returned, or it
    /// is simply due), or nil when none is due. Takes the user's request: only the forecast service
    /// calls it.
    public func takeDueFetch() -> DueFetch? {
        here.take(
            position: inputs.fix?.coordinate, forecast: inputs.forecast, now: clock(),
            refreshInterval: settings.value.refreshSeconds, refreshDistanceKm: settings.value.location.refreshDistanceKm)
    }

    /// The daemon's health for the `status` request.
    public func status(clients: Int, watchers: Int) -> DaemonStatus {
        let now = clock()
        return DaemonStatus(
            release: ForecastdVersion.current, uptimeSeconds: Int(now.timeIntervalSince(startedAt)), clients: clients,
            watchers: watchers, reportStatus: report.status.rawValue, stale: report.stale,
            locationSource: inputs.fix?.source.rawValue, locationReason: position.reason,
            lastRefresh: inputs.forecast.map { Timestamps.rfc3339($0.fetchedAt) }, provider: inputs.forecast?.provider,
            errors: report.errors.map(\.message))
    }

    // MARK: Report

    func currentErrors() -> [ReportError] {
        problems.errors(
            between: [position.noLocationError, position.vpnNotice, here.schedule.reportError].compactMap { $0 })
    }

    func publishIfChanged(now: Date, force: Bool = false) {
        // Whatever changed may have moved the next judgement.
        defer { scheduleNextJudgement() }
        let cityInputs = cities.inputs(like: inputs, listedAt: startedAt)
        let cityStaleness = cityInputs.map { $0.isStale(now: now) }
        guard
            force || inputs != publishedInputs || inputs.isStale(now: now) != report.stale || cityInputs != publishedCityInputs
                || inputs.warnings.map({ $0.filter { $0.isInForce(at: now) }.count }) != report.warnings?.count
                || cityStaleness != (report.cities ?? []).map(\.report.stale)
        else { return }
        var fresh = Report(inputs, now: now)
        if !cityInputs.isEmpty {
            fresh.cities = zip(settings.value.cities, cityInputs).map { city, cityInputs in
                ReportCity(id: city.id, name: city.name, favorite: city.favorite, report: Report(cityInputs, now: now))
            }
        }
        publishedCityInputs = cityInputs
        publishedInputs = inputs
        published.send(PublishedReport(fresh, inputs: inputs, cityInputs: cityInputs))
    }

    /// The current report, then every new one, until the caller stops iterating.
    public func subscribe() -> AsyncMapSequence<AsyncStream<PublishedReport>, Report> {
        published.updates().map(\.report)
    }

    /// What every position source says and which one is used, for `forecastctl locate`.
    public func locate() -> LocateAnswer {
        position.locate(now: clock())
    }

    /// Why the current position source was chosen, for logs and `forecastctl`.
    public var locationReason: String { position.reason }
}
