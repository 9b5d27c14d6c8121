import ForecastModel
import Foundation
import Logging
import ServiceLifecycle
import Settings
import Warnings
import WeatherProviders

/// Keeps the report's official warnings and air quality up to date for the position, and its nowcast
/// counting down.
///
/// - **Warnings** come from the one service of the position's country (the gazetteer's code in the
///   report's `place`: ``DaemonConfiguration/warningSource(forCountry:context:meteoAlarmAreas:)``), asked
///   again when the source's minimum interval has passed (its `nextRequest`), and merged
///   (``WarningMerger``). A warning leaves the report at its `expires`: a timer is set for the earliest
///   expiry, nothing polls.
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
    public typealias MakeWarningSource = @Sendable (DaemonConfiguration, _ countryCode: String) -> (any WarningSource)?
    /// The air quality service under the settings in force; nil when `[air] enabled` is false.
    public typealias MakeAirService = @Sendable (DaemonConfiguration) -> AirQualityService?

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
        let configuration = await service.state.currentConfiguration
        let report = await service.state.report
        let position = report.location.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        let country = report.place?.countryCode
        var due: [Date] = []

        var problems: [ReportError] = []
        var warningsStale = false
        var airStale = false
        let warnings = await judgeWarnings(
            configuration, position: position, country: country, due: &due, stale: &warningsStale,
            problems: &problems)
        let air = await judgeAir(
            configuration, position: position, country: country, due: &due, stale: &airStale, problems: &problems)
        await service.state.setAlerts(
            warnings: warnings, air: air, warningsStale: warningsStale, airStale: airStale, problems: problems)
        // The nowcast counts down with the clock, not with new data.
        await service.state.rejudgeNowcast()
        if let change = await service.state.nextNowcastChange { due.append(change) }
        let now = service.clock()
        return due.map { max($0, now.addingTimeInterval(1)) }.min()
    }

    private mutating func judgeWarnings(
        _ configuration: DaemonConfiguration, position: Coordinate?, country: String?, due: inout [Date],
        stale: inout Bool, problems: inout [ReportError]
    ) async -> [WeatherWarning]? {
        guard let position, let country, !country.isEmpty else { return nil }
        let key = WarningKey(
            country: country.uppercased(), warnings: configuration.warnings,
            coordinatePrecision: configuration.providers.coordinatePrecision,
            contact: configuration.providers.metNorway.contact)
        if warningSource?.key != key {
            warningSource = (key, service.makeWarningSource(configuration, key.country))
            lastFeed = nil
            warningsGoodOrFailingSince = nil
            warningFailure = nil
        }
        guard let source = warningSource?.source else { return nil }
        do throws(WarningError) {
            let answer = try await source.warnings(at: position)
            lastFeed = answer.feed
            due.append(answer.nextRequest)
            if !answer.fromCache {
                // Only a new answer ends a failure: within the interval after a failed request the source
                // serves its last good answer again.
                warningsGoodOrFailingSince = answer.fetchedAt
                warningFailure = nil
                loggedWarningProblem = nil
                if !answer.feed.refused.isEmpty {
                    service.logger.notice(
                        "Some entries of a warning feed were refused; the others are shown.",
                        metadata: [
                            "warnings.source": "\(source.name)",
                            "warnings.refused": "\(answer.feed.refused.map(\.description).joined(separator: "; "))",
                        ])
                }
            }
        } catch {
            let interval = Self.seconds(source.minimumInterval)
            switch error.reason {
            case .throttled(let until): due.append(until)
            case .rateLimited(let retryAfter):
                due.append(service.clock().addingTimeInterval(max(interval, retryAfter.map(Self.seconds) ?? 0)))
            default: due.append(service.clock().addingTimeInterval(interval))
            }
            if case .throttled = error.reason {
                // Another position within the source's interval: the next request is already planned.
            } else {
                if warningsGoodOrFailingSince == nil { warningsGoodOrFailingSince = service.clock() }
                warningFailure = error
            }
            if case .throttled = error.reason {
                // Not a failure of the source: nothing to log.
            } else if loggedWarningProblem != error.description {
                loggedWarningProblem = error.description
                service.logger.warning(
                    "Official warnings could not be read; the last good ones stay until the next attempt.",
                    metadata: ["warnings.source": "\(error.source)", "error": "\(error.detail)"])
            }
        }
        if let failure = warningFailure, let since = warningsGoodOrFailingSince {
            let staleAt = AlertStaleness.staleAt(lastGood: since, interval: Self.seconds(source.minimumInterval))
            if service.clock() >= staleAt {
                stale = lastFeed != nil
                problems.append(
                    ReportError(
                        kind: .warnings,
                        message: "Official warnings from \(failure.source) could not be read since "
                            + Timestamps.rfc3339(since) + " (\(failure.detail))"
                            + (lastFeed == nil ? "." : "; the warnings shown may be out of date."),
                        since: Timestamps.rfc3339(staleAt)))
            } else {
                due.append(staleAt)
            }
        }
        guard let lastFeed else { return nil }
        let merged = WarningMerger.merge([lastFeed], now: service.clock())
        if let expiry = merged.nextExpiry { due.append(expiry) }
        return merged.warnings
    }

    private mutating func judgeAir(
        _ configuration: DaemonConfiguration, position: Coordinate?, country: String?, due: inout [Date],
        stale: inout Bool, problems: inout [ReportError]
    ) async -> AirQuality? {
        guard let settings = configuration.air, let position else { return nil }
        let key = AirKey(air: configuration.air, coordinatePrecision: configuration.providers.coordinatePrecision)
        if airService?.key != key {
            airService = (key, service.makeAirService(configuration))
            airFailure = nil
        }
        guard let air = airService?.service else { return nil }
        let outcome = await air.air(
            at: position, scale: settings.scale.scale(countryCode: country), pollen: settings.pollen)
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
