import Executors
import Foundation

/// One timer, set for the next moment a time-based judgement falls due and set again after every
/// change: nothing ticks. It sleeps on a NIO event loop timer (``EventLoopSleep``).
///
/// Owned and changed by one actor; `fire` runs on that actor, and is ignored when the timer was set
/// again meanwhile.
struct JudgementTimer {
    private var current: (due: Date, task: Task<Void, Never>)?

    /// The moment the timer is set for, nil when it is not set.
    var due: Date? { current?.due }

    /// Sets the timer for `due` (seen at `now`), unless it is set for that moment already; nil stops it.
    /// `fire` gets the moment it was set for.
    mutating func set(_ due: Date?, now: Date, fire: @escaping @Sendable (Date) async -> Void) {
        guard due != current?.due else { return }
        current?.task.cancel()
        current = due.map { due in
            let delay = max(0, due.timeIntervalSince(now))
            return (
                due,
                Task {
                    try? await EventLoopSleep.sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up))))
                    guard !Task.isCancelled else { return }
                    await fire(due)
                }
            )
        }
    }

    /// Takes a firing: true when it is the one the timer is set for now (the timer is then unset).
    mutating func take(_ fired: Date) -> Bool {
        guard current?.due == fired else { return false }
        current = nil
        return true
    }

    /// Stops the timer.
    mutating func stop() {
        current?.task.cancel()
        current = nil
    }
}
