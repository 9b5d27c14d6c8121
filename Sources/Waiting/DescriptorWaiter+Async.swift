extension DescriptorWaiter {
    /// Runs `body` on the waiter's thread and returns what it returns: how async code adds and removes sources,
    /// which are made and kept there.
    package func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            execute { continuation.resume(returning: body()) }
        }
    }
}
