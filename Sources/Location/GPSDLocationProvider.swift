import CGPS
import ForecastModel
import Foundation
import Logging

/// Positions from gpsd, read through libgps on a dedicated thread.
///
/// `run` connects to gpsd, asks it to stream JSON reports and turns each usable TPV report into a
/// ``LocationEvent/fix(_:)``. When gpsd is absent or goes away it reports ``LocationEvent/unavailable(source:reason:)``
/// once per outage and keeps reconnecting with exponential backoff. libgps blocks, so all of this runs on a thread
/// of its own, never on the Swift concurrency pool; cancelling the calling task stops the thread within about
/// a quarter of a second and closes the connection.
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
    private let logger: Logger

    public init(host: String = "localhost", port: Int = 2947, backoff: Backoff = Backoff(), logger: Logger) {
        self.host = host
        self.port = port
        self.backoff = backoff
        var logger = logger
        logger[metadataKey: "gpsd.host"] = "\(host)"
        logger[metadataKey: "gpsd.port"] = "\(port)"
        self.logger = logger
    }

    /// Reads gpsd until the calling task is cancelled. Returns once the reader thread has closed the connection
    /// and can deliver nothing more.
    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        let stop = StopSignal()
        let host = host
        let port = port
        let backoff = backoff
        let logger = logger
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    // Named after the port so that `top -H` (and the tests) can tell one reader from another;
                    // Linux keeps 15 characters of a thread name.
                    cgps_name_this_thread("gpsd:\(port)")
                    let reader = GPSDReader(
                        host: host, port: port, backoff: backoff, logger: logger, stop: stop, deliver: deliver)
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

/// A flag the reader thread polls, and a sleep that the flag cuts short.
final class StopSignal: @unchecked Sendable {
    // NSCondition guards `stopped`; that is what makes the unchecked Sendable sound.
    private let condition = NSCondition()
    private var stopped = false

    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps for `duration` or until stopped, whichever comes first; returns whether stopped.
    func sleep(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !condition.wait(until: deadline) { break }
        }
        return stopped
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// The body of the reader thread: connect, stream, reconnect. Lives on that one thread only.
private final class GPSDReader {
    /// How long one wait for gpsd's next line may last. It bounds how quickly cancellation is noticed;
    /// at gpsd's usual 1 Hz it costs about four wake-ups a second, which is idle for a daemon.
    private static let pollMicroseconds: Int32 = 250_000

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
        var seconds: Int
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

    init(
        host: String, port: Int, backoff: GPSDLocationProvider.Backoff, logger: Logger, stop: StopSignal,
        deliver: @escaping @Sendable (LocationEvent) -> Void
    ) {
        self.host = host
        self.port = port
        self.backoff = backoff
        self.logger = logger
        self.stop = stop
        self.deliver = deliver
    }

    func run() {
        // gps_data_t is about 24 kB: allocate it once, zeroed, for the whole life of the thread.
        guard let raw = calloc(1, MemoryLayout<gps_data_t>.size) else {
            logger.error("Could not allocate memory for libgps; gpsd will not be read.")
            deliver(.unavailable(source: .gpsd, reason: "Could not allocate memory for libgps."))
            // `run` must last until cancelled, whatever happens here.
            while !stop.sleep(for: .seconds(3600)) {}
            return
        }
        defer { free(raw) }
        let data = raw.bindMemory(to: gps_data_t.self, capacity: 1)

        var delay = backoff.initial
        var outageReported = false
        while !stop.isStopped {
            let opened = gps_open(host, String(port), data)
            guard opened == 0 else {
                // The struct is unusable now (gps_fd holds an error code): touch nothing but a fresh gps_open.
                let reason = "Cannot connect to gpsd at \(host):\(port): \(Self.describe(cgps_errno()))."
                if !outageReported {
                    logger.warning(
                        "gpsd is unavailable; retrying with backoff.",
                        metadata: ["reason": "\(reason)", "retry.max_delay_s": "\(backoff.maximum.seconds)"])
                    deliver(.unavailable(source: .gpsd, reason: reason))
                    outageReported = true
                }
                if stop.sleep(for: delay) { break }
                delay = min(delay * 2, backoff.maximum)
                continue
            }

            prepareSocket(fd: data.pointee.gps_fd)
            fixState = .unknown
            lastFix = nil
            let end: StreamEnd
            var receivedAnything = false
            if gps_stream(data, cgps_watch_json(), nil) != 0 {
                end = .lost(reason: "gpsd at \(host):\(port) did not accept the request to stream reports.")
            } else {
                logger.info("Connected to gpsd.")
                deliver(.connected(source: .gpsd))
                outageReported = false
                end = stream(data, receivedAnything: &receivedAnything)
            }
            gps_close(data)

            guard case .lost(let reason) = end else { break }
            // A connection that carried reports was a working one: start the backoff afresh. One that gpsd
            // closed at once keeps growing the delay, so a gpsd that refuses clients is not hammered.
            if receivedAnything { delay = backoff.initial }
            if !outageReported {
                logger.warning("Lost the connection to gpsd; reconnecting.", metadata: ["reason": "\(reason)"])
                deliver(.unavailable(source: .gpsd, reason: reason))
                outageReported = true
            }
            if stop.sleep(for: delay) { break }
            delay = min(delay * 2, backoff.maximum)
        }
        logger.debug("Stopped reading from gpsd.")
    }

    /// Reads reports until the connection fails or the provider is stopped.
    private func stream(_ data: UnsafeMutablePointer<gps_data_t>, receivedAnything: inout Bool) -> StreamEnd {
        while !stop.isStopped {
            // gpsd drops clients that fall behind, so read whenever there is anything to read.
            guard gps_waiting(data, Self.pollMicroseconds) else { continue }
            let count = gps_read(data, nil, 0)
            if count < 0 {
                let code = cgps_errno()
                if code == 0 { return .lost(reason: "gpsd at \(host):\(port) closed the connection.") }
                return .lost(reason: "Reading from gpsd at \(host):\(port) failed: \(Self.describe(code)).")
            }
            if count == 0 {
                // Only part of a line has arrived. gps_waiting would now return true at once, so wait on the
                // socket for the rest instead of spinning.
                waitReadable(fd: data.pointee.gps_fd)
                continue
            }
            receivedAnything = true
            handleReport(data)
            // libgps never clears `set`; without this an old TPV would look new after the next SKY.
            data.pointee.set = 0
        }
        return .stopped
    }

    private func handleReport(_ data: UnsafeMutablePointer<gps_data_t>) {
        guard data.pointee.set & MODE_SET != 0 else { return }
        let fix = data.pointee.fix
        guard fix.mode >= MODE_2D else {
            reportNoFix(message: "gpsd reports no fix.")
            return
        }
        let coordinate = Coordinate(latitude: fix.latitude, longitude: fix.longitude)
        guard coordinate.isPlausible else {
            // NaN or (0, 0) with a 2D/3D mode: a receiver glitch, not a position.
            reportNoFix(message: "gpsd reports a fix at an implausible position; ignoring it.")
            return
        }
        let key = FixKey(seconds: fix.time.tv_sec, nanoseconds: fix.time.tv_nsec, coordinate: coordinate)
        if let lastFix, key.isSameFix(as: lastFix) { return }
        lastFix = key

        let horizontalErrors = [fix.epx, fix.epy].filter { $0.isFinite && $0 >= 0 }
        let accuracy = fix.eph.isFinite && fix.eph >= 0 ? fix.eph : horizontalErrors.max()
        let fixTime =
            key.seconds == 0 && key.nanoseconds == 0
            ? nil : Date(timeIntervalSince1970: Double(key.seconds) + Double(key.nanoseconds) / 1e9)
        let locationFix = LocationFix(
            coordinate: coordinate, source: .gpsd, accuracyMeters: accuracy,
            altitudeMeters: fix.altMSL.isFinite ? fix.altMSL : nil, fixTime: fixTime, receivedAt: Date())
        if fixState != .fix {
            logger.info(
                "gpsd has a fix.",
                metadata: ["gps.mode": "\(fix.mode)", "gps.accuracy_m": "\(accuracy.map { "\($0)" } ?? "unknown")"])
            fixState = .fix
        }
        deliver(.fix(locationFix))
    }

    private func reportNoFix(message: Logger.Message) {
        guard fixState != .noFix else { return }
        logger.info(message)
        fixState = .noFix
        deliver(.noFix(source: .gpsd))
    }

    /// Bounds how long libgps's blocking `recv` may wait, so a half-sent line cannot hold the thread past a stop,
    /// and keeps the socket out of any child process, where it would outlive gps_close and keep gpsd talking.
    private func prepareSocket(fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var timeout = timeval(tv_sec: 0, tv_usec: Int(Self.pollMicroseconds))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private func waitReadable(fd: Int32) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Self.pollMicroseconds / 1000)
    }

    /// Text for a libgps error: negative codes are libgps's own (see `gps_errstr`), positive ones are errno values.
    private static func describe(_ code: Int32) -> String {
        if code < 0, let text = gps_errstr(code) { return String(cString: text) }
        if code > 0, let text = strerror(code) { return String(cString: text) }
        return "unknown error \(code)"
    }
}
