import Executors
import Testing

/// Runs a test's tasks and its default actors on the daemon's executor (NIO's singleton event loops), as in
/// production, instead of Swift's default (libdispatch's pool).
///
/// `Programs/forecastd/main.swift` installs `EventLoopExecutors` for the whole process; a test process cannot
/// (the executor factory is read once, by the test runner's `main`), so the suites of the daemon's targets
/// prefer the same executor for everything they start: child tasks and actors without an executor of their own
/// follow the preference (SE-0417). Sources start no unstructured task (`scripts/check-substrate`), so what the
/// daemon's code starts in a test runs where it runs in production: its actors on the loops, its timers the
/// loops' timers. Recursive: `@Suite(.onEventLoops)` covers the suite's nested suites and every test case.
package struct OnEventLoops: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(EventLoopTaskExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OnEventLoops {
    /// Runs the suite's or test's tasks on the daemon's event loops, as in production (``OnEventLoops``).
    package static var onEventLoops: Self { .init() }
}
