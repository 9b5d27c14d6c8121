import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor a ``DescriptorLoop`` watches for a C library that reads it itself (libmosquitto): what to wait for
/// now, and when to be called though nothing came. Made, asked and called on the loop's thread only. The same
/// three members as the daemon's `WaitSource` (docs/ARCHITECTURE.md), so what drives a client here drives it there.
public protocol LoopSource: AnyObject {
    /// The descriptor and the poll(2) events to wait for now (`POLLIN`, `POLLOUT`); nil waits on nothing.
    var interest: (descriptor: Int32, events: Int16)? { get }
    /// When ``ready(_:)`` must be called though nothing arrived; nil for never.
    var deadline: ContinuousClock.Instant? { get }
    /// The descriptor is ready (`revents` not 0) or the deadline has come (`revents` 0). Must not block.
    func ready(_ revents: Int16)
}

/// A test's stand-in for the daemon's descriptor waiter: one thread asleep in poll(2) on its sources' descriptors
/// and a pipe that work handed to it writes to, with the earliest deadline any source asks for as its timeout. Work handed to it
/// (``execute(_:)``, ``run(_:)``) runs on that thread, between waits.
///
/// It counts its wakeups (``wakeups``), so a test can show that an idle connection does not spin.
public final class DescriptorLoop: @unchecked Sendable {
    // `lock` guards `queue` and `stopping`; every other field belongs to the loop's thread.
    private let lock = NSLock()
    private var queue: [@Sendable () -> Void] = []
    private var stopping = false
    /// The pipe's ends: work handed to the loop writes a byte to `wakeWrite`; the loop drains `wake`.
    private let wake: Int32
    private let wakeWrite: Int32
    private var sources: [Int: any LoopSource] = [:]
    private var nextID = 0
    private let finished = DispatchSemaphore(value: 0)
    private let counter = NSLock()
    private var wakeupCount = 0

    /// Starts the loop's thread.
    public init(name: String = "test-loop") {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = ends[0]
        wakeWrite = ends[1]
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    deinit {
        close(wake)
        close(wakeWrite)
    }

    /// How many times poll(2) has returned so far.
    public var wakeups: Int { counter.withLock { wakeupCount } }

    /// Runs `work` on the loop's thread, after the work queued before it.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        lock.withLock { queue.append(work) }
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    /// Runs `work` on the loop's thread and returns what it returns.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            execute { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Watches `source` from the next wait on. On the loop's thread only (inside ``execute(_:)``).
    public func add(_ source: any LoopSource) -> Int {
        nextID += 1
        sources[nextID] = source
        return nextID
    }

    /// Stops watching a source. On the loop's thread only.
    public func remove(_ id: Int) { sources[id] = nil }

    /// Ends the thread once the work queued so far has run, and waits for it.
    public func stop() {
        lock.withLock { stopping = true }
        execute {}
        finished.wait()
    }

    private func run() {
        while true {
            let (work, stop) = lock.withLock { () -> ([@Sendable () -> Void], Bool) in
                defer { queue.removeAll() }
                return (queue, stopping)
            }
            for item in work { item() }
            if stop { break }
            let watched = sources.sorted { $0.key < $1.key }
            var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            var owners: [any LoopSource] = []
            for (_, source) in watched {
                if let interest = source.interest {
                    descriptors.append(pollfd(fd: interest.descriptor, events: interest.events, revents: 0))
                    owners.append(source)
                }
            }
            let now = ContinuousClock.now
            let earliest = watched.compactMap { $0.value.deadline }.min()
            let timeout: Int32 =
                earliest.map { deadline in
                    let wait = now.duration(to: deadline)
                    if wait <= .zero { return 0 }
                    let (seconds, attoseconds) = wait.components
                    return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
                } ?? -1
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
            counter.withLock { wakeupCount += 1 }
            if descriptors[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake, &drain, drain.count) > 0 {}
            }
            for (index, source) in owners.enumerated() where descriptors[index + 1].revents != 0 {
                source.ready(descriptors[index + 1].revents)
            }
            let after = ContinuousClock.now
            for (_, source) in watched {
                if let deadline = source.deadline, deadline <= after { source.ready(0) }
            }
        }
        finished.signal()
    }
}
