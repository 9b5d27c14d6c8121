import DaemonState
import ForecastModel
import Foundation
import Logging
import ServiceLifecycle
import Settings
import Waiting
import Warnings
import WeatherProviders

/// Keeps the report's official warnings and air quality up to date for the position, and its nowcast
/// counting down.
///
/// - **Warnings** come from the one service of the position's country (the gazetteer's code in the
///   report's `place`: `warningSource(forCountry:context:meteoAlarmAreas:)` of the composition), asked
///   again when the source's minimum interval has passed (its `nextRequest`), and merged
///   (``WarningMerger``). A warning leaves the report at its end (`ends`, else `expires`): a timer is set for
///   the earliest, nothing polls. The warnings in force go to state.json, so a restart shows them at once.
/// - **The air** comes from ``AirQualityService``, which owns its hourly cadence; the service is asked when
///   the position changes and at the `nextRequest` it names.
/// - **The nowcast** ("Rain in 20 min") is judged again at the moment its text would change
///   (``ForecastState/nextNowcastChange``), so it counts down without new data.
/// - A failed request changes nothing but the log: the last good warnings and air stay, and the forecast
///   is never touched. Each distinct problem is logged once. When a source has given no good answer for
///   its interval plus ``AlertStaleness/grace``, its last good values are marked stale (`warnings_stale`,
///   `air.stale`) and the report's `errors` say so (kinds `warnings` and `air`); a timer is set for that
///   moment.
/// - `[warnings]` and `[air]` are live: a change of switches, URLs or precision builds new sources.
public struct AlertService: Service, CustomStringConvertible {
    /// The warning service for a country under the settings in force; nil when none serves it.
    public typealias MakeWarningSource = @Sendable (Settings, _ countryCode: String) -> (any WarningSource)?
    /// The air quality service under the settings in force; nil when `[air] enabled` is false.
    public typealias MakeAirService = @Sendable (Settings) -> AirQualityService?

    let state: ForecastState
    let makeWarningSource: MakeWarningSource
    let makeAirService: MakeAirService
    let logger: Logger
    let alertClock: AlertClock
    var clock: @Sendable () -> Date { { [alertClock] in alertClock.now() } }

    /// - Parameter clock: the clock of cadence, expiry and staleness; the sources must share it.
    public init(
        state: ForecastState, logger: Logger, clock: AlertClock = .system,
        makeWarningSource: @escaping MakeWarningSource, makeAirService: @escaping MakeAirService
    ) {
        self.state = state
        self.logger = logger
        self.alertClock = clock
        self.makeWarningSource = makeWarningSource
        self.makeAirService = makeAirService
    }

    public var description: String { "AlertService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // A new report may carry a new position or country; new settings other sources.
            let alarm = Alarm()
            var judge = AlertJudge(service: self)
            let clock = alertClock
            await alarm.follow(state) { _ in alarm.arm(await judge.update().map(clock.realDate(for:))) }
        }
    }
}

/// The alert service's memory between wake-ups: the sources in use, the last good answers, what was
/// logged. Owned by the service's one loop.
struct AlertJudge {
    /// What a warning source is built from; other edits (units, the pin) keep it, its cache and cadence.
    private struct WarningKey: Hashable {
        var country: String
        var warnings: Settings.Warnings
        var coordinatePrecision: Int
        var contact: String
        /// The language of the texts, for sources that send several (ECCC).
        var language: String
    }

    /// What the warnings judged at one wake-up are, for the report and state.json.
    struct JudgedWarnings {
        var warnings: [WeatherWarning]
        var omitted: Int
        var saved: SavedState.SavedWarnings?
    }

    /// What the air quality service is built from.
    private struct AirKey: Hashable {
        var air: Settings.Air?
        var coordinatePrecision: Int
    }

    private let service: AlertService
    private var warningSource: (key: WarningKey, source: (any WarningSource)?)?
    /// The source's last good answer: merged again at each wake-up, so an expired warning leaves on time.
    private var lastFeed: MatchedFeed?
    /// Where ``lastFeed`` was matched and when the source gave it (for state.json).
    private var lastFeedPosition: Coordinate?
    private var lastFeedFetchedAt: Date?
    /// What state.json was last given, so that it is written when the warnings change (and at most hourly
    /// otherwise), not at every answer.
    private var lastSaved: SavedState.SavedWarnings?
    /// The refusals of the last answer that were logged: a shape or entry refused again and again is logged once.
    private var loggedRefusals: Set<String> = []
    private var airService: (key: AirKey, service: AirQualityService?)?
    private var loggedWarningProblem: String?
    /// The source's last good answer's moment, or the first failure when there has been none.
    private var warningsGoodOrFailingSince: Date?
    /// The last failure since the last good answer, for the report's error.
    private var warningFailure: WarningError?
    /// The air service's first failure since its last good answer, and that failure.
    private var airFailure: (since: Date, message: String)?

    init(service: AlertService) {
        self.service = service
    }

    /// Judges the warnings and air for the current report and hands them to the state.
    ///
    /// - Returns: the next moment a judgement falls due (a source's next request, a warning's expiry, the
    ///   air's next request); nil when only a new report or new settings can change anything.
    mutating func update() async -> Date? {
        let settings = await service.state.currentSettings
        let report = await service.state.report
        let position = report.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        let country = report.place?.countryCode
        var due: [Date] = []

        var problems: [ReportError] = []
        var warningsStale = false
        var airStale = false
        let warnings = await judgeWarnings(
            settings, position: position, country: country, due: &due, stale: &warningsStale,
            problems: &problems)
        let air = await judgeAir(
            settings, position: position, country: country, due: &due, stale: &airStale, problems: &problems)
        await service.state.setAlerts(
            warnings: warnings?.warnings, air: air, warningsStale: warningsStale, airStale: airStale,
            problems: problems, warningsOmitted: warnings?.omitted ?? 0, savedWarnings: warnings?.saved)
        // The nowcast counts down with the clock, not with new data.
        await service.state.rejudgeNowcast()
        if let change = await service.state.nextNowcastChange { due.append(change) }
        let now = service.clock()
        return due.map { max($0, now.addingTimeInterval(1)) }.min()
    }

    private mutating func judgeWarnings(
        _ settings: Settings, position: Coordinate?, country: String?, due: inout [Date],
        stale: inout Bool, problems: inout [ReportError]
    ) async -> JudgedWarnings? {
        guard let position, let country, !country.isEmpty else { return nil }
        let key = WarningKey(
            country: country.uppercased(), warnings: settings.warnings,
            coordinatePrecision: settings.providers.coordinatePrecision,
            contact: settings.providers.metNorway.contact,
            language: settings.display.phrases(logger: nil).language)
        guard let source = currentSource(for: key, settings) else { return nil }
        let interval = Self.seconds(source.minimumInterval)
        await restoreSavedWarnings(source: source.name, country: key.country, position: position)
        await ask(source, at: position, interval: interval, due: &due)
        judgeWarningsStaleness(interval: interval, due: &due, stale: &stale, problems: &problems)
        guard let lastFeed else { return nil }
        let now = service.clock()
        let merged = WarningMerger.merge([lastFeed], now: now)
        if let expiry = merged.nextExpiry { due.append(expiry) }
        problems += Self.feedProblems(merged, lastFeed, source: source.name)
        return JudgedWarnings(
            warnings: merged.warnings, omitted: merged.omitted,
            saved: saved(merged, source: source.name, country: key.country, interval: interval, now: now))
    }

    /// The warning source for `key`; a new key builds a new source and forgets what the old one said, since
    /// its answers were for another country or other settings.
    private mutating func currentSource(for key: WarningKey, _ settings: Settings)
        -> (any WarningSource)?
    {
        if warningSource?.key != key {
            warningSource = (key, service.makeWarningSource(settings, key.country))
            lastFeed = nil
            lastFeedPosition = nil
            lastFeedFetchedAt = nil
            warningsGoodOrFailingSince = nil
            warningFailure = nil
        }
        return warningSource?.source
    }

    /// Takes the warnings saved before a restart as the source's last good answer until it answers, when
    /// there is no answer yet and they were judged by the same source near the same position.
    private mutating func restoreSavedWarnings(source: String, country: String, position: Coordinate) async {
        guard lastFeed == nil, let restored = await service.state.takeRestoredWarnings(), restored.source == source,
            restored.country == country, restored.position.distanceKm(to: position) <= Self.restoredReachKm
        else { return }
        lastFeed = MatchedFeed(
            covering: restored.warnings.filter(\.areaConfirmed),
            unplaced: restored.warnings.filter { !$0.areaConfirmed }.map { UnplacedWarning(warning: $0, geocodes: []) })
        lastFeedPosition = restored.position
        lastFeedFetchedAt = restored.fetchedAt
        warningsGoodOrFailingSince = restored.fetchedAt
        lastSaved = restored
    }

    /// Asks `source` for the warnings at `position` and notes when to ask again; a failure keeps the last
    /// good answer.
    private mutating func ask(
        _ source: any WarningSource, at position: Coordinate, interval: TimeInterval, due: inout [Date]
    ) async {
        do throws(WarningError) {
            let answer = try await source.warnings(at: position)
            lastFeed = answer.feed
            lastFeedPosition = position
            due.append(answer.nextRequest)
            if !answer.fromCache {
                // Only a new answer ends a failure: within the interval after a failed request the source
                // serves its last good answer again.
                warningsGoodOrFailingSince = answer.fetchedAt
                lastFeedFetchedAt = answer.fetchedAt
                warningFailure = nil
                loggedWarningProblem = nil
                logRefusals(answer.feed, source: source.name)
            }
        } catch {
            noteFailure(error, interval: interval, due: &due)
        }
    }

    /// Plans the next request after a failed one and remembers the failure, logging each distinct one once.
    private mutating func noteFailure(_ error: WarningError, interval: TimeInterval, due: inout [Date]) {
        switch error.reason {
        case .throttled(let until):
            // Another position within the source's interval: the next request is already planned. Not a
            // failure of the source: nothing to remember or log.
            due.append(until)
            return
        case .rateLimited(let retryAfter):
            due.append(service.clock().addingTimeInterval(max(interval, retryAfter.map(Self.seconds) ?? 0)))
        default: due.append(service.clock().addingTimeInterval(interval))
        }
        if warningsGoodOrFailingSince == nil { warningsGoodOrFailingSince = service.clock() }
        warningFailure = error
        guard loggedWarningProblem != error.description else { return }
        loggedWarningProblem = error.description
        service.logger.warning(
            "Official warnings could not be read; the last good ones stay until the next attempt.",
            metadata: ["warnings.source": "\(error.source)", "error": "\(error.detail)"])
    }

    /// Marks the warnings stale, with the report's error, once the source has failed for its interval plus
    /// the grace; until then a judgement falls due at that moment.
    private func judgeWarningsStaleness(
        interval: TimeInterval, due: inout [Date], stale: inout Bool, problems: inout [ReportError]
    ) {
        guard let failure = warningFailure, let since = warningsGoodOrFailingSince else { return }
        let staleAt = AlertStaleness.staleAt(lastGood: since, interval: interval)
        guard service.clock() >= staleAt else {
            due.append(staleAt)
            return
        }
        stale = lastFeed != nil
        problems.append(
            ReportError(
                kind: .warnings,
                message: "Official warnings from \(failure.source) could not be read since "
                    + Timestamps.rfc3339(since) + " (\(failure.detail))"
                    + (lastFeed == nil ? "." : "; the warnings shown may be out of date."),
                since: Timestamps.rfc3339(staleAt)))
    }

    /// What the report says about the warnings it lists: those that could not be placed, and those the
    /// feed's bound left unread.
    private static func feedProblems(_ merged: MergedWarnings, _ feed: MatchedFeed, source: String) -> [ReportError] {
        var problems: [ReportError] = []
        let unconfirmed = merged.warnings.filter { !$0.areaConfirmed }.count
        if unconfirmed > 0 {
            problems.append(
                ReportError(
                    kind: .warningsUnplaced,
                    message: "\(source) sent \(unconfirmed) warning\(unconfirmed == 1 ? "" : "s") for this country "
                        + "whose area could not be placed (neither its shapes nor its region codes decide whether it "
                        + "covers the position); listed as \"area not confirmed\"."))
        }
        if feed.omitted > 0 {
            problems.append(
                ReportError(
                    kind: .warningsPartial,
                    message: "\(source) sent more than \(WarningLimits.maxMessagesPerFeed) warnings; the "
                        + "\(feed.omitted) least severe were not read."))
        }
        return problems
    }

    /// How far from where saved warnings were judged the position may be for them to be shown after a restart.
    static let restoredReachKm = 1.0

    /// What state.json should keep of `merged`: the same as last time unless the warnings changed or an hour
    /// has passed (so an unchanged list costs no write at every answer).
    private mutating func saved(
        _ merged: MergedWarnings, source: String, country: String, interval: TimeInterval, now: Date
    ) -> SavedState.SavedWarnings? {
        guard !merged.warnings.isEmpty, let position = lastFeedPosition, let fetchedAt = lastFeedFetchedAt else {
            lastSaved = nil
            return nil
        }
        if let lastSaved, lastSaved.warnings == merged.warnings, lastSaved.omitted == merged.omitted,
            lastSaved.source == source, now.timeIntervalSince(lastSaved.fetchedAt) < 3600
        {
            return lastSaved
        }
        let saved = SavedState.SavedWarnings(
            source: source, country: country, position: position, fetchedAt: fetchedAt,
            staleAt: AlertStaleness.staleAt(lastGood: fetchedAt, interval: interval), warnings: merged.warnings,
            omitted: merged.omitted)
        lastSaved = saved
        return saved
    }

    /// Logs what a new answer left out (entries, shapes), each refusal once while answers keep repeating it.
    private mutating func logRefusals(_ feed: MatchedFeed, source: String) {
        let refusals = feed.refused.map(\.description) + feed.refusedShapes.map(\.description)
        let new = refusals.filter { !loggedRefusals.contains($0) }
        loggedRefusals = Set(refusals)
        guard !new.isEmpty else { return }
        service.logger.notice(
            "Parts of a warning feed were refused; the rest is shown (a warning with a shape left out is placed by its other shapes and codes).",
            metadata: [
                "warnings.source": "\(source)",
                "warnings.refused": "\(new.prefix(20).joined(separator: "; "))\(new.count > 20 ? "; and \(new.count - 20) more" : "")",
            ])
    }

    private mutating func judgeAir(
        _ settings: Settings, position: Coordinate?, country: String?, due: inout [Date],
        stale: inout Bool, problems: inout [ReportError]
    ) async -> AirQuality? {
        guard let airSettings = settings.activeAir, let position else { return nil }
        let key = AirKey(air: settings.activeAir, coordinatePrecision: settings.providers.coordinatePrecision)
        if airService?.key != key {
            airService = (key, service.makeAirService(settings))
            airFailure = nil
        }
        guard let air = airService?.service else { return nil }
        let outcome = await air.air(
            at: position, scale: airSettings.scale.scale(countryCode: country), pollen: airSettings.pollen)
        due.append(outcome.nextRequest)
        let now = service.clock()
        if outcome.requested {
            if let error = outcome.error {
                airFailure = (airFailure?.since ?? now, error.message)
            } else {
                airFailure = nil
            }
        }
        if let failure = airFailure {
            // Stale from the last good reading's arrival (or the first failure when there is none) plus the
            // service's interval and the grace.
            let since = outcome.air.map { min($0.fetchedAt, failure.since) } ?? failure.since
            let staleAt = AlertStaleness.staleAt(lastGood: since, interval: await air.interval)
            if now >= staleAt {
                stale = outcome.air != nil
                problems.append(
                    ReportError(
                        kind: .air,
                        message: "The air quality could not be read since " + Timestamps.rfc3339(since)
                            + " (\(failure.message))"
                            + (outcome.air == nil ? "." : "; the reading shown may be out of date."),
                        since: Timestamps.rfc3339(staleAt)))
            } else {
                due.append(staleAt)
            }
        }
        return outcome.air
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
