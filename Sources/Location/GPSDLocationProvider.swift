import CGPS
import ForecastModel
import Foundation
import Logging

/// Positions from gpsd, read through libgps on a dedicated thread.
///
/// `run` connects to gpsd, asks it to stream JSON reports and turns usable TPV reports into
/// ``LocationEvent/fix(_:)``s; reports that cannot be believed (see ``GPSDReport/judged(receivedAt:)``) are refused.
/// Not every fix is handed on: one that changes nothing the daemon judges is kept, and handed on after
/// `handOnInterval` or before the fix is said to be lost (``GPSDHandOn``), since every hand-on wakes the daemon.
/// When gpsd is absent or goes away it reports ``LocationEvent/unavailable(source:reason:)`` once per outage and
/// keeps reconnecting with exponential backoff. Connecting through libgps blocks (name lookup, connect), so all of
/// this runs on a thread of its own, never on the Swift concurrency pool. The thread sleeps in poll(2) on gpsd's socket and a stop descriptor, with no timeout
/// (between reconnections, on the stop descriptor until the backoff ends): it wakes only when gpsd sends something,
/// and cancelling the calling task wakes it at once to close the connection.
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

    /// The hand-on interval for a consumer that judges a fix no longer fresh after `maxFixAge`: at most 5 s, and
    /// at most half of `maxFixAge`, so a fix handed on late can never look stale while newer ones are coming.
    public static func handOnInterval(maxFixAge: Duration) -> Duration {
        min(.seconds(5), maxFixAge / 2)
    }

    /// `handOnInterval` zero hands every new fix on.
    public init(
        host: String = "localhost", port: Int = 2947, backoff: Backoff = Backoff(),
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

    /// Reads gpsd until the calling task is cancelled. Returns once the reader thread has closed the connection
    /// and can deliver nothing more.
    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        guard let stop = StopSignal() else {
            let reason = "Cannot make a descriptor to stop the gpsd reader: \(String(cString: strerror(cgps_errno())))."
            logger.error("gpsd will not be read.", metadata: ["reason": "\(reason)"])
            deliver(.unavailable(source: .gpsd, reason: reason))
            // `run` lasts until cancelled, whatever happens: a stream that is never fed ends with the task.
            let (cancelled, continuation) = AsyncStream<Never>.makeStream()
            for await _ in cancelled {}
            continuation.finish()
            return
        }
        let host = host
        let port = port
        let backoff = backoff
        let handOnInterval = handOnInterval
        let logger = logger
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    // Named after the port so that `top -H` (and the tests) can tell one reader from another;
                    // Linux keeps 15 characters of a thread name.
                    cgps_name_this_thread("gpsd:\(port)")
                    let reader = GPSDReader(
                        host: host, port: port, backoff: backoff, handOnInterval: handOnInterval, logger: logger, stop: stop,
                        deliver: deliver)
                    reader.run()
                    finished.resume()
                }
                thread.start()
            }
        } onCancel: {
            stop.stop()
        }
    }
}

/// Wakes the reader thread to stop, and the one place it waits: gpsd's socket, the backoff, or nothing, always
/// together with this signal's own descriptor (an eventfd). Nothing wakes the thread but data, a deadline it
/// chose, or the stop.
final class StopSignal: Sendable {
    /// What ended a wait.
    enum Wake {
        case stopped
        case readable
        case deadline
    }

    private let descriptor: Int32

    init?() {
        let descriptor = cgps_wakeup_descriptor()
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Wakes every wait, now and later. Safe from any thread, any number of times.
    func stop() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Whether ``stop()`` has been called (a wait that returns at once).
    var isStopped: Bool { wait(readable: nil, until: .now) == .stopped }

    /// Blocks until `socket` is readable (or has failed), ``stop()`` is called, or `deadline` passes (nil: never).
    /// A stop wins over everything else that is ready.
    func wait(readable socket: Int32?, until deadline: ContinuousClock.Instant?) -> Wake {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero {
                    timeout = 0
                } else {
                    // Rounded up, so the wait never ends before the deadline and has to be repeated.
                    let (seconds, attoseconds) = remaining.components
                    let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                    timeout = Int32(clamping: milliseconds)
                }
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                // A signal interrupted the wait: wait again for what is left. Any other failure (ENOMEM) must
                // not become a busy loop, so it counts as the descriptors being ready and the callers read.
                if cgps_errno() == EINTR { continue }
                return socket == nil ? .deadline : .readable
            }
            if descriptors[0].revents != 0 { return .stopped }
            if ready > 0 { return .readable }
            if timeout >= 0 { return .deadline }
        }
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs and logs.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// The body of the reader thread: connect, stream, reconnect. Lives on that one thread only.
private final class GPSDReader {
    /// How many reports to read in a row before looking at the stop signal: a peer that never stops sending
    /// cannot keep the reader from stopping.
    private static let reportsBetweenStopChecks = 64

    private let host: String
    private let port: Int
    private let backoff: GPSDLocationProvider.Backoff
    private let logger: Logger
    private let stop: StopSignal
    private let deliver: @Sendable (LocationEvent) -> Void

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

    private enum StreamEnd {
        case stopped
        case lost(reason: String)
    }

    private var fixState = FixState.unknown
    private var lastFix: FixKey?
    /// Which fixes to hand on, and the newest one kept back.
    private var handOn: GPSDHandOn
    /// The kinds of implausible data already logged on this connection: each is logged once, not per report.
    private var problemsLogged: Set<GPSDProblem.Kind> = []

    init(
        host: String, port: Int, backoff: GPSDLocationProvider.Backoff, handOnInterval: Duration, logger: Logger,
        stop: StopSignal, deliver: @escaping @Sendable (LocationEvent) -> Void
    ) {
        self.host = host
        self.port = port
        self.backoff = backoff
        self.handOn = GPSDHandOn(interval: handOnInterval)
        self.logger = logger
        self.stop = stop
        self.deliver = deliver
    }

    func run() {
        // gps_data_t is tens of kilobytes: allocate it once, zeroed, for the whole life of the thread.
        guard let data = cgps_new() else {
            logger.error("Could not allocate memory for libgps; gpsd will not be read.")
            deliver(.unavailable(source: .gpsd, reason: "Could not allocate memory for libgps."))
            // `run` must last until cancelled, whatever happens here.
            _ = stop.wait(readable: nil, until: nil)
            return
        }
        defer { cgps_free(data) }

        var delay = backoff.initial
        var outageReported = false
        while !stop.isStopped {
            let opened = cgps_open(host, String(port), data)
            guard opened == 0 else {
                // The struct is unusable now (gps_fd holds an error code): touch nothing but a fresh open.
                let reason = "Cannot connect to gpsd at \(host):\(port): \(Self.describe(opened))."
                if !outageReported {
                    logger.warning(
                        "gpsd is unavailable; retrying with backoff.",
                        metadata: ["reason": "\(reason)", "retry.max_delay_s": "\(backoff.maximum.seconds)"])
                    deliver(.unavailable(source: .gpsd, reason: reason))
                    outageReported = true
                }
                if stop.wait(readable: nil, until: .now + delay) == .stopped { break }
                delay = min(delay * 2, backoff.maximum)
                continue
            }

            prepareSocket(cgps_fd(data))
            fixState = .unknown
            lastFix = nil
            handOn.reset()
            problemsLogged = []
            let end: StreamEnd
            var carriedFixReports = false
            if cgps_stream_json(data) != 0 {
                end = .lost(reason: "gpsd at \(host):\(port) did not accept the request to stream reports.")
            } else {
                logger.info("Connected to gpsd.", metadata: ["libgps.api": "\(GPSDReport.libgpsAPI)"])
                deliver(.connected(source: .gpsd))
                outageReported = false
                end = stream(data, carriedFixReports: &carriedFixReports)
            }
            cgps_close(data)

            guard case .lost(let reason) = end else { break }
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
            if stop.wait(readable: nil, until: .now + delay) == .stopped { break }
            delay = min(delay * 2, backoff.maximum)
        }
        logger.debug("Stopped reading from gpsd.")
    }

    /// Reads reports until the connection fails or the provider is stopped, sleeping in poll(2) between them.
    private func stream(_ data: UnsafeMutablePointer<gps_data_t>, carriedFixReports: inout Bool) -> StreamEnd {
        let socket = cgps_fd(data)
        var untilStopCheck = Self.reportsBetweenStopChecks
        while true {
            // gpsd drops clients that fall behind, so read everything there is before waiting again. libgps
            // keeps what one recv brought beyond the first line, so the socket alone does not say when it is
            // all read: a read that finds no complete line does.
            var error: Int32 = 0
            let count = cgps_read(data, &error)
            if count < 0 {
                if error == 0 { return .lost(reason: "gpsd at \(host):\(port) closed the connection.") }
                return .lost(reason: "Reading from gpsd at \(host):\(port) failed: \(Self.describe(error)).")
            }
            if count > 0 {
                if handleReport(data) { carriedFixReports = true }
                // libgps never clears `set`; without this an old TPV would look new after the next SKY.
                cgps_clear_set(data)
                untilStopCheck -= 1
                if untilStopCheck == 0 {
                    if stop.isStopped { return .stopped }
                    untilStopCheck = Self.reportsBetweenStopChecks
                }
                continue
            }
            untilStopCheck = Self.reportsBetweenStopChecks
            // With a fix kept back, wait no longer than its hand-on is due: gpsd may have fallen silent. (Never
            // longer than 1.5 intervals, whatever a wall clock set back makes of the deadline.)
            let flushAt = handOn.flushDeadline.map { deadline in
                let wait = min(max(0, deadline.timeIntervalSinceNow), handOn.interval.seconds * 1.5)
                return ContinuousClock.now + .seconds(wait)
            }
            switch stop.wait(readable: socket, until: flushAt) {
            case .stopped: return .stopped
            case .deadline: handOnPending()
            case .readable: break
            }
        }
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
