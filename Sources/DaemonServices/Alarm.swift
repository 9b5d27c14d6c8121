import DaemonState
import Executors
import Foundation
import NIOConcurrencyHelpers

/// One timer that a service re-arms for the moment its next judgement falls due.
///
/// ``ring(wake:)`` sleeps until the armed moment and then calls `wake`; ``arm(_:)`` moves the moment,
/// earlier or later, and wakes the sleeper so that an earlier moment is never missed. Nothing polls: with
/// no moment armed the sleeper waits for one. After it rings it waits to be armed again, so a judgement
/// that keeps answering a moment in the past cannot make it spin.
final class Alarm: Sendable {
    private struct State {
        var deadline: Date?
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Sets the moment to ring at; nil disarms it.
    func arm(_ deadline: Date?) {
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
    func ring(wake: @Sendable () -> Void) async {
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
                    return (try? await EventLoopSleep.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))) != nil
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
    /// Calls `judge` now and again whenever `state` publishes a report or applies settings, or this alarm
    /// rings, until the task is cancelled; `judge` arms the alarm for its next moment. `group` runs further
    /// tasks for as long (a notifier's event stream).
    func follow(_ state: ForecastState, _ judge: (inout DiscardingTaskGroup) async -> Void) async {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in await state.subscribe() { wake.yield() } }
            group.addTask { for await _ in state.settings.updates() { wake.yield() } }
            group.addTask { await self.ring { wake.yield() } }
            for await _ in wakes {
                await judge(&group)
            }
            group.cancelAll()
        }
    }
}
