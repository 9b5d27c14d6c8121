import Foundation

/// The exit of a child process, told by its `Process.terminationHandler`, for code that waits on it: blocking, or
/// async (a cancelled async wait returns at once). Unlike `Process.waitUntilExit()`, which on Linux wakes every
/// 50 ms to look, a wait here sleeps until the exit is told.
final class ProcessExit: @unchecked Sendable {
    // `condition` guards the fields; that is what makes the unchecked Sendable sound.
    private let condition = NSCondition()
    private var exited = false
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// Called from the process's termination handler.
    func signal() {
        condition.lock()
        exited = true
        let waiting = Array(waiters.values)
        waiters.removeAll()
        condition.broadcast()
        condition.unlock()
        for waiter in waiting { waiter.resume() }
    }

    /// Blocks until the process has exited.
    func wait() {
        condition.lock()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// Returns once the process has exited, or at once when the task is cancelled.
    func wait() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                condition.lock()
                let now = exited || Task.isCancelled
                if !now { waiters[id] = continuation }
                condition.unlock()
                if now { continuation.resume() }
            }
        } onCancel: {
            condition.lock()
            let waiter = waiters.removeValue(forKey: id)
            condition.unlock()
            waiter?.resume()
        }
    }
}
