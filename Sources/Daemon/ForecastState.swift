import ForecastModel
import Foundation
import Control
import Location
import Logging
import Rendering
import WeatherProviders

/// The one owner of the daemon's mutable state: positions, place, forecast, errors, and the
/// published report.
///
/// Every other part talks to it with `Sendable` values: location events in, forecasts and
/// failures in, reports out. The published report changes only when something a reader can see
/// changes, so an idle daemon writes nothing.
public actor ForecastState {
    private var configuration: DaemonConfiguration
    private let places: (any PlaceNaming)?
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let startedAt: Date
    /// How long "locating" may last before a missing position counts as "no location".
    private let locatingGrace: TimeInterval

    // Position: what each source last said.
    private var gpsdFix: LocationFix?
    private var gpsdProblem: String?
    private var gpsdAnswered = false
    /// Holds back gpsd positions that would mean an impossible speed until following fixes confirm them.
    private var jumpFilter: JumpFilter
    /// The last jump held back, for `locate` and to log each jump once.
    private var heldJump: (fix: LocationFix, speedKmh: Double)?
    private var staticFix: LocationFix?
    private var staticProblem: String?
    /// Whether the static file has been read since it was configured: until then IP geolocation waits,
    /// since the file, when there is one, would make asking unnecessary.
    private var staticAnswered = false
    private var ipFix: LocationFix?
    private var ipProblem: String?
    private var chosenReason = ""
    private var wantedSources: Set<DaemonConfiguration.LocationSourceSpec> = []
    private var sourceSubscribers: [Int: AsyncStream<Set<DaemonConfiguration.LocationSourceSpec>>.Continuation] = [:]

    /// The position saved before the last restart: the last resort when no source knows better.
    private var savedFix: LocationFix?

    // Forecast.
    private var forecastRequestedFor: Coordinate?
    private var failure: Failure?
    /// A refresh asked for by a user (`forecastctl refresh`): fetch now, whatever the interval.
    private var refreshForced = false
    /// When a user's refresh last failed: a user may ask again after 10 s. Kept apart from
    /// ``Failure/lastAttempt`` so that a user's refresh never moves the automatic retry later.
    private var lastForcedFailure: Date?
    /// The network came back or the machine resumed after a fetch failed for want of a network: the
    /// backoff no longer says anything, so the retry is due at once (see ``networkOrClockChanged()``).
    private var retryAtOnce = false
    private var refreshWaiters: [CheckedContinuation<RefreshOutcome, Never>] = []

    // Listed cities, by id: their forecasts and failures, kept like "here"'s.
    private var cityStates: [String: CityState] = [:]
    private var publishedCityInputs: [ReportInputs] = []
    private var historyContinuation: AsyncStream<CityReading>.Continuation
    /// Yields every good forecast of a favourite city; the history service is its only consumer.
    public nonisolated let historyRecords: AsyncStream<CityReading>

    private struct CityState {
        var city: DaemonConfiguration.City
        var forecast: Forecast?
        var fromSavedState = false
        var failure: Failure?
        var place: Place?
    }

    // Settings.
    private var configurationProblems: [ReportError] = []
    /// Failures to save the state, the history or a status file, by what failed (kind `state`).
    private var storageProblems: [String: ReportError] = [:]
    /// The warning and air sources' problems, once their last good values have gone stale (`AlertService`).
    private var alertProblems: [ReportError] = []
    private var configurationSubscribers: [Int: AsyncStream<DaemonConfiguration>.Continuation] = [:]
    private var savedStateContinuation: AsyncStream<SavedState>.Continuation
    /// Yields what should survive a restart whenever it changes; the state service is its only consumer.
    public nonisolated let savedStates: AsyncStream<SavedState>

    // Output.
    private var inputs: ReportInputs
    private var publishedInputs: ReportInputs
    /// The report every reader gets: the status file, the socket, watchers.
    public private(set) var report: Report
    /// The report as its JSON line, encoded once per change rather than once per reader.
    public private(set) var reportLine: String
    private var subscribers: [Int: AsyncStream<Report>.Continuation] = [:]
    private var nextSubscriberID = 0
    private let refreshContinuation: AsyncStream<Void>.Continuation
    /// Yields whenever a forecast fetch may be due; the forecast service is its only consumer.
    public nonisolated let refreshRequests: AsyncStream<Void>

    /// The one timer: set for the next moment a time-based judgement falls due (a fix no longer
    /// fresh, the locating grace over, a refresh or retry due, a forecast turning stale), and set
    /// again after every change. Nil until the forecast service starts keeping time.
    private var timer: (due: Date, task: Task<Void, Never>)?
    private var keepsTime = false

    private struct Failure {
        var error: ProviderError
        var since: Date
        var lastAttempt: Date
        var attempts: Int
    }

    public init(
        configuration: DaemonConfiguration, places: (any PlaceNaming)?, logger: Logger,
        locatingGrace: TimeInterval = 10, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.places = places
        self.logger = logger
        self.clock = clock
        self.locatingGrace = locatingGrace
        jumpFilter = JumpFilter(maxSpeedKmh: configuration.maxSpeedKmh)
        // gpsd gets its start-up grace before IP geolocation is considered.
        wantedSources = Self.wantedSources(
            configuration, chosen: nil, stillLocating: configuration.gpsd != nil || configuration.staticFile != nil)
        let now = clock()
        startedAt = now
        inputs = ReportInputs(
            units: configuration.units, staleAfter: configuration.staleAfter,
            locating: configuration.mode == .auto && configuration.gpsd != nil,
            nowcastHorizon: configuration.nowcastHorizon)
        publishedInputs = inputs
        report = Report(inputs, now: now)
        reportLine = ReportJSON.line(report)
        (refreshRequests, refreshContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (savedStates, savedStateContinuation) = AsyncStream.makeStream(of: SavedState.self, bufferingPolicy: .bufferingNewest(1))
        (historyRecords, historyContinuation) = AsyncStream.makeStream(of: CityReading.self, bufferingPolicy: .bufferingNewest(256))
        for city in configuration.cities {
            cityStates[city.id] = CityState(city: city, place: places?.namedPlace(at: city.coordinate, preferCity: false)?.place)
        }
    }

    // MARK: Settings

    /// The settings in force.
    public var currentConfiguration: DaemonConfiguration { configuration }

    /// The report and the settings in force, read together: a renderer following both never pairs a
    /// report with settings it was not published under.
    public var reportAndConfiguration: (report: Report, configuration: DaemonConfiguration) { (report, configuration) }

    /// Applies new settings, redoing only what they change: units re-render the data held (no
    /// request); a moved pin, another mode or other provider settings refresh the forecast.
    public func apply(_ new: DaemonConfiguration) {
        let old = configuration
        guard new != old else { return }
        configuration = new
        inputs.units = new.units
        inputs.staleAfter = new.staleAfter
        inputs.nowcastHorizon = new.nowcastHorizon
        if old.gpsd != new.gpsd {
            gpsdFix = nil
            gpsdProblem = nil
            gpsdAnswered = false
            jumpFilter.reset()
            heldJump = nil
        }
        jumpFilter.maxSpeedKmh = new.maxSpeedKmh
        if old.staticFile != new.staticFile {
            staticFix = nil
            staticProblem = nil
            staticAnswered = false
        }
        if new.ip == nil {
            // Switched off for privacy: its position goes too.
            ipFix = nil
            ipProblem = nil
        }
        let locationChanged =
            old.pin != new.pin || old.mode != new.mode || old.gpsd != new.gpsd || old.staticFile != new.staticFile
            || (old.ip == nil) != (new.ip == nil) || old.recentFixWindow != new.recentFixWindow
        let providerChanged = old.providers != new.providers
        if locationChanged || providerChanged {
            // Fetch at once for the new position or provider, whatever the backoff of the old one said.
            forecastRequestedFor = nil
            failure = nil
        }
        if old.cities != new.cities { syncCities() }
        for continuation in configurationSubscribers.values { continuation.yield(new) }
        reevaluate()
    }

    /// Problems in the settings file, shown in the report until the file is fixed. The settings in
    /// force stay the last good ones.
    public func setConfigurationProblems(_ problems: [ReportError]) {
        guard problems != configurationProblems else { return }
        configurationProblems = problems
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
    }

    /// A failure to save `what` (the state, the history, a status file), shown in the report as kind
    /// `state` from its first occurrence until a later save of the same thing succeeds (`message` nil).
    ///
    /// The first failure's message stays while the streak lasts: the report changing is what makes
    /// the status file be written again, and a message that alternated would never let it settle.
    public func setStorageProblem(_ what: String, message: String?) {
        if let message {
            guard storageProblems[what] == nil else { return }
            storageProblems[what] = ReportError(kind: .state, message: message, since: Timestamps.rfc3339(clock()))
        } else {
            guard storageProblems.removeValue(forKey: what) != nil else { return }
        }
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
    public func setAlerts(
        warnings: [WeatherWarning]?, air: AirQuality?, warningsStale: Bool = false, airStale: Bool = false,
        problems: [ReportError] = []
    ) {
        guard
            warnings != inputs.warnings || air != inputs.air || warningsStale != inputs.warningsStale
                || airStale != inputs.airStale || problems != alertProblems
        else { return }
        inputs.warnings = warnings
        inputs.air = air
        inputs.warningsStale = warningsStale
        inputs.airStale = airStale
        alertProblems = problems
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
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
    public func configurationUpdates() -> AsyncStream<DaemonConfiguration> {
        let (stream, continuation) = AsyncStream.makeStream(of: DaemonConfiguration.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriberID
        nextSubscriberID += 1
        configurationSubscribers[id] = continuation
        continuation.yield(configuration)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeConfigurationSubscriber(id) }
        }
        return stream
    }

    private func removeConfigurationSubscriber(_ id: Int) {
        configurationSubscribers[id] = nil
    }

    // MARK: Saved state

    /// Takes the state saved before a restart: its forecast is published at once, marked stale,
    /// and its position is used until a source knows better.
    public func restore(_ saved: SavedState) {
        if inputs.forecast == nil, let forecast = saved.forecast {
            inputs.forecast = forecast
            inputs.fromSavedState = true
        }
        if let fix = saved.fix, fix.coordinate.isPlausible { savedFix = fix }
        for (id, saved) in saved.cities ?? [:] where cityStates[id]?.forecast == nil {
            // Only for a city still listed at the same place: a moved city needs its own forecast.
            guard let city = cityStates[id]?.city, city.coordinate == saved.coordinate else { continue }
            cityStates[id]?.forecast = saved.forecast
            cityStates[id]?.fromSavedState = true
        }
        reevaluate()
    }

    private func saveState() {
        let cityForecasts = cityStates.compactMapValues { state in
            state.forecast.map { SavedState.SavedCity(coordinate: state.city.coordinate, forecast: $0) }
        }
        savedStateContinuation.yield(
            SavedState(
                forecast: inputs.forecast, fix: inputs.fix ?? savedFix, cities: cityForecasts.isEmpty ? nil : cityForecasts))
    }

    // MARK: Position

    /// Takes an event from a position source.
    public func handle(_ event: LocationEvent) {
        switch (event.source, event) {
        case (.gpsd, .fix(let fix)):
            guard fix.coordinate.isPlausible else { return }
            gpsdProblem = nil
            gpsdAnswered = true
            switch jumpFilter.consider(fix) {
            case .accepted:
                gpsdFix = fix
                heldJump = nil
            case .confirmed:
                logger.info(
                    "Following gpsd fixes confirm the jump; using the new position.",
                    metadata: ["location.latitude": "\(fix.coordinate.latitude)", "location.longitude": "\(fix.coordinate.longitude)"])
                gpsdFix = fix
                heldJump = nil
            case .held(let speed):
                if heldJump == nil {
                    logger.warning(
                        "gpsd reported a position that implies an impossible speed; waiting for following fixes to confirm it.",
                        metadata: [
                            "location.latitude": "\(fix.coordinate.latitude)", "location.longitude": "\(fix.coordinate.longitude)",
                            "speed_kmh": "\(Int(speed))", "max_speed_kmh": "\(Int(jumpFilter.maxSpeedKmh))",
                        ])
                }
                heldJump = (fix, speed)
            }
        case (.gpsd, .noFix), (.gpsd, .connected):
            gpsdAnswered = true
            if case .connected = event { gpsdProblem = nil }
        case (.gpsd, .unavailable(_, let reason)):
            gpsdAnswered = true
            gpsdProblem = reason
        case (.staticFile, _) where !staticAnswered:
            staticAnswered = true
            handleStaticFile(event)
        case (.staticFile, _):
            handleStaticFile(event)
        case (.ip, .fix(let fix)):
            ipFix = fix.coordinate.isPlausible ? fix : nil
            ipProblem = nil
        case (.ip, .unavailable(_, let reason)):
            // A failed lookup keeps the last IP position: the address has rarely moved.
            ipProblem = reason
        case (.ip, _), (.pinned, _), (.city, _):
            break
        }
        reevaluate()
    }

    private func handleStaticFile(_ event: LocationEvent) {
        switch event {
        case .fix(let fix):
            staticFix = fix.coordinate.isPlausible ? fix : nil
            staticProblem = nil
        case .noFix, .connected:
            staticFix = nil
            staticProblem = nil
        case .unavailable(_, let reason):
            // The file is there but wrong: its old position goes, since the user meant to change it.
            logger.warning("The static location file cannot be used.", metadata: ["error": "\(reason)"])
            staticFix = nil
            staticProblem = reason
        }
    }

    /// Re-judges everything that depends on time: fix freshness, staleness, due refreshes.
    /// Called once at start (a pin is usable before any source answers) and by the timer.
    public func tick() {
        reevaluate()
    }

    // MARK: Time

    /// Starts the timer: from now on every time-based judgement is redone when it falls due, and at no
    /// other time. The forecast service starts it and stops it (``stopKeepingTime()``).
    public func startKeepingTime() {
        keepsTime = true
        reevaluate()
    }

    /// Stops the timer, for shutdown.
    public func stopKeepingTime() {
        keepsTime = false
        timer?.task.cancel()
        timer = nil
    }

    /// Sets the timer for the next judgement due, unless it is set for that moment already.
    private func scheduleNextJudgement() {
        guard keepsTime else { return }
        let now = clock()
        let due = nextJudgement(after: now)
        guard due != timer?.due else { return }
        timer?.task.cancel()
        timer = due.map { due in
            let delay = max(0, due.timeIntervalSince(now))
            return (
                due,
                Task { [weak self] in
                    try? await EventLoopSleep.sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up))))
                    guard !Task.isCancelled else { return }
                    await self?.timerFired(due)
                }
            )
        }
    }

    private func timerFired(_ due: Date) {
        guard timer?.due == due else { return }
        timer = nil
        reevaluate()
    }

    /// The next moment after `now` when a judgement changes: a comparison such as "older than" flips
    /// just after its limit, so each moment is a millisecond past it.
    func nextJudgement(after now: Date) -> Date? {
        var moments: [Date] = []
        if inputs.locating { moments.append(startedAt.addingTimeInterval(locatingGrace)) }
        if let fix = gpsdFix, configuration.gpsd != nil, configuration.mode == .auto {
            moments.append(fix.receivedAt.addingTimeInterval(configuration.maxFixAge))
            moments.append(fix.receivedAt.addingTimeInterval(configuration.maxFixAge + configuration.recentFixWindow))
        }
        if let failure {
            moments.append(failure.lastAttempt.addingTimeInterval(retryDelay(after: failure)))
        } else if let forecast = inputs.forecast, forecastRequestedFor != nil {
            moments.append(forecast.fetchedAt.addingTimeInterval(configuration.refreshInterval))
        }
        if let forecast = inputs.forecast { moments.append(forecast.fetchedAt.addingTimeInterval(inputs.staleAfter)) }
        for state in cityStates.values {
            if let failure = state.failure {
                moments.append(failure.lastAttempt.addingTimeInterval(retryDelay(after: failure)))
            }
            if let forecast = state.forecast {
                moments.append(forecast.fetchedAt.addingTimeInterval(configuration.refreshInterval))
                moments.append(forecast.fetchedAt.addingTimeInterval(inputs.staleAfter))
            }
        }
        return moments.map { $0.addingTimeInterval(0.001) }.filter { $0 > now }.min()
    }

    private func reevaluate() {
        let now = clock()
        let policy = self.policy
        var choice = policy.choose(candidates, now: now)
        // The saved position stands in for a source, but must not stop IP geolocation from being asked.
        let sourceChosen = choice.fix
        if choice.fix == nil, configuration.mode == .auto, let savedFix {
            choice = LocationPolicy.Choice(fix: savedFix, reason: "no source knows the position; using the last one saved")
        }

        if let chosen = choice.fix {
            if isSignificantChange(from: inputs.fix, to: chosen) {
                if inputs.fix?.source != chosen.source {
                    logger.info(
                        "Using the position from \(chosen.source.rawValue).",
                        metadata: [
                            "location.source": "\(chosen.source.rawValue)", "location.reason": "\(choice.reason)",
                            "location.latitude": "\(chosen.coordinate.latitude)",
                            "location.longitude": "\(chosen.coordinate.longitude)",
                        ])
                }
                inputs.fix = chosen
                let named = places?.namedPlace(at: chosen.coordinate, preferCity: configuration.namesCities)
                inputs.place = named?.place
                inputs.locality = named?.locality
                inputs.placeIsNear = named?.isNear ?? false
            }
        } else if inputs.fix != nil {
            logger.warning("No source knows the position any more.", metadata: ["location.reason": "\(choice.reason)"])
            inputs.fix = nil
            inputs.place = nil
            inputs.locality = nil
            inputs.placeIsNear = false
        }
        chosenReason = choice.reason

        let stillLocating =
            inputs.fix == nil && configuration.mode == .auto && configuration.gpsd != nil
            && gpsdProblem == nil && now.timeIntervalSince(startedAt) < locatingGrace
        inputs.locating = stillLocating
        inputs.errors = currentErrors()
        publishIfChanged(now: now)
        updateWantedSources(chosen: sourceChosen, stillLocating: stillLocating)
        // Only looks: taking the fetch (and a user's forced refresh with it) is the forecast service's job.
        if fetchTarget() != nil || dueCityFetch() != nil { refreshContinuation.yield() }
    }

    private var policy: LocationPolicy {
        LocationPolicy(
            mode: configuration.mode, maxFixAge: .seconds(configuration.maxFixAge),
            recentFixWindow: .seconds(configuration.recentFixWindow))
    }

    /// What each source knows now, as far as the settings let it count.
    private var candidates: LocationPolicy.Candidates {
        LocationPolicy.Candidates(
            gpsd: configuration.gpsd == nil ? nil : gpsdFix,
            staticFile: configuration.staticFile == nil ? nil : staticFix,
            ip: configuration.ip == nil ? nil : ipFix,
            pin: configuration.pin.map {
                LocationFix(coordinate: $0.coordinate, source: .pinned, receivedAt: startedAt, label: $0.name)
            })
    }

    /// Works out which sources should run. IP geolocation runs only when nothing better knows the
    /// position: a machine with a working receiver or a static file never tells a service its address.
    private func updateWantedSources(chosen: LocationFix?, stillLocating: Bool) {
        let wanted = Self.wantedSources(
            configuration, chosen: chosen,
            stillLocating: stillLocating || (configuration.staticFile != nil && !staticAnswered))
        guard wanted != wantedSources else { return }
        wantedSources = wanted
        for continuation in sourceSubscribers.values { continuation.yield(wanted) }
    }

    private static func wantedSources(
        _ configuration: DaemonConfiguration, chosen: LocationFix?, stillLocating: Bool
    ) -> Set<DaemonConfiguration.LocationSourceSpec> {
        var wanted: Set<DaemonConfiguration.LocationSourceSpec> = []
        guard configuration.mode == .auto else { return wanted }
        if let gpsd = configuration.gpsd { wanted.insert(.gpsd(gpsd)) }
        if let path = configuration.staticFile { wanted.insert(.staticFile(path: path)) }
        let betterSourceKnows = chosen.map { [.gpsd, .staticFile].contains($0.source) } ?? false
        if let ip = configuration.ip, !betterSourceKnows, !stillLocating { wanted.insert(.ip(ip)) }
        return wanted
    }

    /// The position sources that should run now, then every change, until the caller stops iterating.
    public func locationSourceUpdates() -> AsyncStream<Set<DaemonConfiguration.LocationSourceSpec>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Set<DaemonConfiguration.LocationSourceSpec>.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriberID
        nextSubscriberID += 1
        sourceSubscribers[id] = continuation
        continuation.yield(wantedSources)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSourceSubscriber(id) }
        }
        return stream
    }

    private func removeSourceSubscriber(_ id: Int) {
        sourceSubscribers[id] = nil
    }

    /// Small moves of a gpsd position (noise, walking) do not republish the report: every
    /// republication is a status-file write, and an SD card on a Pi should not get one a second.
    private func isSignificantChange(from old: LocationFix?, to new: LocationFix) -> Bool {
        guard let old else { return true }
        return old.source != new.source || old.label != new.label
            || old.coordinate.distanceKm(to: new.coordinate) > 0.025
    }

    // MARK: Forecast

    /// Where a forecast should be fetched for now, or nil when none is due.
    public func dueFetch() -> Coordinate? {
        takeDueFetch()?.coordinate
    }

    /// Where a forecast should be fetched for now, and whether a user asked for it
    /// (`forecastctl refresh`), or nil when none is due. Takes the user's request: only the forecast
    /// service calls it.
    /// `liftBackoff`: the providers' own backoff should be lifted too (a user's refresh, or the network back).
    public func takeDueFetch() -> (coordinate: Coordinate, forced: Bool, liftBackoff: Bool)? {
        guard let target = fetchTarget() else { return nil }
        defer {
            refreshForced = false
            retryAtOnce = false
        }
        return (target, refreshForced, refreshForced || retryAtOnce)
    }

    /// `dueFetch()` without taking a user's request. `reevaluate()` used to call `dueFetch()` itself,
    /// which took a forced refresh before the forecast service saw it: the refresh then waited (up to
    /// the refresh interval) for a fetch that was no longer due.
    private func fetchTarget() -> Coordinate? {
        guard let target = inputs.fix?.coordinate else { return nil }
        if refreshForced { return target }
        let now = clock()
        if let failure, !retryAtOnce, now < failure.lastAttempt.addingTimeInterval(retryDelay(after: failure)) {
            return nil
        }
        guard let forecast = inputs.forecast, let requested = forecastRequestedFor else { return target }
        if requested.distanceKm(to: target) > configuration.refreshDistanceKm { return target }
        if now.timeIntervalSince(forecast.fetchedAt) >= configuration.refreshInterval { return target }
        return nil
    }

    // MARK: Cities

    /// The next listed city whose forecast is due (missing, older than the refresh interval, or its
    /// backoff over), nil when every city is fresh: one request per city per interval.
    public func dueCityFetch() -> (id: String, coordinate: Coordinate)? {
        let now = clock()
        for city in configuration.cities {
            guard let state = cityStates[city.id] else { continue }
            if let failure = state.failure, now < failure.lastAttempt.addingTimeInterval(retryDelay(after: failure)) { continue }
            if let forecast = state.forecast, !state.fromSavedState,
                now.timeIntervalSince(forecast.fetchedAt) < configuration.refreshInterval
            {
                continue
            }
            return (city.id, city.coordinate)
        }
        return nil
    }

    /// Records a good forecast for a listed city.
    public func cityForecastSucceeded(_ forecast: Forecast, id: String) {
        guard var state = cityStates[id] else { return }
        state.forecast = forecast
        state.fromSavedState = false
        state.failure = nil
        cityStates[id] = state
        if state.city.favorite { historyContinuation.yield(CityReading(cityID: id, forecast: forecast)) }
        publishIfChanged(now: clock())
        saveState()
    }

    /// Records a failed fetch for a listed city; its last good forecast stays, marked stale.
    public func cityForecastFailed(_ error: ProviderError, id: String) {
        guard var state = cityStates[id] else { return }
        let now = clock()
        if var failure = state.failure {
            failure.attempts += 1
            failure.lastAttempt = now
            failure.error = error
            state.failure = failure
        } else {
            state.failure = Failure(error: error, since: now, lastAttempt: now, attempts: 1)
            logger.warning(
                "The forecast fetch for a listed city failed; keeping its last good forecast.",
                metadata: ["city": "\(id)", "error": "\(error)", "error.kind": "\(error.kind.rawValue)"])
        }
        cityStates[id] = state
        publishIfChanged(now: now)
    }

    /// Follows the settings' city list: new cities are added (and fetched), removed ones dropped,
    /// a city moved to another place starts afresh.
    private func syncCities() {
        var next: [String: CityState] = [:]
        for city in configuration.cities {
            if var state = cityStates[city.id], state.city.coordinate == city.coordinate {
                state.city = city
                next[city.id] = state
            } else {
                next[city.id] = CityState(city: city, place: places?.namedPlace(at: city.coordinate, preferCity: false)?.place)
            }
        }
        cityStates = next
    }

    /// What each listed city's report is made from, in the settings' order.
    private var cityInputs: [ReportInputs] {
        configuration.cities.compactMap { city in
            guard let state = cityStates[city.id] else { return nil }
            var errors: [ReportError] = []
            if let failure = state.failure {
                errors.append(
                    ReportError(kind: failure.error.kind, message: failure.error.message, since: Timestamps.rfc3339(failure.since)))
            }
            return ReportInputs(
                fix: LocationFix(coordinate: city.coordinate, source: .city, receivedAt: startedAt, label: city.name),
                place: state.place, forecast: state.forecast, units: inputs.units, staleAfter: inputs.staleAfter,
                fromSavedState: state.fromSavedState, errors: errors)
        }
    }

    /// The network came back (an address or route appeared), the machine resumed from suspend or the wall
    /// clock was set: judges
    /// everything again at once instead of at the timer's next moment, which a suspend or a clock change
    /// made wrong.
    ///
    /// A forecast that is overdue is fetched now; one whose last fetch failed because no connection could
    /// be made or no answer came (offline, timeout) is retried now, whatever its backoff said. A
    /// provider's own refusal (HTTP 429, Retry-After, a server error) keeps its wait: the network returning
    /// changes nothing for it.
    public func networkOrClockChanged() {
        if let failure, failure.error.retryAfter == nil, [.offline, .timeout].contains(failure.error.kind) {
            retryAtOnce = true
        }
        reevaluate()
    }

    /// Exponential backoff after failures (30 s, 1, 2, 4… min), capped at the refresh interval,
    /// and never sooner than a provider's Retry-After.
    ///
    /// While offline (no connection could be made) the wait stays at most a minute: asking costs no
    /// provider anything then, and the forecast comes back within a minute of the network.
    private func retryDelay(after failure: Failure) -> TimeInterval {
        let exponential = 30 * pow(2, Double(min(failure.attempts - 1, 16)))
        var delay = min(configuration.refreshInterval, exponential)
        if failure.error.kind == .offline { delay = min(delay, 60) }
        if let retryAfter = failure.error.retryAfter {
            delay = max(delay, Double(retryAfter.components.seconds))
        }
        return delay
    }

    /// Fetches the forecast now (a user asked) and returns when the fetch is done.
    ///
    /// A user may ask at most every 10 s: more would only hammer the provider.
    public func refreshNow() async -> RefreshOutcome {
        guard inputs.fix != nil else {
            return RefreshOutcome(ok: false, message: "no position to fetch a forecast for")
        }
        if let failure, let attempt = [failure.lastAttempt, lastForcedFailure].compactMap({ $0 }).max(),
            clock().timeIntervalSince(attempt) < 10
        {
            // Say when the next attempt comes (a provider's Retry-After included): "moments ago" alone
            // does not tell the user how long to wait.
            let next = Timestamps.rfc3339(failure.lastAttempt.addingTimeInterval(retryDelay(after: failure)))
            return RefreshOutcome(
                ok: false,
                message: "the last attempt failed moments ago: \(failure.error.message); the next one is due at \(next)")
        }
        refreshForced = true
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

    /// The daemon's health for the `status` request.
    public func status(clients: Int, watchers: Int) -> DaemonStatus {
        let now = clock()
        return DaemonStatus(
            release: ForecastdVersion.current, uptimeSeconds: Int(now.timeIntervalSince(startedAt)), clients: clients,
            watchers: watchers, reportStatus: report.status.rawValue, stale: report.stale,
            locationSource: inputs.fix?.source.rawValue, locationReason: chosenReason,
            lastRefresh: inputs.forecast.map { Timestamps.rfc3339($0.fetchedAt) }, provider: inputs.forecast?.provider,
            errors: report.errors.map(\.message))
    }

    /// Records a good forecast for a position.
    public func forecastSucceeded(_ forecast: Forecast, for coordinate: Coordinate) {
        retryAtOnce = false
        if let failure {
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
        failure = nil
        lastForcedFailure = nil
        inputs.forecast = forecast
        inputs.fromSavedState = false
        forecastRequestedFor = coordinate
        inputs.errors = currentErrors()
        publishIfChanged(now: clock())
        saveState()
        finishRefreshWaiters(RefreshOutcome(ok: true, message: "fetched a new forecast from \(forecast.provider)"))
    }

    /// Records a failed fetch; the last good forecast stays, marked stale.
    ///
    /// - Parameter forced: the fetch was a user's refresh. It says what went wrong, but never moves
    ///   the automatic retry later: asking during a provider's Retry-After must not extend it.
    public func forecastFailed(_ error: ProviderError, for coordinate: Coordinate, forced: Bool = false) {
        retryAtOnce = false
        let now = clock()
        if forced, failure != nil {
            // The failure that set the automatic retry stays as it is, timing and all; the user is
            // told what this try met in the refresh's answer.
            lastForcedFailure = now
            logger.debug("A refresh a user asked for failed.", metadata: ["error": "\(error)"])
        } else if var failure {
            failure.attempts += 1
            failure.lastAttempt = now
            failure.error = error
            self.failure = failure
            logger.debug("The forecast fetch failed again.", metadata: ["error": "\(error)", "attempts": "\(failure.attempts)"])
        } else {
            failure = Failure(error: error, since: now, lastAttempt: now, attempts: 1)
            logger.warning(
                "The forecast fetch failed; keeping the last good forecast.",
                metadata: ["error": "\(error)", "error.kind": "\(error.kind.rawValue)"])
        }
        inputs.errors = currentErrors()
        publishIfChanged(now: now)
        finishRefreshWaiters(RefreshOutcome(ok: false, message: error.message))
    }

    // MARK: Report

    private func currentErrors() -> [ReportError] {
        var errors = configurationProblems
        errors += storageProblems.sorted { $0.key < $1.key }.map(\.value)
        if inputs.fix == nil, !inputs.locating {
            var reasons: [String] = []
            if configuration.mode == .auto {
                if configuration.gpsd == nil {
                    reasons.append("gpsd is switched off")
                } else if let problem = gpsdProblem {
                    reasons.append("gpsd is not available (\(problem))")
                } else {
                    reasons.append("gpsd has no fix")
                }
            }
            reasons.append("no pin is set")
            errors.append(
                ReportError(
                    kind: .noLocation,
                    message: "No position: " + reasons.joined(separator: " and ")
                        + ". Set one with `forecastctl pin LAT,LON` or [location.pin] in the config."))
        }
        if let failure {
            errors.append(
                ReportError(kind: failure.error.kind, message: failure.error.message, since: Timestamps.rfc3339(failure.since)))
        }
        return errors + alertProblems
    }

    private func publishIfChanged(now: Date, force: Bool = false) {
        // Whatever changed may have moved the next judgement.
        defer { scheduleNextJudgement() }
        let cityInputs = self.cityInputs
        let cityStaleness = cityInputs.map { $0.isStale(now: now) }
        guard
            force || inputs != publishedInputs || inputs.isStale(now: now) != report.stale || cityInputs != publishedCityInputs
                || cityStaleness != (report.cities ?? []).map(\.report.stale)
        else { return }
        report = Report(inputs, now: now)
        if !cityInputs.isEmpty {
            report.cities = zip(configuration.cities, cityInputs).map { city, cityInputs in
                ReportCity(id: city.id, name: city.name, favorite: city.favorite, report: Report(cityInputs, now: now))
            }
        }
        publishedCityInputs = cityInputs
        reportLine = ReportJSON.line(report)
        publishedInputs = inputs
        for continuation in subscribers.values { continuation.yield(report) }
    }

    /// The current report, then every new one, until the caller stops iterating.
    public func subscribe() -> AsyncStream<Report> {
        let (stream, continuation) = AsyncStream.makeStream(of: Report.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[id] = continuation
        continuation.yield(report)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    /// What every position source says and which one is used, for `forecastctl locate`.
    public func locate() -> LocateAnswer {
        let now = clock()
        let chosen = inputs.fix
        let auto = configuration.mode == .auto
        func age(_ fix: LocationFix) -> Int { max(0, Int(now.timeIntervalSince(fix.receivedAt))) }
        func entry(_ source: LocationSource, _ fix: LocationFix, _ detail: String) -> LocateSource {
            LocateSource(
                source: source.rawValue, state: .position, used: chosen == fix, latitude: fix.coordinate.latitude,
                longitude: fix.coordinate.longitude, accuracyM: fix.accuracyMeters, ageSeconds: age(fix), detail: detail)
        }
        func off(_ source: LocationSource, _ detail: String) -> LocateSource {
            LocateSource(source: source.rawValue, state: .off, used: false, detail: detail)
        }
        var sources: [LocateSource] = []

        // gpsd
        if !auto {
            sources.append(off(.gpsd, "not used: the mode is pinned"))
        } else if let gpsd = configuration.gpsd {
            var held = ""
            if let heldJump {
                held =
                    "; a jump to \(heldJump.fix.coordinate.latitude), \(heldJump.fix.coordinate.longitude) implying "
                    + "\(Int(heldJump.speedKmh)) km/h is held back until following fixes confirm it"
            }
            if let fix = gpsdFix {
                let freshness: String
                switch policy.freshness(ofGPSD: fix, now: now) {
                case .fresh: freshness = "fresh (max_fix_age_seconds = \(Int(configuration.maxFixAge)))"
                case .recent: freshness = "no longer fresh but recent (recent_fix_minutes = \(Int(configuration.recentFixWindow / 60)))"
                case .old, .none: freshness = "too old to use"
                }
                let problem = gpsdProblem.map { "; now: \($0)" } ?? ""
                sources.append(entry(.gpsd, fix, "last fix \(age(fix)) s old, \(freshness)\(problem)\(held)"))
            } else if let problem = gpsdProblem {
                sources.append(
                    LocateSource(source: "gpsd", state: .problem, used: false, detail: "gpsd at \(gpsd.host):\(gpsd.port): \(problem)"))
            } else {
                sources.append(
                    LocateSource(
                        source: "gpsd", state: .none, used: false,
                        detail: (gpsdAnswered ? "connected to \(gpsd.host):\(gpsd.port); the receiver has no fix" : "waiting for gpsd at \(gpsd.host):\(gpsd.port)") + held))
            }
        } else {
            sources.append(off(.gpsd, "switched off ([location.gpsd] enabled = false)"))
        }

        // The static file
        if !auto {
            sources.append(off(.staticFile, "not used: the mode is pinned"))
        } else if let path = configuration.staticFile {
            if let fix = staticFix {
                sources.append(entry(.staticFile, fix, "from \(path)"))
            } else if let problem = staticProblem {
                sources.append(LocateSource(source: LocationSource.staticFile.rawValue, state: .problem, used: false, detail: problem))
            } else {
                sources.append(LocateSource(source: LocationSource.staticFile.rawValue, state: .none, used: false, detail: "there is no \(path)"))
            }
        } else {
            sources.append(off(.staticFile, "switched off (static_file = \"\")"))
        }

        // IP geolocation
        let ipRunning = wantedSources.contains { if case .ip = $0 { true } else { false } }
        if !auto {
            sources.append(off(.ip, "not used: the mode is pinned"))
        } else if configuration.ip != nil {
            let asked = ipRunning ? "" : "; not being asked now: a better source knows the position"
            if let fix = ipFix {
                let problem = ipProblem.map { "; the last lookup failed: \($0)" } ?? ""
                sources.append(entry(.ip, fix, "city-level, looked up \(LocationPolicy.describe(TimeInterval(age(fix)))) ago\(problem)\(asked)"))
            } else if let problem = ipProblem {
                sources.append(LocateSource(source: "ip", state: .problem, used: false, detail: problem + asked))
            } else {
                sources.append(
                    LocateSource(
                        source: "ip", state: .none, used: false,
                        detail: ipRunning ? "looking up the network's public address" : "not asked: a better source knows the position"))
            }
        } else {
            sources.append(off(.ip, "switched off ([location.ip] enabled = false)"))
        }

        // The pin
        if let pin = candidates.pin {
            sources.append(entry(.pinned, pin, "[location.pin]" + (pin.label.map { " \"\($0)\"" } ?? "")))
        } else {
            sources.append(LocateSource(source: "pinned", state: .none, used: false, detail: "no pin is set"))
        }

        var chosenName = chosen?.source.rawValue
        if let chosen, chosen == savedFix, !sources.contains(where: \.used) { chosenName = "saved" }
        return LocateAnswer(mode: configuration.mode.rawValue, chosen: chosenName, reason: chosenReason, sources: sources)
    }

    /// Why the current position source was chosen, for logs and `forecastctl`.
    public var locationReason: String { chosenReason }
}

/// How a refresh asked for by a user went.
public struct RefreshOutcome: Sendable, Hashable {
    public var ok: Bool
    public var message: String
}

/// A good forecast of a favourite city, for the history database.
public struct CityReading: Sendable {
    public var cityID: String
    public var forecast: Forecast
}
