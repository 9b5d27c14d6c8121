import CGPS
import ForecastModel
import Foundation
import Logging
import NIOConcurrencyHelpers
import Waiting

/// Positions from gpsd, read through libgps as a source of the descriptor waiter (`Waiting`).
///
/// `run` connects to gpsd, asks it to stream JSON reports and turns usable TPV reports into
/// ``LocationEvent/fix(_:)``s; reports that cannot be believed (see ``GPSDReport/judged(receivedAt:)``) are refused.
/// Not every fix is handed on: one that changes nothing the daemon judges is kept, and handed on after
/// `handOnInterval` or before the fix is said to be lost (``GPSDHandOn``), since every hand-on wakes the daemon.
/// When gpsd is absent or goes away it reports ``LocationEvent/unavailable(source:reason:)`` once per outage and
/// keeps reconnecting with exponential backoff. The waiter's thread sleeps in poll(2) on gpsd's socket, with no
/// timeout but a fix kept back or the backoff: it wakes only when gpsd sends something, and cancelling the calling
/// task closes the connection at once. Connecting through libgps blocks (name lookup, connect), so `cgps_open`
/// runs on a short thread of its own (`gpsd-connect`), never on the waiter or the Swift concurrency pool.
public final class GPSDLocationProvider: LocationProvider {
    /// How long to wait between connection attempts: `initial`, doubling after each failure up to `maximum`.
    public struct Backoff: Sendable, Hashable {
        public var initial: Duration
        public var maximum: Duration

        /// Values below 10 ms are raised to 10 ms, and `maximum` is never below `initial`, so a bad value
        /// cannot turn reconnecting into a busy loop.
        public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
            let floor = Duration.milliseconds(10)
            self.initial = max(initial, floor)
            self.maximum = max(maximum, self.initial)
        }
    }

    /// The host gpsd listens on (`localhost` for a local daemon).
    public let host: String
    /// gpsd's TCP port, 2947 unless gpsd was told otherwise.
    public let port: Int
    public let backoff: Backoff
    /// The longest the reader keeps fixes that change nothing to itself while gpsd keeps reporting: the
    /// consumer's fix is never older than the receiver's by more than this (see ``GPSDHandOn``).
    public let handOnInterval: Duration
    private let logger: Logger
    private let wakeups = NIOLockedValueBox(0)

    /// The hand-on interval for a consumer that judges a fix no longer fresh after `maxFixAge`: at most 5 s, and
    /// at most half of `maxFixAge`, so a fix handed on late can never look stale while newer ones are coming.
    public static func handOnInterval(maxFixAge: Duration) -> Duration {
        min(.seconds(5), maxFixAge / 2)
    }

    /// `handOnInterval` zero hands every new fix on. `host` and `port` have no defaults here: the settings'
    /// `[location.gpsd]` row owns them, and every caller passes what is in force.
    public init(
        host: String, port: Int, backoff: Backoff = Backoff(),
        handOnInterval: Duration = GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(120)), logger: Logger
    ) {
        self.host = host
        self.port = port
        self.backoff = backoff
        self.handOnInterval = max(handOnInterval, .zero)
        var logger = logger
        logger[metadataKey: "gpsd.host"] = "\(host)"
        logger[metadataKey: "gpsd.port"] = "\(port)"
        self.logger = logger
    }

    /// Reads gpsd until the calling task is cancelled. Returns once the connection is closed and nothing more
    /// can be delivered.
    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        let (host, port, backoff, handOnInterval, logger, wakeups) = (host, port, backoff, handOnInterval, logger, wakeups)
        let waiter = DescriptorWaiter.shared
        // The source, once the waiter has made it; and whether the task was cancelled before that.
        let slot = WaiterSlot()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                waiter.execute {
                    guard !slot.cancelled else { return finished.resume() }
                    guard
                        let source = GPSDSource(
                            host: host, port: port, backoff: backoff, handOnInterval: handOnInterval, logger: logger,
                            wakeups: wakeups, slot: slot, deliver: deliver, finished: { finished.resume() })
                    else {
                        logger.error("Could not allocate memory for libgps; gpsd will not be read.")
                        deliver(.unavailable(source: .gpsd, reason: "Could not allocate memory for libgps."))
                        // `run` must last until cancelled, whatever happens here.
                        slot.onCancel = { finished.resume() }
                        return
                    }
                    slot.source = source
                    source.start()
                }
            }
        } onCancel: {
            waiter.execute {
                slot.cancelled = true
                slot.source?.stop()
                slot.onCancel?()
                slot.onCancel = nil
            }
        }
    }

    /// How often the reader has been called on the waiter (data, a deadline): for tests that prove it sleeps.
    package var readerWakeups: Int { wakeups.withLockedValue { $0 } }
}

/// Where the waiter keeps a provider's source between `run`'s closures: made and read on the waiter's thread only
/// (`DescriptorWaiter.checkIsolated`), which is what makes passing it through Sendable closures safe.
private final class WaiterSlot: @unchecked Sendable {
    private var _source: GPSDSource?
    private var _cancelled = false
    private var _onCancel: (() -> Void)?

    var source: GPSDSource? {
        get { DescriptorWaiter.shared.checkIsolated(); return _source }
        set { DescriptorWaiter.shared.checkIsolated(); _source = newValue }
    }
    var cancelled: Bool {
        get { DescriptorWaiter.shared.checkIsolated(); return _cancelled }
        set { DescriptorWaiter.shared.checkIsolated(); _cancelled = newValue }
    }
    /// What a cancellation ends when there is no source (libgps's memory could not be had).
    var onCancel: (() -> Void)? {
        get { DescriptorWaiter.shared.checkIsolated(); return _onCancel }
        set { DescriptorWaiter.shared.checkIsolated(); _onCancel = newValue }
    }
}

/// libgps's connection state, handed to the thread that connects and back: used by one thread at a time.
private struct GPSData: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<gps_data_t>
}

extension Duration {
    /// The duration in seconds, for Foundation APIs and logs.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// gpsd's connection as a source of the descriptor waiter: connect, stream, reconnect. Lives on the waiter's
/// thread, but for `cgps_open` (name lookup and connect block), which runs on a short thread of its own while
/// the source waits on nothing.
private final class GPSDSource: WaitSource {
    /// How many reports to read in one call: a peer that never stops sending cannot keep the waiter from its other
    /// sources and work (a stop among them). More are read in the next round, at once.
    private static let reportsPerCall = 64

    private let host: String
    private let port: Int
    private let backoff: GPSDLocationProvider.Backoff
    private let logger: Logger
    private let wakeups: NIOLockedValueBox<Int>
    private let slot: WaiterSlot
    private let deliver: @Sendable (LocationEvent) -> Void
    private let finished: () -> Void
    /// gps_data_t is tens of kilobytes: allocated once, zeroed, for the source's whole life.
    private let data: UnsafeMutablePointer<gps_data_t>

    private enum Phase {
        /// Waiting to connect again.
        case backoff(until: ContinuousClock.Instant)
        /// `cgps_open` runs on its own thread; `stopping` when a stop came meanwhile.
        case connecting(stopping: Bool)
        case streaming(socket: Int32)
        case stopped
    }

    /// What the consumer last heard about the fix, so that "no fix" is said only when it changes.
    private enum FixState { case unknown, noFix, fix }

    /// Identifies a delivered fix, so that the several reports gpsd sends for one epoch become one event.
    private struct FixKey: Equatable {
        var seconds: Int64
        var nanoseconds: Int
        var coordinate: Coordinate

        func isSameFix(as other: FixKey) -> Bool {
            // Without a time (some NMEA sentences carry none) the position is all there is to compare.
            if seconds == 0 && nanoseconds == 0 { return coordinate == other.coordinate }
            return seconds == other.seconds && nanoseconds == other.nanoseconds
        }
    }

    private var phase = Phase.stopped
    private var token: WaitToken?
    private var delay: Duration
    private var outageReported = false
    /// Whether this connection carried reports about the receiver (TPV): a working one, after which the backoff
    /// starts afresh.
    private var carriedFixReports = false
    /// When to read again without waiting: the last call stopped at `reportsPerCall` with more perhaps buffered
    /// in libgps (which keeps what one recv brought beyond the first line, so the socket alone cannot say).
    private var readAgainAt: ContinuousClock.Instant?
    /// When the fix kept back must be handed on though gpsd sent nothing.
    private var flushAt: ContinuousClock.Instant?

    private var fixState = FixState.unknown
    private var lastFix: FixKey?
    /// Which fixes to hand on, and the newest one kept back.
    private var handOn: GPSDHandOn
    /// The kinds of implausible data already logged on this connection: each is logged once, not per report.
    private var problemsLogged: Set<GPSDProblem.Kind> = []

    init?(
        host: String, port: Int, backoff: GPSDLocationProvider.Backoff, handOnInterval: Duration, logger: Logger,
        wakeups: NIOLockedValueBox<Int>, slot: WaiterSlot, deliver: @escaping @Sendable (LocationEvent) -> Void,
        finished: @escaping () -> Void
    ) {
        guard let data = cgps_new() else { return nil }
        self.data = data
        self.host = host
        self.port = port
        self.backoff = backoff
        self.delay = backoff.initial
        self.handOn = GPSDHandOn(interval: handOnInterval)
        self.logger = logger
        self.wakeups = wakeups
        self.slot = slot
        self.deliver = deliver
        self.finished = finished
    }

    var interest: (descriptor: Int32, events: Readiness)? {
        guard case .streaming(let socket) = phase else { return nil }
        return (socket, .readable)
    }

    var deadline: ContinuousClock.Instant? {
        switch phase {
        case .backoff(let until): until
        case .streaming: readAgainAt ?? flushAt
        case .connecting, .stopped: nil
        }
    }

    /// Adds itself to the waiter and connects.
    func start() {
        token = DescriptorWaiter.shared.add(self)
        connect()
    }

    /// Closes the connection (once a connect under way has returned), leaves the waiter, and ends `run`.
    func stop() {
        switch phase {
        case .connecting:
            phase = .connecting(stopping: true)
        case .streaming:
            cgps_close(data)
            finish()
        case .backoff:
            finish()
        case .stopped:
            break
        }
    }

    func ready(_ events: Readiness) {
        wakeups.withLockedValue { $0 += 1 }
        switch phase {
        case .backoff:
            connect()
        case .streaming:
            if events.isEmpty, readAgainAt == nil {
                // gpsd fell silent with a fix kept back: hand it on now.
                handOnPending()
            }
            read()
        case .connecting, .stopped:
            break
        }
    }

    private func finish() {
        phase = .stopped
        if let token { DescriptorWaiter.shared.remove(token) }
        cgps_free(data)
        logger.debug("Stopped reading from gpsd.")
        finished()
    }

    private func connect() {
        phase = .connecting(stopping: false)
        let (host, port, data, slot) = (host, String(port), GPSData(pointer: data), slot)
        let thread = Thread {
            cgps_name_this_thread("gpsd-connect")
            let opened = cgps_open(host, port, data.pointer)
            DescriptorWaiter.shared.execute { slot.source?.opened(opened) }
        }
        thread.start()
    }

    /// On the waiter, once `cgps_open` has returned.
    private func opened(_ result: Int32) {
        guard case .connecting(let stopping) = phase else { return }
        if stopping {
            if result == 0 { cgps_close(data) }
            return finish()
        }
        guard result == 0 else {
            // The struct is unusable now (gps_fd holds an error code): touch nothing but a fresh open.
            let reason = "Cannot connect to gpsd at \(host):\(port): \(Self.describe(result))."
            if !outageReported {
                logger.warning(
                    "gpsd is unavailable; retrying with backoff.",
                    metadata: ["reason": "\(reason)", "retry.max_delay_s": "\(backoff.maximum.seconds)"])
                deliver(.unavailable(source: .gpsd, reason: reason))
                outageReported = true
            }
            waitToReconnect()
            return
        }
        let socket = cgps_fd(data)
        prepareSocket(socket)
        fixState = .unknown
        lastFix = nil
        handOn.reset()
        problemsLogged = []
        carriedFixReports = false
        readAgainAt = nil
        flushAt = nil
        guard cgps_stream_json(data) == 0 else {
            lost(reason: "gpsd at \(host):\(port) did not accept the request to stream reports.")
            return
        }
        logger.info("Connected to gpsd.", metadata: ["libgps.api": "\(GPSDReport.libgpsAPI)"])
        deliver(.connected(source: .gpsd))
        outageReported = false
        phase = .streaming(socket: socket)
        read()
    }

    /// Reads the reports there are, up to `reportsPerCall`. gpsd drops clients that fall behind, so everything
    /// is read before waiting again: a read that finds no complete line says it is all read.
    private func read() {
        readAgainAt = nil
        for _ in 0..<Self.reportsPerCall {
            var error: Int32 = 0
            let count = cgps_read(data, &error)
            if count < 0 {
                if error == 0 { return lost(reason: "gpsd at \(host):\(port) closed the connection.") }
                return lost(reason: "Reading from gpsd at \(host):\(port) failed: \(Self.describe(error)).")
            }
            if count == 0 {
                // With a fix kept back, wait no longer than its hand-on is due: gpsd may have fallen silent.
                // (Never longer than 1.5 intervals, whatever a wall clock set back makes of the deadline.)
                flushAt = handOn.flushDeadline.map { deadline in
                    let wait = min(max(0, deadline.timeIntervalSinceNow), handOn.interval.seconds * 1.5)
                    return ContinuousClock.now + .seconds(wait)
                }
                return
            }
            if handleReport(data) { carriedFixReports = true }
            // libgps never clears `set`; without this an old TPV would look new after the next SKY.
            cgps_clear_set(data)
        }
        readAgainAt = .now
    }

    /// The connection failed or gpsd ended it: closes it, says so once per outage, and waits to reconnect.
    private func lost(reason: String) {
        cgps_close(data)
        readAgainAt = nil
        flushAt = nil
        // The consumer's fix then ages from the last one gpsd sent.
        handOnPending()
        // A connection that carried reports about the receiver (TPV) was a working one: start the backoff
        // afresh. One that gpsd closed at once, or that ended on a greeting and junk (an endless line libgps
        // gives up on), keeps growing the delay, so a broken peer is not reconnected to every second.
        if carriedFixReports { delay = backoff.initial }
        if !outageReported {
            logger.warning("Lost the connection to gpsd; reconnecting.", metadata: ["reason": "\(reason)"])
            deliver(.unavailable(source: .gpsd, reason: reason))
            outageReported = true
        }
        waitToReconnect()
    }

    private func waitToReconnect() {
        phase = .backoff(until: .now + delay)
        delay = min(delay * 2, backoff.maximum)
    }

    /// Judges the report libgps just read and hands on what it says. Returns whether it was a report about the
    /// receiver's fix (a TPV, believed or not).
    private func handleReport(_ data: UnsafeMutablePointer<gps_data_t>) -> Bool {
        let report = GPSDReport(data)
        switch report.judged(receivedAt: Date()) {
        case .notAFix:
            return false
        case .noFix:
            setNoFix(log: "gpsd reports no fix.")
        case .refused(let problem):
            if problemsLogged.insert(problem.kind).inserted {
                logger.warning(
                    "gpsd reported a fix that cannot be believed; ignoring it and any like it on this connection.",
                    metadata: ["gps.problem": "\(problem.kind.rawValue)", "gps.detail": "\(problem.description)"])
            }
            setNoFix(log: nil)
        case .fix(let fix, let problem):
            let key = FixKey(seconds: report.seconds, nanoseconds: report.nanoseconds, coordinate: fix.coordinate)
            if let lastFix, key.isSameFix(as: lastFix) { return true }
            lastFix = key
            if let problem, problemsLogged.insert(problem.kind).inserted {
                logger.warning(
                    "gpsd's fix times cannot be believed; using the positions without them.",
                    metadata: ["gps.problem": "\(problem.kind.rawValue)", "gps.detail": "\(problem.description)"])
            }
            if fixState != .fix {
                logger.info(
                    "gpsd has a fix.",
                    metadata: [
                        "gps.mode": "\(report.mode)",
                        "gps.accuracy_m": "\(fix.accuracyMeters.map { "\($0)" } ?? "unknown")",
                        "gps.status": "\(report.status)",
                        "gps.satellites_used": "\(report.satellitesUsed)",
                        "gps.device": "\(report.device.isEmpty ? "unnamed" : report.device)",
                    ])
                fixState = .fix
            }
            if handOn.consider(fix) { deliver(.fix(fix)) }
        }
        return true
    }

    /// Hands on the fix kept back, if any.
    private func handOnPending() {
        if let fix = handOn.takePending() { deliver(.fix(fix)) }
    }

    /// Tells the consumer there is no fix, once per change.
    private func setNoFix(log message: Logger.Message?) {
        guard fixState != .noFix else { return }
        // The last fix first, so the consumer's ages from the receiver's last; the next fix is a first one.
        handOnPending()
        handOn.reset()
        if let message { logger.info(message) }
        fixState = .noFix
        deliver(.noFix(source: .gpsd))
    }

    /// Makes reads return at once when nothing is there (the thread waits in poll, never in recv, so a stop
    /// is always seen), and keeps the socket out of any child process, where it would outlive the connection
    /// and keep gpsd talking.
    private func prepareSocket(_ socket: Int32) {
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(socket, F_GETFL)
        if flags >= 0 { _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Text for a libgps error: negative codes are libgps's own (see `gps_errstr`), positive ones are errno values.
    private static func describe(_ code: Int32) -> String {
        if code < 0, let text = gps_errstr(code) { return String(cString: text) }
        if code > 0, let text = strerror(code) { return String(cString: text) }
        return "unknown error \(code)"
    }
}
