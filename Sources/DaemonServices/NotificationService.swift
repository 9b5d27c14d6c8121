import DaemonState
import ForecastModel
import Foundation
import Logging
import Notifications
import ServiceLifecycle
import Settings
import Waiting

/// Sends desktop notifications for the reports while `[notifications] enabled` is true.
///
/// The ``Notifier`` decides and remembers (in the state directory, so nothing goes out twice across
/// restarts); this service hands it every new report, applies changed `[notifications]` settings, and
/// sets one timer for the moment the notifier names (rain entering the lead time, the morning summary,
/// the end of quiet hours). Disabled, it sends nothing and keeps no timer. The system service has no
/// session bus: it says once that it cannot notify and how to run the user service instead.
public struct NotificationService: Service, CustomStringConvertible {
    /// Builds the notifier when notifications are first turned on (one for the daemon's life).
    public typealias MakeNotifier = @Sendable (Settings.Notifications) async -> Notifier

    let state: ForecastState
    let isSystemService: Bool
    let makeNotifier: MakeNotifier
    let logger: Logger

    public init(state: ForecastState, isSystemService: Bool, logger: Logger, makeNotifier: @escaping MakeNotifier) {
        self.state = state
        self.isSystemService = isSystemService
        self.logger = logger
        self.makeNotifier = makeNotifier
    }

    public var description: String { "NotificationService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            let alarm = Alarm()
            var notifier: Notifier?
            var saidSystemService = false
            await alarm.follow(state) { group in
                let settings = await state.currentSettings
                let preferences = settings.notifications
                guard preferences.enabled else {
                    alarm.arm(nil)
                    return
                }
                guard !isSystemService else {
                    if !saidSystemService {
                        saidSystemService = true
                        logger.warning(
                            "Desktop notifications are on, but the system service has no session bus to send them on; run forecastd as a user service for them (systemctl --user enable --now forecastd.service).",
                            metadata: ["setting": "[notifications] enabled"])
                    }
                    return
                }
                let current: Notifier
                if let notifier {
                    current = notifier
                    await current.setPreferences(preferences)
                } else {
                    current = await makeNotifier(preferences)
                    notifier = current
                    group.addTask { await current.followEvents() }
                }
                var phrases = settings.display.phrases(logger: logger)
                phrases.clock = settings.units.time  // warnings' "until 9:00 PM" on a 12-hour clock
                await current.setPhrases(phrases)
                let report = await state.report
                alarm.arm(await current.update(report))
            }
        }
    }
}
