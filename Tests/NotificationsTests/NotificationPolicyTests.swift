import ForecastModel
import Foundation
import Logging
import Notifications
import Settings
import Testing

/// The rules of what is notified, without a bus: a warning once per id, again only when upgraded, taken
/// away when it goes; rain once per episode within the lead time; quiet hours; nothing twice after a restart.
@Suite("Notification policy")
struct NotificationPolicyTests {
    static let now = Timestamps.parseUTC("2026-03-06T10:00:00Z")!

    static func warning(
        _ identifier: String, severity: WarningSeverity, references: [CAPReference] = [], expiresIn hours: Double = 6
    ) -> WeatherWarning {
        WeatherWarning(
            source: "bright-sky", event: "frost", severity: severity, onset: now.addingTimeInterval(-3600),
            expires: now.addingTimeInterval(hours * 3600), headline: "Official WARNING of FROST",
            area: "Berlin - Mitte", sent: now.addingTimeInterval(-3600 + Double(references.count) * 60),
            identifier: identifier, references: references, messageType: references.isEmpty ? .alert : .update)
    }

    static func report(warnings: [WeatherWarning]?, nowcast: ReportNowcast? = nil) -> Report {
        var report = Report(
            updatedAt: Timestamps.rfc3339(now), stale: false, ageSeconds: 0, status: .ok, location: nil,
            place: nil, units: ReportUnits(.metric), current: nil, hourly: [], daily: [], provider: nil, errors: [])
        report.warnings = warnings
        report.nowcast = nowcast
        return report
    }

    static func rain(startingIn minutes: Double) -> ReportNowcast {
        let start = now.addingTimeInterval(minutes * 60)
        return ReportNowcast(
            Nowcast(
                kind: .rain, isOngoing: false, startsAt: start, stopsAt: start.addingTimeInterval(3600),
                knownUntil: now.addingTimeInterval(7200), intensity: .moderate, peakRate: 3, probability: 80,
                interpolated: false),
            now: now, utcOffsetSeconds: 3600, timeZone: TimeZone(secondsFromGMT: 3600)!)
    }

    /// Plans at `now` and records every decision as the notifier does once it went out.
    static func step(
        _ policy: NotificationPolicy, _ report: Report, _ ledger: inout NotificationLedger, at now: Date = now
    )
        -> NotificationPolicy.Plan
    {
        let plan = policy.plan(report, now: now, ledger: ledger)
        ledger = plan.ledger
        for decision in plan.decisions { ledger.record(decision, at: now) }
        return plan
    }

    let utc = TimeZone(identifier: "UTC")!

    @Test("A warning at the minimum is notified once; a later update of the same severity is not")
    func onceForAWarning() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .moderate), timeZone: utc)
        var ledger = NotificationLedger()
        let first = Self.warning("dwd-1", severity: .moderate)
        let plan = Self.step(policy, Self.report(warnings: [first]), &ledger)
        #expect(plan.decisions.map(\.subject) == [.warning(first.id)])
        #expect(plan.decisions.first?.notification?.summary == "Frost (moderate)")
        #expect(Self.step(policy, Self.report(warnings: [first]), &ledger).decisions.isEmpty)

        let update = Self.warning(
            "dwd-2", severity: .moderate, references: [CAPReference(sender: nil, identifier: "dwd-1", sent: nil)])
        #expect(update.id == first.id)
        #expect(Self.step(policy, Self.report(warnings: [update]), &ledger).decisions.isEmpty)
    }

    @Test("An upgrade is notified again, replacing the first; a warning that goes is taken away")
    func upgradeAndWithdraw() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .moderate), timeZone: utc)
        var ledger = NotificationLedger()
        let first = Self.warning("dwd-1", severity: .moderate)
        _ = Self.step(policy, Self.report(warnings: [first]), &ledger)
        let upgraded = Self.warning(
            "dwd-2", severity: .severe, references: [CAPReference(sender: nil, identifier: "dwd-1", sent: nil)])
        let plan = Self.step(policy, Self.report(warnings: [upgraded]), &ledger)
        #expect(plan.decisions.count == 1)
        guard case .warning(_, let notification, let upgrade)? = plan.decisions.first else {
            Issue.record("expected a warning decision, got \(plan.decisions)")
            return
        }
        #expect(upgrade)
        #expect(notification.summary == "Frost, now severe")

        let gone = Self.step(policy, Self.report(warnings: []), &ledger)
        #expect(gone.decisions == [.withdraw(.warning(first.id))])
        // Sources not answering (no `warnings`) take nothing away.
        #expect(Self.step(policy, Self.report(warnings: nil), &ledger).decisions.isEmpty)
    }

    @Test("A warning whose area is not confirmed is never notified, however severe; confirmed later, it is")
    func areaNotConfirmed() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        var unconfirmed = Self.warning("somewhere-in-the-country", severity: .extreme)
        unconfirmed.areaConfirmed = false
        #expect(Self.step(policy, Self.report(warnings: [unconfirmed]), &ledger).decisions.isEmpty)
        unconfirmed.areaConfirmed = true
        #expect(
            Self.step(policy, Self.report(warnings: [unconfirmed]), &ledger).decisions.map(\.subject)
                == [.warning(unconfirmed.id)])
    }

    @Test("A message that expires before its hazard starts (an announcement, issue 28's G7) is never notified")
    func announcementNotNotified() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        var watch = Self.warning("nws-watch", severity: .severe, expiresIn: 2)
        watch.onset = Self.now.addingTimeInterval(3 * 86_400)
        #expect(watch.isAnnouncement)
        #expect(Self.step(policy, Self.report(warnings: [watch]), &ledger).decisions.isEmpty)
    }

    @Test("A notification is taken away at the hazard's end, not at its message's expiry")
    func withdrawnAtEnds() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        var warning = Self.warning("nws-1", severity: .severe, expiresIn: 1)
        warning.ends = Self.now.addingTimeInterval(5 * 3600)
        #expect(Self.step(policy, Self.report(warnings: [warning]), &ledger).decisions.count == 1)
        // Once notified, the plan wakes to take it away at its end.
        #expect(Self.step(policy, Self.report(warnings: [warning]), &ledger).nextCheck == warning.ends)
    }

    @Test("Below the minimum severity nothing is sent")
    func belowMinimum() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .severe), timeZone: utc)
        var ledger = NotificationLedger()
        #expect(
            Self.step(policy, Self.report(warnings: [Self.warning("a", severity: .moderate)]), &ledger).decisions
                .isEmpty)
    }

    @Test("Quiet hours hold all but extreme warnings, and the plan wakes at their end")
    func quietHours() {
        let quiet = DailyPeriod("09:00-11:00")!
        let policy = NotificationPolicy(
            preferences: Settings.Notifications.testing(minimumSeverity: .moderate, quietHours: quiet), timeZone: utc)
        var ledger = NotificationLedger()
        let moderate = Self.warning("a", severity: .moderate)
        let extreme = Self.warning("b", severity: .extreme)
        let plan = Self.step(policy, Self.report(warnings: [extreme, moderate]), &ledger)
        #expect(plan.decisions.map(\.subject) == [.warning(extreme.id)])
        #expect(plan.nextCheck == Timestamps.parseUTC("2026-03-06T11:00:00Z"))
        let after = Self.step(
            policy, Self.report(warnings: [extreme, moderate]), &ledger,
            at: Timestamps.parseUTC("2026-03-06T11:00:00Z")!)
        #expect(after.decisions.map(\.subject) == [.warning(moderate.id)])
    }

    @Test("The morning summary goes out once a day at its time, after the quiet hours when they hold it, and the plan wakes for it")
    func morningSummary() {
        let at = { (time: String) in Timestamps.parseUTC("2026-03-06T\(time):00Z")! }
        let policy = NotificationPolicy(
            preferences: Settings.Notifications.testing(
                rainSoon: false, morningSummary: TimeOfDay(hour: 7, minute: 0), quietHours: DailyPeriod("06:00-07:30")!),
            timeZone: utc)
        var ledger = NotificationLedger()
        let report = Self.report(warnings: nil)
        let early = Self.step(policy, report, &ledger, at: at("06:30"))
        #expect(early.decisions.isEmpty)
        #expect(early.nextCheck == at("07:00"))
        let held = Self.step(policy, report, &ledger, at: at("07:00"))
        #expect(held.decisions.isEmpty)
        #expect(held.nextCheck == at("07:30"))
        let sent = Self.step(policy, report, &ledger, at: at("07:30"))
        #expect(sent.decisions.map(\.subject) == [.summary])
        if case .summary(let date, _) = sent.decisions.first { #expect(date == "2026-03-06") }
        let again = Self.step(policy, report, &ledger, at: at("08:00"))
        #expect(again.decisions.isEmpty)
        #expect(again.nextCheck == Timestamps.parseUTC("2026-03-07T07:00:00Z"))
    }

    @Test("A machine that wakes up to three hours after the summary's time still gets it; later, it waits for tomorrow's")
    func morningSummaryWindow() {
        let policy = NotificationPolicy(
            preferences: Settings.Notifications.testing(rainSoon: false, morningSummary: TimeOfDay(hour: 7, minute: 0)),
            timeZone: utc)
        let report = Self.report(warnings: nil)
        var late = NotificationLedger()
        let lastMinute = Self.step(policy, report, &late, at: Timestamps.parseUTC("2026-03-06T09:59:00Z")!)
        #expect(lastMinute.decisions.map(\.subject) == [.summary])
        var tooLate = NotificationLedger()
        let missed = Self.step(policy, report, &tooLate, at: Timestamps.parseUTC("2026-03-06T10:00:00Z")!)
        #expect(missed.decisions.isEmpty)
        #expect(missed.nextCheck == Timestamps.parseUTC("2026-03-07T07:00:00Z"))
    }

    @Test("Rain is notified once per episode, within the lead time, and the plan wakes when it enters it")
    func rainSoon() {
        let policy = NotificationPolicy(
            preferences: Settings.Notifications.testing(rainSoon: true, rainSoonMinutes: 30), timeZone: utc)
        var ledger = NotificationLedger()
        let far = Self.step(policy, Self.report(warnings: nil, nowcast: Self.rain(startingIn: 60)), &ledger)
        #expect(far.decisions.isEmpty)
        #expect(far.nextCheck == Self.now.addingTimeInterval(30 * 60))

        let soon = Self.step(policy, Self.report(warnings: nil, nowcast: Self.rain(startingIn: 20)), &ledger)
        #expect(soon.decisions.count == 1)
        #expect(soon.decisions.first?.notification?.summary.hasPrefix("Rain in 20 min (moderate)") == true)
        // The next refresh moves the start by a quarter hour: the same episode, nothing new.
        #expect(
            Self.step(policy, Self.report(warnings: nil, nowcast: Self.rain(startingIn: 5)), &ledger).decisions.isEmpty)
    }

    @Test("Switched off, rain is never notified")
    func rainOff() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(rainSoon: false), timeZone: utc)
        var ledger = NotificationLedger()
        #expect(
            Self.step(policy, Self.report(warnings: nil, nowcast: Self.rain(startingIn: 10)), &ledger).decisions.isEmpty
        )
    }

    @Test("What was notified survives a restart through the state directory: nothing is sent twice")
    func ledgerSurvivesRestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = NotificationStore(directory: directory.path, logger: Logger(label: "test"))
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(), timeZone: utc)
        var ledger = store.load().ledger
        let report = Self.report(warnings: [Self.warning("a", severity: .severe)], nowcast: Self.rain(startingIn: 10))
        #expect(Self.step(policy, report, &ledger).decisions.count == 2)
        try store.save(ledger)

        var restarted = NotificationStore(directory: directory.path, logger: Logger(label: "test")).load().ledger
        #expect(restarted == ledger)
        #expect(Self.step(policy, report, &restarted).decisions.isEmpty)
    }

    @Test("A damaged record is set aside and an empty one used")
    func damagedLedger() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"version\":1,\"warn".utf8).write(to: directory.appendingPathComponent(NotificationStore.fileName))
        let store = NotificationStore(directory: directory.path, logger: Logger(label: "test"))
        let loaded = store.load()
        #expect(loaded.ledger == NotificationLedger())
        #expect(loaded.wasDamaged)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix(NotificationStore.fileName + ".corrupt-") })
    }
}
