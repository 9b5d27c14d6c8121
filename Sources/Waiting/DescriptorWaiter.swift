import CWaiting
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's one thread for the descriptors it does not read through NIO (inotify, rtnetlink, the
/// clock-change timerfd, libgps's socket, each sd-bus connection), asleep in poll(2) on them and on an eventfd,
/// with the earliest deadline any source asks for as its timeout and none when no source has one. Nothing wakes
/// it but data, a deadline a source chose, or work handed to it.
///
/// NIO cannot host these: its loops read a descriptor themselves, while libgps, sd-bus and the kernel's
/// cancel-on-set timerfd want their own reads (docs/ARCHITECTURE.md, "The daemon's threads"). `poll` rather than
/// epoll: the set is small, rebuilt every round as sd-bus requires, and `struct epoll_event` is packed on x86-64,
/// which Swift does not import faithfully.
///
/// Its thread is named `fd-waiter` with prctl, so that `top -H` and /proc show it (a `Thread.name` never reaches
/// the kernel on Linux). It is also a serial executor: an actor that owns a C library's objects runs its jobs
/// here (``OnWaiter``), between two waits.
package final class DescriptorWaiter: SerialExecutor, @unchecked Sendable {
    /// The one waiter; its thread starts at the first use.
    package static let shared = DescriptorWaiter(name: "fd-waiter")

    private enum Work {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    private struct Entry {
        let source: any WaitSource
        /// The past deadline `ready([])` was last called for: it is not called again until the deadline changes.
        var rung: ContinuousClock.Instant?
    }

    private let name: String
    /// Written to wake the thread when work arrives; read (emptied) after every wait.
    private let wakeDescriptor: Int32

    /// Guards `queue`, `started`, `thread` and `kernelThreadID`, the only state other threads touch.
    private let lock = NIOLock()
    private var queue: [Work] = []
    private var started = false
    private var thread: pthread_t?
    private var kernelThreadID: pid_t?
    private var nextToken: UInt64 = 0

    /// The sources watched, touched on the waiter's thread only.
    private var sources: [UInt64: Entry] = [:]
    /// `sources.count`, readable from any thread (for tests and logs).
    private let watchedCount = NIOLockedValueBox(0)
    /// Waits that ended for nothing: no descriptor ready, no deadline rung, no work.
    private let emptyWakeCount = NIOLockedValueBox(0)

    private init(name: String) {
        self.name = name
        let descriptor = cwait_open_wake()
        // Without its eventfd the waiter could not be woken for work: the process is out of descriptors at start.
        precondition(descriptor >= 0, "The descriptor waiter cannot open its eventfd: \(String(cString: strerror(cwait_errno())))")
        wakeDescriptor = descriptor
    }

    /// The thread's kernel id, once it runs (for tests: /proc/self/task/ID).
    package var threadID: pid_t? { lock.withLock { kernelThreadID } }

    /// How many sources are watched.
    package var sourceCount: Int { watchedCount.withLockedValue { $0 } }

    /// How many waits have ended with nothing to do: a timeout that rang no deadline (a source whose deadline
    /// moves each time it is asked, say). For tests that prove nothing polls; 0 in a waiter that works.
    package var emptyWakeups: Int { emptyWakeCount.withLockedValue { $0 } }

    /// Whether the caller runs on the waiter's thread.
    package var isCurrentThread: Bool {
        guard let thread = lock.withLock({ thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    // MARK: Work handed to the thread

    /// Runs `work` on the waiter's thread, after the work queued before it.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    package func checkIsolated() {
        precondition(isCurrentThread, "Expected to run on the descriptor waiter's thread (\(name)).")
    }

    private func submit(_ work: Work) {
        let start = lock.withLock {
            // The eventfd is written only when the queue was empty: the thread takes the whole queue after its
            // next wake, so one write per batch is enough. Written under the lock so that no write lands after
            // the thread has taken the batch it announces (which would wake it once for nothing).
            if queue.isEmpty { cwait_wake(wakeDescriptor) }
            queue.append(work)
            defer { started = true }
            return !started
        }
        if start { startThread() }
    }

    private func startThread() {
        let thread = Thread { [self] in
            cwait_name_this_thread(name)
            lock.withLock {
                self.thread = pthread_self()
                kernelThreadID = cwait_thread_id()
            }
            run()
        }
        thread.start()
        // `isCurrentThread` must be true for the first work item, which runs after the lock block above.
    }

    // MARK: Sources (on the waiter's thread)

    /// Watches `source` from the next wait on. On the waiter's thread only.
    package func add(_ source: any WaitSource) -> WaitToken {
        checkIsolated()
        let token = makeToken()
        sources[token.value] = Entry(source: source, rung: nil)
        watchedCount.withLockedValue { $0 = sources.count }
        return token
    }

    /// Stops watching; the source is never called again after this returns. On the waiter's thread only; a
    /// token already removed is ignored.
    package func remove(_ token: WaitToken) {
        checkIsolated()
        sources[token.value] = nil
        watchedCount.withLockedValue { $0 = sources.count }
    }

    private func makeToken() -> WaitToken {
        lock.withLock {
            nextToken += 1
            return WaitToken(value: nextToken)
        }
    }

    // MARK: The loop

    private func run() {
        var descriptors: [pollfd] = []
        var owners: [UInt64] = []
        while true {
            let work = lock.withLock {
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            for item in work {
                switch item {
                case .closure(let closure): closure()
                case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
                }
            }
            // The work may have queued more (an actor's next job): run it before sleeping.
            if lock.withLock({ !queue.isEmpty }) { continue }

            descriptors.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
            var earliest: ContinuousClock.Instant?
            for (token, entry) in sources {
                if let interest = entry.source.interest {
                    descriptors.append(pollfd(fd: interest.descriptor, events: interest.events.rawValue, revents: 0))
                    owners.append(token)
                }
                if let deadline = entry.source.deadline, deadline != entry.rung {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
            let timeout = earliest.map(Self.milliseconds(until:)) ?? -1
            // Fails only for a signal (EINTR) and a lack of kernel memory (EAGAIN): both go round again.
            let count = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if descriptors[0].revents != 0 { cwait_drain(wakeDescriptor) }
            if count > 0 {
                for (index, token) in owners.enumerated() where descriptors[index + 1].revents != 0 {
                    // Removed by another source's call, or by work: not called.
                    guard let entry = sources[token] else { continue }
                    entry.source.ready(Readiness(returned: descriptors[index + 1].revents))
                }
            }
            let rang = ringDeadlines()
            if count == 0, !rang, lock.withLock({ queue.isEmpty }) { emptyWakeCount.withLockedValue { $0 += 1 } }
        }
    }

    /// Calls `ready([])` for each source whose deadline has passed and was not rung yet; whether any was.
    private func ringDeadlines() -> Bool {
        let now = ContinuousClock.now
        var rang = false
        for token in Array(sources.keys) {
            guard let entry = sources[token], let deadline = entry.source.deadline, deadline <= now,
                deadline != entry.rung
            else { continue }
            sources[token]?.rung = deadline
            rang = true
            entry.source.ready([])
        }
        return rang
    }

    /// poll(2)'s timeout for a deadline: whole milliseconds rounded up (so the wake is never early and the
    /// deadline never rings a millisecond before its time in a loop), 0 for one already passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}

/// Code that must run on the waiter: the owner of a C library's objects that the waiter's sources use.
@globalActor package actor OnWaiter {
    package static let shared = OnWaiter()
    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        DescriptorWaiter.shared.asUnownedSerialExecutor()
    }
}
