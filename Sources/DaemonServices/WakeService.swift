import CSystemEvents
import DaemonState
import Foundation
import Glibc
import Logging
import DBus
import NIOConcurrencyHelpers
import NetworkManager
import NetworkPath
import ServiceLifecycle
import Waiting

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

/// An rtnetlink socket (links, addresses, routes) and a cancel-on-set timerfd (the wall clock set, a resume),
/// watched by the descriptor waiter: no thread of its own, no timeout, no polling, no privileges, no D-Bus.
/// Events it cannot tell apart are never lost, only merged.
final class WakeWatch: Sendable {
    private let route: Int32
    private let clock: Int32
    let events: AsyncStream<WakeEvent>
    private let continuation: AsyncStream<WakeEvent>.Continuation
    /// A route or link changed: the way out may now be another (a VPN up or down). Merged like ``events``, apart
    /// from them so that neither hides the other.
    let pathChanges: AsyncStream<Void>
    private let pathContinuation: AsyncStream<Void>.Continuation
    /// The sources' tokens once the waiter has added them; read on the waiter's thread by ``stop()``.
    private let tokens = NIOLockedValueBox<[WaitToken]>([])

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
        route = open("rtnetlink (network changes)", sysev_open_route_socket())
        var clock = open("timerfd (clock changes and resume)", sysev_open_clock_change_timer())
        if clock >= 0, sysev_arm_clock_change_timer(clock) != 0 {
            _ = open("timerfd (clock changes and resume)", -1)
            Glibc.close(clock)
            clock = -1
        }
        self.clock = clock
        guard route >= 0 || clock >= 0 else { return nil }
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (pathChanges, pathContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands the descriptors to the waiter; the stream ends after ``stop()``.
    func start() {
        let (route, clock, continuation, tokens) = (route, clock, continuation, tokens)
        let pathContinuation = pathContinuation
        let waiter = DescriptorWaiter.shared
        waiter.execute {
            var added: [WaitToken] = []
            if route >= 0 {
                added.append(waiter.add(RouteSource(route, continuation: continuation, paths: pathContinuation)))
            }
            if clock >= 0 { added.append(waiter.add(ClockChangeSource(clock, continuation: continuation))) }
            tokens.withLockedValue { $0 = added }
        }
    }

    /// Takes the descriptors off the waiter, closes them and ends the stream. Queued after ``start()``'s work, so
    /// it finds the sources added.
    func stop() {
        let (route, clock, continuation, tokens) = (route, clock, continuation, tokens)
        let pathContinuation = pathContinuation
        let waiter = DescriptorWaiter.shared
        waiter.execute {
            for token in tokens.withLockedValue({ $0 }) { waiter.remove(token) }
            for descriptor in [route, clock] where descriptor >= 0 { Glibc.close(descriptor) }
            continuation.finish()
            pathContinuation.finish()
        }
    }
}

/// The rtnetlink socket on the waiter: a batch of messages that may mean the network is back is one event, and one
/// that may have changed the way out is one path change.
private final class RouteSource: WaitSource {
    let descriptor: Int32
    let continuation: AsyncStream<WakeEvent>.Continuation
    let paths: AsyncStream<Void>.Continuation

    init(
        _ descriptor: Int32, continuation: AsyncStream<WakeEvent>.Continuation, paths: AsyncStream<Void>.Continuation
    ) {
        self.descriptor = descriptor
        self.continuation = continuation
        self.paths = paths
    }

    var interest: (descriptor: Int32, events: Readiness)? { (descriptor, .readable) }
    var deadline: ContinuousClock.Instant? { nil }

    func ready(_ events: Readiness) {
        // A failed read (ENOBUFS: messages lost) may have hidden either.
        let said = sysev_drain_route_socket(descriptor)
        if said < 0 || said & SYSEV_NETWORK_BACK != 0 { continuation.yield(.network) }
        if said < 0 || said & SYSEV_PATH_CHANGED != 0 { paths.yield() }
    }
}

/// The cancel-on-set timerfd on the waiter: the wall clock set, or a resume (told apart by the time suspended).
private final class ClockChangeSource: WaitSource {
    let descriptor: Int32
    let continuation: AsyncStream<WakeEvent>.Continuation
    var judge = ResumeJudge(suspended: ResumeJudge.suspendedSinceBoot())

    init(_ descriptor: Int32, continuation: AsyncStream<WakeEvent>.Continuation) {
        self.descriptor = descriptor
        self.continuation = continuation
    }

    var interest: (descriptor: Int32, events: Readiness)? { (descriptor, .readable) }
    var deadline: ContinuousClock.Instant? { nil }

    func ready(_ events: Readiness) {
        // Re-armed first: it consumes the cancellation, which would otherwise keep the descriptor readable.
        _ = sysev_arm_clock_change_timer(descriptor)
        if let slept = judge.sleptSinceLastLook(suspended: ResumeJudge.suspendedSinceBoot()) {
            continuation.yield(.resumed(slept: slept))
        } else {
            continuation.yield(.clockSet)
        }
    }
}

/// Fetches at once what the network's return or a resume makes due, instead of waiting for the timer
/// (late by the time asleep) or the offline backoff; and reads the way out (``NetworkPathReader``) at start and
/// at every route or link change, so that a VPN going up or down is judged at once (IP geolocation is not used
/// behind one).
///
/// Each event is followed by a random wait of up to ``jitter`` (events meanwhile merge into it), so that a
/// fleet of machines resuming or reconnecting together does not reach the provider in the same second. The way
/// out is read without that wait: reading it asks no one.
public struct WakeService: Service, CustomStringConvertible {
    let state: ForecastState
    let logger: Logger
    let jitter: Duration
    let pathReader: NetworkPathReader
    /// The system bus, where NetworkManager says which VPN connections carry the default route (its IPsec and other
    /// plugins' VPNs need no tunnel interface of their own); nil: NetworkManager is not asked.
    let networkManagerBus: String?
    /// The names of NetworkManager's activated VPNs carrying the default route, as last read.
    private let networkManagerVPNs = NIOLockedValueBox<[String]>([])

    /// How long after the system bus could not be reached (or was lost) it is tried again.
    static let reconnectDelay: Duration = .seconds(300)

    public init(
        state: ForecastState, logger: Logger, jitter: Duration = .seconds(5),
        pathReader: NetworkPathReader = NetworkPathReader(), networkManagerBus: String? = DBusAddress.system()
    ) {
        self.state = state
        self.logger = logger
        self.jitter = jitter
        self.pathReader = pathReader
        self.networkManagerBus = networkManagerBus
    }

    public var description: String { "WakeService" }

    /// Reads the way out (files and a few syscalls: on the blocking thread) and hands the verdict to the state.
    func judgePath() async {
        let vpns = networkManagerVPNs.withLockedValue { $0 }
        let (verdict, problems) = await Blocking.run { [pathReader] in
            let path = pathReader.read()
            return (VPNVerdict.judge(path: path, networkManagerVPNs: vpns), path.problems)
        }
        for problem in problems.prefix(4) {
            logger.debug("The way out could not be read in full.", metadata: ["error": "\(problem)"])
        }
        await state.networkPathJudged(verdict)
    }

    public func run() async {
        await judgePath()
        guard let watch = WakeWatch(logger: logger) else {
            try? await gracefulShutdown()
            return
        }
        watch.start()
        defer { watch.stop() }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { for await _ in watch.pathChanges { await judgePath() } }
                group.addTask { await followNetworkManager() }
                await follow(watch.events)
                group.cancelAll()
            }
        }
    }

    /// Follows NetworkManager's active connections on the system bus until cancelled, judging the way out again
    /// whenever they change. A system bus lost is tried again after ``reconnectDelay``; one that cannot be reached
    /// at all is left alone (a machine without one, a container, gets no timer for it).
    func followNetworkManager() async {
        guard let address = networkManagerBus else { return }
        while !Task.isCancelled {
            let reason: String
            do {
                let bus: DBusConnection
                do {
                    bus = try await DBusConnection.connect(address: address)
                } catch {
                    logger.debug(
                        "The system bus cannot be reached; NetworkManager's VPNs are not followed.",
                        metadata: ["error": "\(error)"])
                    return
                }
                let client = NetworkManagerClient(bus: bus)
                do {
                    try await client.followChanges(
                        ready: { await readVPNs(client) },
                        handle: { changes in
                            if !changes.isDisjoint(with: [.connections, .owner, .missed]) { await readVPNs(client) }
                        })
                    reason = "stopped"
                } catch {
                    reason = "\(error)"
                }
                await bus.close()
            }
            if Task.isCancelled { return }
            logger.debug(
                "NetworkManager's VPN connections cannot be followed for now.",
                metadata: ["error": "\(reason)", "retry_s": "\(Self.reconnectDelay.components.seconds)"])
            do {
                try await Alarm.sleep(for: Self.reconnectDelay)
            } catch {
                return
            }
        }
    }

    /// Reads NetworkManager's VPNs carrying the default route (none when it is not running) and, when they changed,
    /// judges the way out again.
    private func readVPNs(_ client: NetworkManagerClient) async {
        let names = (try? await client.activeConnections().defaultRouteVPNs.map(\.name)) ?? []
        let changed = networkManagerVPNs.withLockedValue { known in
            defer { known = names }
            return known != names
        }
        if changed { await judgePath() }
    }

    /// Judges everything again, after the jitter, for each network or clock event, until they end.
    private func follow(_ events: AsyncStream<WakeEvent>) async {
        let jitterMilliseconds = Self.milliseconds(jitter)
        for await event in events {
            let delay = Duration.milliseconds(Int64.random(in: 0...max(0, jitterMilliseconds)))
            logger.debug(
                "The network or the clock changed; the forecast is judged again shortly.",
                metadata: ["event": "\(event)", "jitter_ms": "\(Self.milliseconds(delay))"])
            if case .resumed(let slept) = event {
                logger.info("The machine resumed from suspend.", metadata: ["slept_s": "\(slept.components.seconds)"])
            }
            do {
                try await Alarm.sleep(for: delay)
            } catch {
                break
            }
            await state.networkOrClockChanged()
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
