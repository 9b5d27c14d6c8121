import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Sleeps on a timer of NIO's event loop instead of a Dispatch timer.
///
/// `Task.sleep` hands its deadline to libdispatch, whose timer thread on Linux re-arms its timerfd one second
/// ahead for as long as any such sleep is pending: one wakeup a second for a daemon that waits an hour. An
/// event loop of the shared group (the one the HTTP client uses, so no thread is added) arms its timerfd for
/// the deadline itself and sleeps in `epoll_wait` until then.
///
/// A cancelled sleep takes its timer off the loop at once. `Task.sleep` cannot: under ``EventLoopExecutors`` its
/// job is a timer of the loop that stays scheduled, holding the sleeping task's memory, until the deadline passes.
/// A sleep that loses a race (the deadline of a response body that arrived in time) would keep about 1 KB for
/// the whole timeout, per request.
package enum EventLoopSleep {
    /// Returns after `duration`, or throws `CancellationError` as soon as the task is cancelled.
    package static func sleep(
        for duration: Duration, on loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()
    ) async throws {
        // At most ten years, so that the event loop's deadline arithmetic cannot overflow.
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, min(seconds, 315_360_000) * 1_000_000_000 + attoseconds / 1_000_000_000)
        // The scheduled task, or whether cancellation came before it was scheduled.
        let pending = NIOLockedValueBox<(task: Scheduled<Void>?, cancelled: Bool)>((nil, false))
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let task = loop.scheduleTask(in: .nanoseconds(nanoseconds)) {}
                task.futureResult.whenComplete { result in
                    continuation.resume(with: result.mapError { _ in CancellationError() })
                }
                let cancelled = pending.withLockedValue { pending in
                    pending.task = task
                    return pending.cancelled
                }
                if cancelled { task.cancel() }
            }
        } onCancel: {
            pending.withLockedValue { pending in
                pending.cancelled = true
                return pending.task
            }?.cancel()
        }
    }

    /// Returns at `deadline` (at once when it has passed), or throws `CancellationError` as soon as the task is
    /// cancelled.
    package static func sleep(
        until deadline: ContinuousClock.Instant,
        on loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()
    ) async throws {
        try await sleep(for: ContinuousClock.now.duration(to: deadline), on: loop)
    }
}
