import Executors
import Foundation
import NIOConcurrencyHelpers

/// The daemon's one timer: a service re-arms it for the moment its next judgement falls due, and one-shot
/// waits (``sleep(for:)``, ``sleep(until:)``) use it too. Both sleep on a timer of NIO's event loops
/// (`EventLoopSleep`), never on libdispatch's, and a cancelled sleep takes its loop timer away at once.
///
/// One timer that a service re-arms for the moment its next judgement falls due.
///
/// ``ring(wake:)`` sleeps until the armed moment and then calls `wake`; ``arm(_:)`` moves the moment,
/// earlier or later, and wakes the sleeper so that an earlier moment is never missed. Nothing polls: with
/// no moment armed the sleeper waits for one. After it rings it waits to be armed again, so a judgement
/// that keeps answering a moment in the past cannot make it spin.
package final class Alarm: Sendable {
    private struct State {
        var deadline: Date?
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Sets the moment to ring at; nil disarms it.
    package func arm(_ deadline: Date?) {
        let waiters = state.withLockedValue { state in
            state.deadline = deadline
            state.generation += 1
            let waiters = state.waiters.values
            state.waiters = [:]
            return Array(waiters)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Rings (calls `wake`) each time an armed moment comes, until the task is cancelled.
    package func ring(wake: @Sendable () -> Void) async {
        var rungGeneration: Int?
        while !Task.isCancelled {
            let (deadline, generation) = state.withLockedValue { ($0.deadline, $0.generation) }
            guard let deadline, generation != rungGeneration else {
                await changed(from: generation)
                continue
            }
            let rang = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    let seconds = max(0, deadline.timeIntervalSinceNow)
                    return (try? await Self.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))) != nil
                }
                group.addTask {
                    await self.changed(from: generation)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if rang, !Task.isCancelled {
                rungGeneration = generation
                wake()
            }
        }
    }

    /// Returns once the alarm is armed again after `generation`, or the task is cancelled.
    private func changed(from generation: Int) async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

extension Alarm {
    /// Returns after `duration` (at once when it is not positive), or throws `CancellationError` as soon as the
    /// task is cancelled, taking its loop timer away (`Task.sleep`'s stays scheduled until its deadline under
    /// the daemon's executors).
    package static func sleep(for duration: Duration) async throws {
        try await EventLoopSleep.sleep(for: duration)
    }

    /// Returns at `deadline` (at once when it has passed), or throws `CancellationError` as soon as the task is
    /// cancelled, taking its loop timer away.
    package static func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await EventLoopSleep.sleep(until: deadline)
    }
}
