@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Swift concurrency's executors for forecastd's programs: NIO's event loops and the main thread, no libdispatch.
///
/// On Linux the runtime's own executors are libdispatch's global concurrent queues and its main queue. Once the
/// worker pool behind those queues has started one thread, libdispatch arms a timer that fires every second for the
/// rest of the process (`_dispatch_workq_monitor_pools`, which counts runnable workers in /proc): a daemon that
/// should sleep until it has work wakes once a second for nothing. (Serial queues made with `DispatchQueue(label:)`
/// use the overcommit pool, which is not monitored; their idle threads exit after a few seconds.)
///
/// Here every job of the global executor runs on an event loop of NIO's shared group, which the daemon's HTTP
/// client, socket server and timers use already, and a delayed job (`Task.sleep`) is a timer of that loop: its
/// threads sleep in `epoll_wait` with no timeout until there is work. A job enqueued from an event loop stays on
/// that loop, and one from any other thread goes to one "home" loop, so a chain of tasks and actor hops wakes
/// one thread. The main actor's jobs run on the main thread, which waits on a condition variable.
///
/// A program installs these with `typealias DefaultExecutorFactory = EventLoopExecutors` in its main file; the
/// runtime creates them before the first task starts. (Swift 6.3 keeps this hook behind
/// `@_spi(ExperimentalCustomExecutors)`, and on Linux emits the call only when availability checking is off for
/// the main file: see the `forecastd` target in Package.swift.)
package enum EventLoopExecutors: ExecutorFactory {
    package static var mainExecutor: any MainExecutor { MainThreadExecutor.shared }
    package static var defaultExecutor: any TaskExecutor { EventLoopTaskExecutor.shared }
}

/// Runs jobs on the event loops of a NIO group, now or after a delay.
package final class EventLoopTaskExecutor: TaskExecutor, SchedulingExecutor {
    /// The executor on NIO's shared group (`MultiThreadedEventLoopGroup.singleton`).
    package static let shared = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)

    /// The longest delay handed to an event loop: ten years, so that its deadline arithmetic cannot overflow.
    private static let longestDelayNanoseconds: Int64 = 315_360_000 * 1_000_000_000

    private let group: any EventLoopGroup
    /// Where jobs from threads outside the group go (the main thread, gpsd's reader): always the same loop, so
    /// that the work a fix or a signal starts, and the timers it re-arms, stay on one thread. Spread over the
    /// loops, each fix woke two of them (a timer armed on one loop and cancelled from the other wakes both).
    private let home: any EventLoop

    package init(group: any EventLoopGroup) {
        self.group = group
        self.home = group.next()
    }

    /// The loop this thread runs, when it runs one of the group's (no other thread is woken), else the home loop.
    private var loop: any EventLoop {
        let current = group.any()
        return current.inEventLoop ? current : home
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    package func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
        let job = UnownedJob(job)
        loop.scheduleTask(in: .nanoseconds(Self.nanoseconds(delay))) {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    package func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    /// A delay in nanoseconds, between zero and ten years. The runtime asks with the continuous and suspending
    /// clocks, whose durations are `Duration`s; another clock's duration cannot be read, and its job runs at once
    /// (a sleep that ends early, never one that never ends).
    private static func nanoseconds<D: DurationProtocol>(_ delay: D) -> Int64 {
        guard let delay = delay as? Duration, delay > .zero else { return 0 }
        let (seconds, attoseconds) = delay.components
        guard seconds < longestDelayNanoseconds / 1_000_000_000 else { return longestDelayNanoseconds }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Runs the main actor's jobs on the thread that calls ``run()`` (the main thread, for the runtime), which sleeps
/// on a condition variable while there are none.
package final class MainThreadExecutor: MainExecutor, @unchecked Sendable {
    /// The program's main executor.
    package static let shared = MainThreadExecutor()

    /// True while jobs or a stop are waiting for the running thread. Guards every property below.
    private let pending = ConditionLock(value: false)
    /// Guarded by `pending`.
    private var jobs: [UnownedJob] = []
    /// Guarded by `pending`.
    private var stopRequested = false
    /// The thread inside ``run()``, for the isolation checks. Guarded by `pending`.
    private var runningThread: pthread_t?

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pending.lock()
        jobs.append(job)
        pending.unlock(withValue: true)
    }

    package func run() throws {
        try runUntil { false }
    }

    package func runUntil(_ condition: () -> Bool) throws {
        pending.lock()
        runningThread = pthread_self()
        stopRequested = false
        pending.unlock()
        defer {
            pending.lock()
            runningThread = nil
            pending.unlock()
        }
        while !condition() {
            pending.lock(whenValue: true)
            let batch = jobs
            jobs = []
            let stop = stopRequested
            stopRequested = false
            pending.unlock(withValue: false)
            if stop { return }
            for job in batch {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }

    package func stop() {
        pending.lock()
        stopRequested = true
        pending.unlock(withValue: true)
    }

    package var isMainExecutor: Bool { true }

    package func checkIsolated() {
        precondition(isOnRunningThread, "Expected to run on the main thread (the thread running MainThreadExecutor).")
    }

    package func isIsolatingCurrentContext() -> Bool? {
        isOnRunningThread
    }

    private var isOnRunningThread: Bool {
        pending.lock()
        defer { pending.unlock() }
        guard let runningThread else { return false }
        return pthread_equal(runningThread, pthread_self()) != 0
    }
}
