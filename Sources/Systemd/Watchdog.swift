import Waiting

/// Keeps systemd's watchdog fed while the daemon actually works.
///
/// Every `interval` it runs `probe`, a round trip through the part whose hang should count as the
/// daemon hanging (the state owner), and sends `WATCHDOG=1` only when the probe has returned. A
/// wedged state owner therefore stops the pings, and systemd restarts the daemon after
/// `WatchdogSec=`; a bare timer would keep a hung daemon looking alive.
public struct Watchdog: Sendable {
    let notifier: SystemdNotifier
    let interval: Duration
    let probe: @Sendable () async -> Void
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - interval: time between pings (half of `WatchdogSec=`).
    ///   - probe: returns once the watched part answers.
    ///   - sleep: waits between pings; tests pass their own to step time.
    public init(
        notifier: SystemdNotifier, interval: Duration, probe: @escaping @Sendable () async -> Void,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) {
        self.notifier = notifier
        self.interval = interval
        self.probe = probe
        self.sleep = sleep ?? { try await Alarm.sleep(for: $0) }
    }

    /// Pings until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await sleep(interval)
            } catch {
                return
            }
            await probe()
            guard !Task.isCancelled else { return }
            notifier.watchdog()
        }
    }
}
