import DBus
import DesktopNotifications
import ForecastModel
import Foundation
import Logging
import Notifications
import Settings
import TestSupport
import Testing

/// The notifier's bounds against a real notification server (python-dbusmock's `notification_daemon` on a
/// private bus): a flood is four notifications, and a damaged record sends nothing again after a restart.
@Suite("Notifier bounds on a private bus", .serialized)
struct NotifierBoundsBusTests {
    let bus = NotifierBusTests()

    @Test("1,000 warnings at once: four notifications, the last counting 997 more; nothing more on the next report")
    func flood() async throws {
        try await bus.withServer { bus, server, directory in
            let now = NotificationPolicyTests.now
            let report = NotificationPolicyTests.report(warnings: NotificationBoundsTests.flood(1_000))
            let notifier = await Notifier(
                client: NotificationClient(bus: .address(bus.address)), stateDirectory: directory.path,
                preferences: Settings.Notifications.testing(minimumSeverity: .minor), timeZone: TimeZone(identifier: "UTC")!,
                logger: Logger(label: "test"))
            await notifier.update(report, now: now)
            await notifier.update(report, now: now.addingTimeInterval(60))
            let calls = try await server.calls(of: "Notify")
            #expect(calls.count == 4)
            #expect(calls.map { $0[3].string ?? "" }.suffix(1) == ["997 more warnings"])
        }
    }

    @Test("A damaged record: set aside, and the warning in force at the start is not notified again")
    func damagedRecord() async throws {
        try await bus.withServer { bus, server, directory in
            let now = NotificationPolicyTests.now
            let warning = NotificationPolicyTests.warning("dwd-1", severity: .severe)
            let report = NotificationPolicyTests.report(warnings: [warning])
            await self.bus.notifier(bus, directory).update(report, now: now)
            #expect(try await server.calls(of: "Notify").count == 1)

            // The record is damaged (a disk error, a bad edit); the daemon restarts with the warning still in force.
            let ledger = directory.appendingPathComponent(NotificationStore.fileName)
            try Data("{\"version\":1,\"warnings\":{\"dwd".utf8).write(to: ledger)
            let restarted = await self.bus.notifier(bus, directory)
            // The first report after the start may come without warnings (the sources not asked yet).
            await restarted.update(NotificationPolicyTests.report(warnings: nil), now: now.addingTimeInterval(60))
            await restarted.update(report, now: now.addingTimeInterval(120))
            #expect(try await server.calls(of: "Notify").count == 1, "the warning in force was notified again")
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.contains { $0.hasPrefix(NotificationStore.fileName + ".corrupt-") }, "\(names)")

            // What comes after the start is notified as ever: a new warning, and the first one's upgrade.
            let later = NotificationPolicyTests.warning("dwd-9", severity: .moderate)
            await restarted.update(
                NotificationPolicyTests.report(warnings: [warning, later]), now: now.addingTimeInterval(180))
            let calls = try await server.calls(of: "Notify")
            #expect(calls.count == 2)
            #expect(calls.last?[3].string == "Frost (moderate)")
        }
    }
}
