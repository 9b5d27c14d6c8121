import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `watch`'s lines to standard output, and to a bar reading a pipe, one line at a time: the next
/// line goes out only once the bar has read the one before (the pipe is empty again), and at least
/// ``spacing`` after it.
///
/// Why: polybar up to 3.7.1 (Debian 12's 3.6.1, Ubuntu 24.04's 3.7.1) reads a `tail = true` script's output
/// with one buffered `getline` each time its pipe becomes readable. Two lines that reach the pipe before it
/// reads (a daemon that has just started says "no forecast yet", then the weather a few milliseconds later)
/// are read together: the first is shown and the second stays in polybar's buffer, unseen until the script
/// writes again, which for a weather bar can be an hour (polybar issue #3117, fixed in 3.7.2). A redraw
/// that is still going on when the next line arrives can lose that line as well; the spacing covers it.
///
/// How, without polling: the pipe is shrunk to one page (`F_SETPIPE_SZ`), so that any unread byte fills it
/// and `poll` says POLLOUT only once the reader has emptied it. The wait is at most ``drainLimit``: a bar
/// that reads nothing gets the next line anyway. Nothing waits when standard output is not a pipe (a file,
/// a terminal), or when the previous line is older than the spacing and already read, which is every line
/// but those of a burst.
final class BarLineWriter {
    /// The least time between two lines written to a pipe: more than polybar's 250 ms poll, and its redraw.
    static let spacing = Duration.milliseconds(300)
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

    /// Waits until `spacing` has passed since `previous` and the reader has taken everything written.
    private func waitForReader(after previous: ContinuousClock.Instant) {
        let clock = ContinuousClock()
        let earliest = previous.advanced(by: Self.spacing)
        if clock.now < earliest {
            let (seconds, attoseconds) = clock.now.duration(to: earliest).components
            var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var asked = remaining
            while nanosleep(&asked, &remaining) != 0, errno == EINTR { asked = remaining }
        }
        // POLLOUT on a one-page pipe: empty. POLLERR (the reader closed) ends the wait too; the write then fails.
        let deadline = clock.now.advanced(by: Self.drainLimit)
        var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while clock.now < deadline {
            let milliseconds = Int32(clock.now.duration(to: deadline).components.seconds * 1000 + 1)
            let ready = poll(&writable, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return
        }
    }
}
