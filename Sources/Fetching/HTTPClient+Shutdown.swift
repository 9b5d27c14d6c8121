import AsyncHTTPClient
import Dispatch

extension HTTPClient {
    /// The queue ``shutdownOffGlobalPool()`` is called back on. A serial queue runs its jobs on libdispatch's
    /// *overcommit* pool, which starts no monitor.
    private static let shutdownQueue = DispatchQueue(label: "forecastd.http-client.shutdown")

    /// Shuts the client down, its callback on a serial queue of our own.
    ///
    /// async-http-client's `shutdown()` (the async one and the future one alike) calls back on
    /// `DispatchQueue.global()`: that job starts a worker of libdispatch's global concurrent pool, whose first
    /// worker arms the monitor that wakes the process every second (docs/ARCHITECTURE.md, "Why a custom
    /// executor"). At the daemon's stop that worker lived a few milliseconds before the process exited, so it cost
    /// little, but it is the one job the daemon gave the global pool (`GlobalPoolTests` caught it in CI), and the
    /// rule is none.
    package func shutdownOffGlobalPool() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            shutdown(queue: Self.shutdownQueue) { error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
    }
}
