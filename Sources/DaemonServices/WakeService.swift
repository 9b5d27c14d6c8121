import CSystemEvents
import DaemonState
import Executors
import Foundation
import Glibc
import Logging
import ServiceLifecycle

/// What the kernel says that makes the forecast worth judging again before its timer.
enum WakeEvent: Sendable, Equatable {
    /// An address or a route was added, or a link came up and running.
    case network
    /// The machine resumed after sleeping this long.
    case resumed(slept: Duration)
    /// The wall clock was set.
    case clockSet
}

/// Judges whether the machine slept, from the time it has spent suspended since boot (CLOCK_BOOTTIME minus
/// CLOCK_MONOTONIC), which grows by the time asleep and by nothing else.
struct ResumeJudge: Sendable {
    /// A smaller growth is not a suspend: the two clocks are read one after the other.
    static let threshold: Duration = .seconds(1)

    private(set) var suspended: Duration

    init(suspended: Duration) { self.suspended = suspended }

    /// The time slept since the last look, when the machine slept; records the new total either way.
    mutating func sleptSinceLastLook(suspended now: Duration) -> Duration? {
        defer { suspended = now }
        let slept = now - suspended
        return slept >= Self.threshold ? slept : nil
    }

    /// The time this machine has spent suspended since boot.
    static func suspendedSinceBoot() -> Duration { .nanoseconds(sysev_suspended_nanoseconds()) }
}

/// A thread that sleeps in `poll` on an rtnetlink socket (links, addresses, routes) and a cancel-on-set
/// timerfd (the wall clock set, a resume), with an eventfd to stop it: no timeout, no polling, no
/// privileges, no D-Bus. Events it cannot tell apart are never lost, only merged.
final class WakeWatch: Sendable {
    private let stopDescriptor: Int32
    private let route: Int32
    private let clock: Int32
    let events: AsyncStream<WakeEvent>
    private let continuation: AsyncStream<WakeEvent>.Continuation

    /// Opens the descriptors; logs and leaves out any that cannot be opened. Nil when none can.
    init?(logger: Logger) {
        func open(_ what: String, _ descriptor: Int32) -> Int32 {
            if descriptor < 0 {
                logger.warning(
                    "A system event source could not be opened; the forecast waits for its timer after such events.",
                    metadata: ["source": "\(what)", "error": "\(String(cString: strerror(sysev_errno())))"])
            }
            return descriptor
        }
        stopDescriptor = sysev_open_stop()
        guard stopDescriptor >= 0 else { return nil }
        route = open("rtnetlink (network changes)", sysev_open_route_socket())
        var clock = open("timerfd (clock changes and resume)", sysev_open_clock_change_timer())
        if clock >= 0, sysev_arm_clock_change_timer(clock) != 0 {
            _ = open("timerfd (clock changes and resume)", -1)
            Glibc.close(clock)
            clock = -1
        }
        self.clock = clock
        guard route >= 0 || clock >= 0 else {
            Glibc.close(stopDescriptor)
            return nil
        }
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        for descriptor in [stopDescriptor, route, clock] where descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Starts the thread; the stream ends after ``stop()``.
    func start() {
        let thread = Thread { [self] in
            var judge = ResumeJudge(suspended: ResumeJudge.suspendedSinceBoot())
            while true {
                let ready = sysev_wait(stopDescriptor, route, clock)
                if ready < 0 || ready & Int32(SYSEV_STOPPED) != 0 { break }
                if ready & Int32(SYSEV_ROUTE) != 0 {
                    // A failed read (ENOBUFS: messages lost) may have hidden the network's return.
                    if sysev_drain_route_socket(route) != 0 { continuation.yield(.network) }
                }
                if ready & Int32(SYSEV_CLOCK) != 0 {
                    _ = sysev_arm_clock_change_timer(clock)
                    if let slept = judge.sleptSinceLastLook(suspended: ResumeJudge.suspendedSinceBoot()) {
                        continuation.yield(.resumed(slept: slept))
                    } else {
                        continuation.yield(.clockSet)
                    }
                }
            }
            continuation.finish()
        }
        thread.name = "wake-watch"
        thread.start()
    }

    func stop() { sysev_stop(stopDescriptor) }
}

/// Fetches at once what the network's return or a resume makes due, instead of waiting for the timer
/// (late by the time asleep) or the offline backoff.
///
/// Each event is followed by a random wait of up to ``jitter`` (events meanwhile merge into it), so that a
/// fleet of machines resuming or reconnecting together does not reach the provider in the same second.
public struct WakeService: Service, CustomStringConvertible {
    let state: ForecastState
    let logger: Logger
    let jitter: Duration

    public init(state: ForecastState, logger: Logger, jitter: Duration = .seconds(5)) {
        self.state = state
        self.logger = logger
        self.jitter = jitter
    }

    public var description: String { "WakeService" }

    public func run() async {
        guard let watch = WakeWatch(logger: logger) else {
            try? await gracefulShutdown()
            return
        }
        watch.start()
        defer { watch.stop() }
        let jitterMilliseconds = Self.milliseconds(jitter)
        await cancelWhenGracefulShutdown {
            for await event in watch.events {
                let delay = Duration.milliseconds(Int64.random(in: 0...max(0, jitterMilliseconds)))
                logger.debug(
                    "The network or the clock changed; the forecast is judged again shortly.",
                    metadata: ["event": "\(event)", "jitter_ms": "\(Self.milliseconds(delay))"])
                if case .resumed(let slept) = event {
                    logger.info("The machine resumed from suspend.", metadata: ["slept_s": "\(slept.components.seconds)"])
                }
                do {
                    try await EventLoopSleep.sleep(for: delay)
                } catch {
                    break
                }
                await state.networkOrClockChanged()
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
