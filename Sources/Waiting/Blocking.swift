import NIOPosix

/// The daemon's one thread for work that blocks: fsync (every atomic write), flock, NSS look-ups
/// (`getgrnam_r`, which may ask sssd or LDAP over the network), a blocking connect, SQLite's open, a large
/// read. On an event loop such a call would stall the socket's answers and every Swift task, since the
/// daemon's tasks run on the loops (`EventLoopExecutors`).
///
/// One thread, "blocking0", started at the first call and asleep on a condition variable while idle: one
/// thread, so writes of one file keep the order in which they were handed over.
package enum Blocking {
    /// NIO's pool of one thread. `_makePerpetualStartedPool` because it lives as long as the process (as NIO's
    /// own singleton pool does) and names its thread, so a thread listing says what it is for.
    private static let pool = NIOThreadPool._makePerpetualStartedPool(numberOfThreads: 1, threadNamePrefix: "blocking")

    /// Runs `work` on the blocking thread and returns what it returned (or throws what it threw).
    ///
    /// The work always runs, once, and the caller waits for it whatever its task's cancellation says: a
    /// graceful stop cancels services whose last act is a write (the final `state.json`, the stale status
    /// files), and a write begun must end before the caller goes on (NIO's `runIfActive` would skip it).
    package static func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            pool.submit { _ in
                continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
            }
        }
        return try result.get()
    }
}
