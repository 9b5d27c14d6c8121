import ForecastModel
import Foundation
import Logging
import MQTTPayloads

/// What a follower (`[mqtt] follow`) knows of the forecastd it follows: the last good report, whether its status
/// topic says it is offline, and whether the report is the one saved before a restart.
struct FollowState: Sendable, Hashable {
    /// The followed base topic (`forecastd/pi-van`).
    let topic: String
    var report: SharedReport?
    /// The publisher's status topic said `offline` (its will: a crash, a pulled cable; or a graceful stop).
    var publisherOffline = false
    /// The report was restored from state.json and no live one has arrived since: stale until one does.
    var restored = false

    /// How long after its publication a report counts as overdue: the publisher republishes at every change,
    /// at the latest when its next forecast is fetched (one refresh interval), so a report older than that
    /// and a grace for the fetch and its retries means the publisher is not being heard.
    static let grace: TimeInterval = 5 * 60
    /// How long after the start a follower without any report says so in the report's errors rather than only
    /// "locating": the retained report arrives within moments of the connection when there is one.
    static let firstReportWait: TimeInterval = 30

    func overdueAt(_ report: SharedReport) -> Date {
        report.publishedAt.addingTimeInterval(TimeInterval(report.publisher.refreshSeconds) + Self.grace)
    }
}

/// The follower's side of the state owner: the report comes from another forecastd on MQTT instead of the
/// providers (no fetch is ever due), and is rendered here in this daemon's units, language and formats.
extension ForecastState {
    /// Makes this state a follower of `topic`: no position source, forecast, warning or air fetch is wanted;
    /// the report is what ``followed(_:)`` hands in. Called once, before ``restore(_:)``.
    public func startFollowing(topic: String) {
        follow = FollowState(topic: topic)
        reevaluate()
    }

    /// Whether this daemon follows another's report (`[mqtt] follow`).
    public var isFollowing: Bool { follow != nil }

    /// Takes a good report from the followed topic (``SharedReport/decode(_:now:maximumBytes:)`` checked it):
    /// published at once, and kept in state.json for a restart. One older than the one held (a retained
    /// message redelivered after a reconnect) changes nothing.
    public func followed(_ report: SharedReport) {
        guard var state = follow else { return }
        if let held = state.report, !state.restored, held.publishedAt > report.publishedAt { return }
        state.report = report
        state.restored = false
        follow = state
        reevaluate()
        saveState()
    }

    /// Takes the followed publisher's status: `offline` marks its report stale until it says `online` again.
    public func followedPublisher(online: Bool) {
        guard var state = follow, state.publisherOffline == online else { return }
        state.publisherOffline = !online
        follow = state
        logger.notice(
            online ? "The followed forecastd is online again." : "The followed forecastd is offline; its last report is kept, marked stale.",
            metadata: ["topic": "\(state.topic)"])
        reevaluate()
    }

    /// A followed report restored from state.json, when it is for the topic followed now.
    func restoreFollowed(_ saved: SavedState) {
        guard var state = follow, state.report == nil, let kept = saved.followed, kept.topic == state.topic else { return }
        state.report = kept.report
        state.restored = true
        follow = state
    }

    /// The inputs of the report for here, made from the followed report in this daemon's units, with its own
    /// problems (the settings file, the saves) and why the followed report is stale, if it is.
    func reevaluateFollowing(_ state: FollowState, now: Date) {
        let settings = settings.value
        guard let report = state.report else {
            let waited = now >= startedAt.addingTimeInterval(FollowState.firstReportWait)
            let none = ReportError(
                kind: .offline,
                message: "No report from the followed forecastd (\(state.topic)) yet: check that the MQTT broker can "
                    + "be reached and that \(state.topic) publishes.")
            inputs = ReportInputs(
                units: settings.units, staleAfter: settings.staleAfter, locating: !waited,
                errors: problems.errors(between: waited ? [none] : []), nowcastHorizon: settings.nowcast.activeHorizon)
            publishIfChanged(now: now)
            return
        }
        var followed = report.model.reportInputs(
            units: settings.units, staleAfter: TimeInterval(report.publisher.staleAfterSeconds),
            nowcastHorizon: settings.nowcast.activeHorizon)
        var why: [ReportError] = []
        let since = Timestamps.rfc3339(report.publishedAt)
        if state.publisherOffline {
            why.append(
                ReportError(
                    kind: .offline, message: "The followed forecastd (\(state.topic)) is offline; showing its last report.",
                    since: since))
        } else if now > state.overdueAt(report) {
            why.append(
                ReportError(
                    kind: .timeout,
                    message: "No report from the followed forecastd (\(state.topic)) since \(since); a new one was due "
                        + "every \(report.publisher.refreshSeconds / 60) minutes.",
                    since: since))
        }
        // A restored report is stale as a restored forecast is, until the publisher is heard again.
        followed.fromSavedState = state.restored || report.model.fromSavedState
        followed.errors = problems.errors(between: report.model.errors + why)
        inputs = followed
        publishIfChanged(now: now)
    }

    /// The moment the followed report turns overdue, when it is not yet.
    func followJudgementMoments() -> [Date] {
        guard let state = follow else { return [] }
        guard let report = state.report else { return [startedAt.addingTimeInterval(FollowState.firstReportWait)] }
        return [state.overdueAt(report)]
    }
}
