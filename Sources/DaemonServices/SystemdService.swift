import DaemonState
import ForecastModel
import Rendering
import ServiceLifecycle
import Systemd

/// Start-up steps that must be done before systemd hears `READY=1`.
public final class StartupGate: Sendable {
    public enum Step: Sendable, Hashable {
        /// The socket accepts connections.
        case socketListening
        /// The report at start (the saved one, after a restart) is in the status file.
        case reportPublished
    }

    private let steps: AsyncStream<Step>
    private let continuation: AsyncStream<Step>.Continuation

    public init() {
        (steps, continuation) = AsyncStream.makeStream(of: Step.self)
    }

    /// Records that a step is done; called by the service that did it.
    public func done(_ step: Step) {
        continuation.yield(step)
    }

    /// Returns once every step in `wanted` is done, or when the waiting task is cancelled.
    /// One waiter only.
    func wait(for wanted: Set<Step>) async {
        var missing = wanted
        guard !missing.isEmpty else { return }
        for await step in steps {
            missing.remove(step)
            if missing.isEmpty { return }
        }
    }
}

/// Tells systemd what the daemon is doing (`Type=notify`): `READY=1` once the socket listens and the
/// report at start is published, a status line whenever the report changes, `WATCHDOG=1` while the
/// state owner answers, and `STOPPING=1` when shutdown begins.
///
/// Only runs under a service manager (`$NOTIFY_SOCKET` set). Listed last in the service group, so
/// graceful shutdown reaches it first and `STOPPING=1` goes out before anything else stops.
public struct SystemdService: Service, CustomStringConvertible {
    let notifier: SystemdNotifier
    let state: ForecastState
    let startup: StartupGate
    let watchdog: Watchdog?

    public init(notifier: SystemdNotifier, state: ForecastState, startup: StartupGate, watchdog: Watchdog?) {
        self.notifier = notifier
        self.state = state
        self.startup = startup
        self.watchdog = watchdog
    }

    public var description: String { "SystemdService" }

    /// The status line of the latest report, in `[display] language`.
    private func statusLine() async -> String {
        let (report, settings) = await state.reportAndSettings
        return ServiceStatusLine.render(report, phrases: settings.display.phrases(logger: nil))
    }

    public func run() async {
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                await startup.wait(for: [.socketListening, .reportPublished])
                guard !Task.isCancelled else { return }
                notifier.ready(status: await statusLine())
                await withDiscardingTaskGroup { group in
                    if let watchdog {
                        group.addTask { await watchdog.run() }
                    }
                    for await _ in await state.subscribe() {
                        notifier.status(await statusLine())
                    }
                    group.cancelAll()
                }
            }
        } onGracefulShutdown: {
            notifier.stopping()
        }
    }
}
