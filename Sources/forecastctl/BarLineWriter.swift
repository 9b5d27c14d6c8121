import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `watch`'s lines to standard output, and to a bar reading a pipe, one line at a time: a line that
/// follows another within a moment (a burst) goes out only once the bar has read the one before (the pipe is
/// empty again) and ``settle`` after that.
///
/// Why: polybar up to 3.7.1 (Debian 12's 3.6.1, Ubuntu 24.04's 3.7.1) reads a `tail = true` script's output
/// with one buffered `getline` each time its pipe becomes readable. Two lines that reach the pipe before it
/// reads (a daemon that has just started says "no forecast yet", then the weather a few milliseconds later)
/// are read together: the first is shown and the second stays in polybar's buffer, unseen until the script
/// writes again, which for a weather bar can be an hour (polybar issue #3117, fixed in 3.7.2). And a line
/// that arrives while polybar is still taking in the one before (its cache rebuilt) can be lost the same way:
/// hence the settle after the bar has read, not only after the write (a CI run saw it with the line written the
/// moment the pipe was empty: 1 start-up in 30 here).
///
/// How, without polling: the pipe is shrunk to one page (`F_SETPIPE_SZ`), so that any unread byte fills it
/// and `poll` says POLLOUT only once the reader has emptied it. The wait is at most ``drainLimit``: a bar
/// that reads nothing gets the next line anyway. Nothing waits when standard output is not a pipe (a file,
/// a terminal), or for a line that comes more than ``burst`` after the one before with the pipe empty, which
/// is every line but those of a start-up or a reconnection.
final class BarLineWriter {
    /// How long a bar may take to take in a line once it has read it: polybar's 250 ms poll and its redraw.
    static let settle = Duration.milliseconds(500)
    /// A line sooner than this after the one before is one of a burst: the bar may have read that one only now.
    static let burst = Duration.seconds(2)
    /// The longest wait for a bar to read the line before: a bar that is stuck gets the next line anyway.
    static let drainLimit = Duration.seconds(10)
    /// `F_SETPIPE_SZ` (Linux 2.6.35), which Glibc's Swift module leaves out with the other GNU extensions.
    private static let setPipeSize: Int32 = 1031

    private let descriptor: Int32
    /// Standard output is a pipe of one page: POLLOUT means its reader has read everything.
    private let canWaitForReader: Bool
    private var lastWrite: ContinuousClock.Instant?

    init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        var status = stat()
        let isPipe = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
        // Refused (EBUSY) when more than a page is unread already: the lines then go out as they come.
        canWaitForReader = isPipe && fcntl(descriptor, Self.setPipeSize, Int32(getpagesize())) >= 0
    }

    /// Writes one line and its newline; false when the reader went away (the bar exited).
    func emit(_ line: String) -> Bool {
        if canWaitForReader, let lastWrite { waitForReader(after: lastWrite) }
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        lastWrite = .now
        return true
    }

    /// Waits until the reader has read everything written, and ``settle`` more when that was the line before
    /// of a burst (or the reader was still behind).
    private func waitForReader(after previous: ContinuousClock.Instant) {
        let clock = ContinuousClock()
        if !Self.poll(descriptor, for: .zero) {
            // Unread yet: wait for the reader, then give it time to take the line in.
            _ = Self.poll(descriptor, for: Self.drainLimit)
            Self.sleep(Self.settle)
        } else if previous.duration(to: clock.now) < Self.burst {
            // Read, but perhaps a moment ago.
            Self.sleep(Self.settle)
        }
    }

    /// Whether the pipe is empty (POLLOUT on a one-page pipe) within `timeout`. POLLERR (the reader closed)
    /// counts too: the write then fails and says so.
    private static func poll(_ descriptor: Int32, for timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let left = clock.now.duration(to: deadline)
            let milliseconds = left > .zero ? Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) : 0
            let ready = Glibc.poll(&writable, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var asked = remaining
        while nanosleep(&asked, &remaining) != 0, errno == EINTR { asked = remaining }
    }
}
