import NIOConcurrencyHelpers

/// The latest value of one thing, readable at once from any thread, and a stream of every later
/// value for each follower.
///
/// One owner sends (the state's actor); any number of followers read. A follower gets the value
/// current when it starts following, then each new one; a slow follower skips to the newest, so
/// nothing queues up behind a reader that does not keep up.
public final class Broadcast<Value: Sendable>: Sendable {
    private struct Storage {
        var value: Value
        var followers: [Int: AsyncStream<Value>.Continuation] = [:]
        /// Followers told only that a value was sent, who read ``value`` themselves when they wake.
        var wakes: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
    }

    private let storage: NIOLockedValueBox<Storage>

    public init(_ initial: Value) {
        storage = NIOLockedValueBox(Storage(value: initial))
    }

    /// The value sent last (the initial one before any).
    public var value: Value { storage.withLockedValue { $0.value } }

    /// Makes `value` the current one and hands it to every follower.
    ///
    /// The value is set and handed out under one lock: a follower that starts meanwhile gets it
    /// exactly once, and followers see the values in the order they were sent.
    public func send(_ value: Value) {
        storage.withLockedValue { storage in
            storage.value = value
            for follower in storage.followers.values { follower.yield(value) }
            for wake in storage.wakes.values { wake.yield() }
        }
    }

    /// The current value, then every new one, until the caller stops iterating.
    public func updates() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id = storage.withLockedValue { storage in
            let id = storage.nextID
            storage.nextID += 1
            storage.followers[id] = continuation
            continuation.yield(storage.value)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLockedValue { $0.followers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields to `wake` each time a value is sent from now on, until ``stopWaking(_:)`` with the id returned:
    /// for a follower of several broadcasts at once, which keeps one stream of wakes (buffering the newest
    /// only) and reads each one's ``value`` when it wakes, so that it holds no value of its own meanwhile.
    public func wake(_ wake: AsyncStream<Void>.Continuation) -> Int {
        storage.withLockedValue { storage in
            let id = storage.nextID
            storage.nextID += 1
            storage.wakes[id] = wake
            return id
        }
    }

    /// Stops yielding to the follower ``wake(_:)`` returned `id` for.
    public func stopWaking(_ id: Int) {
        _ = storage.withLockedValue { $0.wakes.removeValue(forKey: id) }
    }

    /// How many follow now (for tests: a follower that stopped is forgotten).
    public var followerCount: Int { storage.withLockedValue { $0.followers.count + $0.wakes.count } }
}
