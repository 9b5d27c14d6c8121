import Foundation

/// The recorded receiver logs and provider responses under `Tests/Fixtures`, found from this
/// source file's location so tests work from any clone without resource bundles.
public enum Fixtures {
    /// The repository's root directory.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    public static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures")

    /// A fixture's URL, e.g. `url("nmea/gpslim236.log")`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// A fixture's bytes; throws when it is missing so a test fails with the path in the message.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}

/// Runs blocking work (a blocking socket client, waiting for a process, seconds of computing) on a thread of its own.
///
/// The Swift concurrency pool has one thread per core (two here): a test that blocks it, or computes on it for
/// seconds, holds up every other test's awaits for that long when the suite runs in parallel (the servers they
/// talk to, and the deadlines they time, among them). On a thread of its own it shares the cores instead.
/// Expectations belong after the await: an issue recorded on that thread would belong to no test.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

