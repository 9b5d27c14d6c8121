import DBus
import DesktopNotifications
import ForecastModel
import Foundation
import Logging
import Notifications
import Settings
import TestSupport
import Testing

/// The notifier against a real notification server: python-dbusmock's `notification_daemon` template on a
/// private session bus the test starts.
@Suite("Notifier on a private bus", .serialized)
struct NotifierBusTests {
    /// Runs `body` with a private bus, a notification server on it, and a state directory.
    func withServer(_ body: (PrivateDBusDaemon, DBusMock, URL) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let server = try await DBusMock.start(
                on: bus, template: "notification_daemon", name: NotificationClient.serviceName,
                path: NotificationClient.objectPath)
            defer { server.stop() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "notifier-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(bus, server, directory)
        }
    }

    func notifier(_ bus: PrivateDBusDaemon, _ directory: URL) async -> Notifier {
        await Notifier(
            client: NotificationClient(bus: .address(bus.address)), stateDirectory: directory.path,
            preferences: Settings.Notifications.testing(minimumSeverity: .moderate), timeZone: TimeZone(identifier: "UTC")!,
            logger: Logger(label: "test"))
    }

    @Test("A warning is sent once, its upgrade replaces it, its end closes it, and a restart sends nothing again")
    func warningLifecycle() async throws {
        try await withServer { bus, server, directory in
            let now = NotificationPolicyTests.now
            let first = NotificationPolicyTests.warning("dwd-1", severity: .moderate)
            let report = NotificationPolicyTests.report(warnings: [first])

            let notifier = await notifier(bus, directory)
            await notifier.update(report, now: now)
            await notifier.update(report, now: now.addingTimeInterval(60))
            var calls = try await server.calls(of: "Notify")
            #expect(calls.count == 1)
            #expect(calls.first?[3].string == "Frost (moderate)")
            #expect(calls.first?[1].uint32 == 0)

            let upgraded = NotificationPolicyTests.warning(
                "dwd-2", severity: .severe, references: [CAPReference(sender: nil, identifier: "dwd-1", sent: nil)])
            await notifier.update(
                NotificationPolicyTests.report(warnings: [upgraded]), now: now.addingTimeInterval(120))
            calls = try await server.calls(of: "Notify")
            #expect(calls.count == 2)
            #expect(calls.last?[3].string == "Frost, now severe")
            // The template numbers notifications from 1: the upgrade replaces the first.
            #expect(calls.last?[1].uint32 == 1)

            await notifier.update(NotificationPolicyTests.report(warnings: []), now: now.addingTimeInterval(180))
            #expect(try await server.calls(of: "CloseNotification").count == 1)

            // A restart with the same warning in force: the record in the state directory says it was sent.
            let restarted = await self.notifier(bus, directory)
            await restarted.update(
                NotificationPolicyTests.report(warnings: [upgraded]), now: now.addingTimeInterval(240))
            #expect(try await server.calls(of: "Notify").count == 2)
        }
    }

    @Test("Rain soon is sent once per episode")
    func rainOnce() async throws {
        try await withServer { bus, server, directory in
            let now = NotificationPolicyTests.now
            let notifier = await notifier(bus, directory)
            let report = NotificationPolicyTests.report(
                warnings: nil, nowcast: NotificationPolicyTests.rain(startingIn: 20))
            await notifier.update(report, now: now)
            await notifier.update(report, now: now.addingTimeInterval(300))
            let calls = try await server.calls(of: "Notify")
            #expect(calls.count == 1)
            #expect(calls.first?[3].string?.hasPrefix("Rain in 20 min") == true)
        }
    }

    @Test("A notification D-Bus cannot carry is written down as done, not tried again at every update")
    func invalidNotificationRecorded() async throws {
        try await withServer { bus, server, directory in
            let now = NotificationPolicyTests.now
            let valid = NotificationPolicyTests.warning("dwd-1", severity: .moderate)
            let invalid = WeatherWarning(
                source: valid.source, event: valid.event, severity: valid.severity, onset: valid.onset,
                expires: valid.expires, headline: "Official WARNING of\u{0}FROST", area: valid.area, sent: valid.sent,
                identifier: valid.identifier, references: valid.references, messageType: valid.messageType)
            let notifier = await notifier(bus, directory)
            await notifier.update(NotificationPolicyTests.report(warnings: [invalid]), now: now)
            let calls = try await server.calls(of: "Notify")
            #expect(calls.isEmpty)
            #expect(await notifier.record.warnings[invalid.id] != nil)
        }
    }

    @Test("With no notification server on the bus, updates go on and send once one appears")
    func noServer() async throws {
        try await withPrivateBus { bus in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "notifier-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let notifier = await notifier(bus, directory)
            let report = NotificationPolicyTests.report(warnings: [
                NotificationPolicyTests.warning("a", severity: .severe)
            ])
            await notifier.update(report, now: NotificationPolicyTests.now)
            #expect(await notifier.record.warnings.isEmpty)

            let server = try await DBusMock.start(
                on: bus, template: "notification_daemon", name: NotificationClient.serviceName,
                path: NotificationClient.objectPath)
            defer { server.stop() }
            await notifier.update(report, now: NotificationPolicyTests.now.addingTimeInterval(60))
            #expect(try await server.calls(of: "Notify").count == 1)
        }
    }
}
