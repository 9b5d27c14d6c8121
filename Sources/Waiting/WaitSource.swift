#if canImport(Glibc)
    import Glibc
#endif

/// The events a source waits for, and those it is told of: poll(2)'s bits.
package struct Readiness: OptionSet, Sendable, Hashable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    package static let readable = Readiness(rawValue: Int16(POLLIN))
    package static let writable = Readiness(rawValue: Int16(POLLOUT))
    /// An error on the descriptor, or a descriptor that is not open (POLLNVAL): the source should clear its interest.
    package static let error = Readiness(rawValue: Int16(POLLERR))
    package static let hangUp = Readiness(rawValue: Int16(POLLHUP))

    /// What poll(2) returned for a descriptor, in these terms (POLLNVAL becomes `error`).
    init(returned revents: Int16) {
        var readiness = Readiness(rawValue: revents & (Int16(POLLIN) | Int16(POLLOUT) | Int16(POLLERR) | Int16(POLLHUP)))
        if revents & Int16(POLLNVAL) != 0 { readiness.insert(.error) }
        self = readiness
    }
}

/// A descriptor the ``DescriptorWaiter`` watches for a C library or the kernel, which reads it itself (inotify,
/// rtnetlink, a timerfd, libgps, sd-bus).
///
/// Lives on the waiter's thread: made, asked and called there only, which is why it need not be Sendable.
package protocol WaitSource: AnyObject {
    /// Asked before every wait: the descriptor and what to wait for now; nil waits on no descriptor (between
    /// connections, say).
    var interest: (descriptor: Int32, events: Readiness)? { get }
    /// Asked before every wait and after every call: when ``ready(_:)`` must be called though nothing arrived;
    /// nil for never.
    var deadline: ContinuousClock.Instant? { get }
    /// Called on the waiter's thread when the descriptor is ready (`events` not empty) or the deadline has come
    /// (`events` empty). Must not block: read what is there, hand it on, return. A source that cannot progress
    /// clears its interest; one whose deadline is still the same past instant after this call is not called for
    /// it again until the deadline changes (no spinning).
    func ready(_ events: Readiness)
}

/// What ``DescriptorWaiter/add(_:)`` returns, to remove the source again. Sendable, so that the code that asks
/// for a watch from another thread can end it later.
package struct WaitToken: Hashable, Sendable {
    let value: UInt64
}
