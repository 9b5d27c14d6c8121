import DesktopNotifications
import ForecastModel
import Foundation
import Localization
import Logging
import Notifications
import Settings
import Testing

/// A feed of thousands of warnings is not thousands of notifications: the three most severe new ones alone, the
/// rest in one that counts them; and a damaged record of what was sent does not send it all again.
@Suite("Notifications bounded")
struct NotificationBoundsTests {
    typealias Policy = NotificationPolicyTests
    let utc = TimeZone(identifier: "UTC")!

    /// `count` warnings, every 1000th severe, every 250th moderate, the rest minor, with distinct ids.
    static func flood(_ count: Int) -> [WeatherWarning] {
        (0..<count).map { index in
            let severity: WarningSeverity = index % 1000 == 999 ? .severe : index % 250 == 0 ? .moderate : .minor
            return Policy.warning(String(format: "flood-%05d", index), severity: severity)
        }
    }

    @Test("10,000 new warnings: the three most severe are notified alone, then one notification for 9,997 more")
    func tenThousand() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        let warnings = Self.flood(10_000)
        let plan = Policy.step(policy, Policy.report(warnings: warnings), &ledger)

        let single = plan.decisions.compactMap { decision -> WeatherWarning? in
            guard case .warning(let warning, _, _) = decision else { return nil }
            return warning
        }
        #expect(single.map(\.severity) == [.severe, .severe, .severe])
        #expect(single.map(\.identifier) == ["flood-00999", "flood-01999", "flood-02999"])
        let rest = plan.decisions.filter { $0.subject == .moreWarnings }
        #expect(rest.count == 1)
        #expect(plan.decisions.count == 4)
        let summary = try? #require(rest.first?.notification)
        #expect(summary?.summary == "9997 more warnings")
        // Its body names the most severe of the rest and where to see them all.
        #expect(summary?.body.plainText.hasPrefix("⚠ Frost (severe)") == true, "\(String(describing: summary?.body))")
        #expect(summary?.body.plainText.hasSuffix("forecastctl warnings lists them all.") == true)

        // Nothing again for the same report, nor for the next one: what was counted is written down.
        #expect(Policy.step(policy, Policy.report(warnings: warnings), &ledger).decisions.isEmpty)
        #expect(ledger.warnings.count <= NotificationLedger.capacity)
    }

    @Test("A report that lists 20 warnings and counts 1,980 more: the notification of the rest counts them too")
    func omittedCounted() throws {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        var report = Policy.report(warnings: Self.flood(20))
        report.warningsOmitted = 1_980
        let plan = Policy.step(policy, report, &ledger)
        #expect(plan.decisions.count == 4)
        #expect(try #require(plan.decisions.last?.notification).summary == "1997 more warnings")

        // With a higher minimum severity the omitted ones (the least severe) are not counted.
        let severeOnly = NotificationPolicy(
            preferences: Settings.Notifications.testing(minimumSeverity: .severe), timeZone: utc)
        var other = NotificationLedger()
        let plan2 = Policy.step(severeOnly, report, &other)
        #expect(plan2.decisions.allSatisfy { $0.subject != .moreWarnings })
    }

    @Test("Up to three new warnings are each notified alone; a fourth brings the one for the rest")
    func fewAreSingle() {
        let policy = NotificationPolicy(preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc)
        var ledger = NotificationLedger()
        let three = (1...3).map { Policy.warning("w\($0)", severity: .minor) }
        let plan = Policy.step(policy, Policy.report(warnings: three), &ledger)
        #expect(plan.decisions.map(\.subject) == three.map { .warning($0.id) })

        var fresh = NotificationLedger()
        let four = three + [Policy.warning("w4", severity: .moderate)]
        let more = Policy.step(policy, Policy.report(warnings: four), &fresh)
        // The moderate one first; the last minor one in the notification of the rest, written down with it.
        #expect(more.decisions.map(\.subject) == [.warning("w4"), .warning("w1"), .warning("w2"), .moreWarnings])
        #expect(more.decisions.last?.notification?.summary == "1 more warning")
        #expect(fresh.warnings["w3"] != nil)
    }

    @Test("The notification of the rest is translated in every language")
    func translated() throws {
        let warnings = Self.flood(5)
        for language in ["de", "es", "fr", "it", "ja", "nl", "pl", "pt", "pt_BR", "ru", "uk", "zh_CN"] {
            let catalogue = try CatalogueLibrary.load(language, from: CatalogueLibrary.sourceTreeDirectory).get()
            let missing = MissingTexts()
            let phrases = Phrases(Translation(catalogue, recordingMissingTextsIn: missing))
            let policy = NotificationPolicy(
                preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: utc, phrases: phrases)
            let plan = policy.plan(Policy.report(warnings: warnings), now: Policy.now, ledger: NotificationLedger())
            let rest = try #require(plan.decisions.last?.notification)
            #expect(rest.summary.contains("2"), "\(language): \(rest.summary)")
            #expect(!rest.summary.contains("more warning"), "\(language): \(rest.summary)")
            #expect(missing.all.isEmpty, "\(language) lacks \(missing.all)")
        }
    }

    @Test("The morning summary lists the three most severe warnings and counts the rest")
    func morningSummaryBounded() {
        var report = Policy.report(warnings: Self.flood(10_000))
        report.daily = []
        let notification = NotificationContent.summary(report, now: Policy.now, phrases: .english)
        let lines = notification.body.plainText.split(separator: "\n")
        #expect(lines.count == 4, "\(lines.prefix(6))")
        #expect(lines.last == "⚠ +9997 more")
    }
}
