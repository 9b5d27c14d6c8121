import DaemonServices
import DaemonState
import DesktopNotifications
import ForecastModel
import Foundation
import Logging
import Notifications
import ServiceLifecycleTestKit
import Settings
import Synchronization
import Testing
import TestSupport

/// The daemon's notification service without a bus: quiet while notifications are off, and the system
/// service saying once that it cannot notify instead of trying.
@Suite("Notification service", .onEventLoops)
struct NotificationServiceTests {
    /// Log messages, kept in memory.
    final class Messages: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }

        var logger: Logger {
            Logger(label: "test") { _ in Handler(messages: self) }
        }

        struct Handler: LogHandler {
            let messages: Messages
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let message = event.message.description
                messages.lines.withLock { $0.append(message) }
            }
        }
    }

    /// Runs the service on a pinned state with these preferences for a few reports, then shuts it down;
    /// returns how many notifiers it built and what it logged.
    func run(preferences: Settings.Notifications, isSystemService: Bool) async throws -> (built: Int, log: [String]) {
        let base = TestState()
        let pin = Coordinate(latitude: 48.9, longitude: 2.33)
        var settings = Settings.testing(pin: pin, gpsd: false, mode: .pinned)
        settings.notifications = preferences
        let state = base.makeState(settings)
        let messages = Messages()
        let built = Mutex(0)
        let service = NotificationService(state: state, isSystemService: isSystemService, logger: messages.logger) {
            preferences in
            built.withLock { $0 += 1 }
            return await Notifier(
                client: NotificationClient(bus: .address("unix:path=/nonexistent/forecastd-test-bus")),
                stateDirectory: "/nonexistent/forecastd-test-state", preferences: preferences, logger: messages.logger)
        }
        try await testGracefulShutdown { shutdown in
            try await withThrowingTaskGroup { group in
                group.addTask { await service.run() }
                // Three reports: the pin, a forecast, a warning.
                await state.tick()
                await state.forecastSucceeded(base.forecast(), for: pin)
                let warning = WeatherWarning(
                    source: "nws", event: "Tornado Warning", severity: .extreme, identifier: "t1")
                await state.setAlerts(warnings: [warning], air: nil)
                try await Task.sleep(for: .milliseconds(300))
                shutdown.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        return (built.withLock { $0 }, messages.all)
    }

    @Test("Off: no notifier is built and nothing is said")
    func off() async throws {
        let result = try await run(preferences: Settings.Notifications(), isSystemService: false)
        #expect(result.built == 0)
        #expect(result.log.isEmpty)
    }

    @Test("The system service says once that it cannot notify, and how to run the user service")
    func systemService() async throws {
        let result = try await run(preferences: .switchedOn, isSystemService: true)
        #expect(result.built == 0)
        let said = result.log.filter { $0.contains("no session bus") }
        #expect(said.count == 1)
        #expect(said.first?.contains("systemctl --user enable --now forecastd.service") == true)
    }

    @Test("On, without a reachable bus: the notifier is built once and says once it cannot deliver")
    func noBus() async throws {
        let result = try await run(preferences: .switchedOn, isSystemService: false)
        #expect(result.built == 1)
        #expect(result.log.filter { $0.contains("cannot be delivered") }.count == 1)
    }
}

extension Settings.Notifications {
    /// `[notifications] enabled = true`, every other key at its default.
    static var switchedOn: Settings.Notifications {
        var notifications = Settings.Notifications()
        notifications.enabled = true
        return notifications
    }
}
