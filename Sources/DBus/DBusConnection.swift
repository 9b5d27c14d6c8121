import Foundation
import Waiting

/// Signals as they arrive, for one ``DBusSignalMatch``.
///
/// The sequence ends normally when the connection is closed on this side, and with ``DBusError/disconnected(reason:)``
/// when the bus goes away. Ending the iteration (or cancelling the task that iterates) removes the match from the
/// bus. Signals wait to be read in a buffer of a bounded size (``DBusConnection/defaultSignalBuffer`` unless the
/// subscriber chose another): when it is full the oldest is dropped for the newest, and a ``DBusSignalDrops`` given
/// to ``DBusConnection/signals(matching:buffering:drops:)`` counts them, so a reader that fell behind a burst (a
/// NetworkManager scan announcing fifty access points) knows to read the state afresh instead of trusting the
/// signals it kept.
public typealias DBusSignals = AsyncThrowingStream<DBusMessage, any Error>

/// Counts the signals a subscription dropped because its reader was behind: read with ``take()`` after handling a
/// signal; a non-zero count means some were lost.
public final class DBusSignalDrops: @unchecked Sendable {
    // `lock` guards `count`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var count = 0

    public init() {}

    /// How many were dropped since the last call, resetting the count.
    public func take() -> Int {
        lock.withLock {
            defer { count = 0 }
            return count
        }
    }

    /// How many were dropped since the last ``take()``, leaving the count as it is.
    public var pending: Int { lock.withLock { count } }

    func add() {
        lock.withLock { count += 1 }
    }
}

/// A client connection to a D-Bus bus, through libsystemd's sd-bus.
///
/// The connection is a source of the daemon's one descriptor waiter (`fd-waiter`, see ``BusSource``), whose thread
/// does all of the bus work between its waits: a connection adds no source. Calls and signal streams hand work to
/// the waiter and await the answer, never blocking a thread for it. Cancelling a task that awaits a call withdraws
/// the call at once. ``close()`` ends the connection; so does dropping the last reference to it.
///
/// ```swift
/// let bus = try await DBusConnection.connect(address: DBusAddress.session())
/// let reply = try await bus.call(DBusMethodCall(
///     destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
///     interface: "org.freedesktop.DBus", member: "ListNames"))
/// ```
public final class DBusConnection: Sendable {
    /// The name the bus gave this connection (`:1.42`).
    public let uniqueName: String
    /// The address connected to.
    public let address: String
    private let source: BusSource

    private init(uniqueName: String, address: String, source: BusSource) {
        self.uniqueName = uniqueName
        self.address = address
        self.source = source
    }

    deinit {
        source.stop()
    }

    /// Connects to the bus at `address` (`unix:path=/run/user/1000/bus`) and returns once the bus has accepted
    /// the connection (authenticated it and given it a name).
    public static func connect(address: String) async throws(DBusError) -> DBusConnection {
        let source = BusSource()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, DBusError>, Never>) in
                source.start(address: address) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            source.stop()
        }
        return DBusConnection(uniqueName: try result.get(), address: address, source: source)
    }

    /// Connects to the system bus (see ``DBusAddress/system(environment:)`` for how it is found).
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws(DBusError) -> DBusConnection
    {
        try await connect(address: DBusAddress.system(environment: environment))
    }

    /// Connects to the session bus (see ``DBusAddress/session(environment:)`` for how it is found).
    public static func session(environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws(DBusError) -> DBusConnection
    {
        try await connect(address: DBusAddress.session(environment: environment))
    }

    /// Whether the connection is still open: not closed on this side and not lost.
    public var isOpen: Bool { source.endReason == nil }

    /// Why the connection ended (``DBusError/closed`` when closed on this side), or nil while it is open.
    public var endReason: DBusError? { source.endReason }

    /// How often the descriptor waiter has been woken for this connection (data, a deadline): for tests that prove
    /// an idle connection costs no wake-ups.
    package var waiterWakeups: Int { source.wakeups }

    /// Whether the descriptor waiter watches the connection's descriptor: true while open, false once ended (for
    /// tests that check a closed connection leaves nothing behind).
    package var isWatched: Bool {
        get async {
            let source = source
            return await DescriptorWaiter.shared.perform { source.isWatched }
        }
    }

    /// Calls a method and returns its reply.
    ///
    /// - Parameter timeout: how long to wait for the reply; sd-bus's default (25 s) when nil. A call that times
    ///   out fails with ``DBusError/remote(name:message:)`` named ``DBusErrorName/noReply``.
    /// - Throws: ``DBusError/remote(name:message:)`` when the peer answers with an error, with the error's D-Bus
    ///   name; ``DBusError/invalidArgument(_:)`` before sending anything when an argument cannot be sent;
    ///   ``DBusError/cancelled`` when the task is cancelled; ``DBusError/disconnected(reason:)`` or
    ///   ``DBusError/closed`` when the connection ends first.
    public func call(_ call: DBusMethodCall, timeout: Duration? = nil) async throws(DBusError) -> DBusMessage {
        for argument in call.arguments { try argument.validate() }
        let timeoutMicroseconds = timeout.map(Self.microseconds) ?? 0
        let token = source.makeToken()
        let gate = RequestGate()
        let source = source
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>) in
                let accepted = source.submit { state in
                    state.startCall(
                        token: token, call: call, timeoutMicroseconds: timeoutMicroseconds, gate: gate,
                        continuation: continuation)
                }
                if !accepted { continuation.resume(returning: .failure(source.endReason ?? .closed)) }
            }
        } onCancel: {
            if gate.cancel() { source.submit { $0.cancel(token: token) } }
        }
        // The caller may hold no other reference while it waits: closing the connection in deinit then would fail
        // the very call it waits for.
        withExtendedLifetime(self) {}
        return try result.get()
    }

    /// Sends a method call without waiting for a reply (its `NO_REPLY_EXPECTED` flag set, so the peer sends none).
    /// Unlike ``call(_:timeout:)`` it goes out even from a cancelled task: what a client must say on its way out
    /// (GeoClue's `Stop`, so no location icon stays lit) is said whatever ended the work. Whether the peer did it is
    /// not known; a failure to send is dropped with the message.
    ///
    /// - Throws: ``DBusError/invalidArgument(_:)`` when an argument cannot be sent; ``DBusError/closed`` or why the
    ///   connection ended when it has.
    public func send(_ call: DBusMethodCall) throws(DBusError) {
        for argument in call.arguments { try argument.validate() }
        guard source.submit({ state in state.send(call) }) else { throw source.endReason ?? .closed }
    }

    /// How many signals a subscription keeps unread unless told otherwise: more than any burst the peers forecastd
    /// follows send in the time it takes to handle one (NetworkManager announces a scan's access points one signal
    /// each), few enough that a reader stuck for hours holds kilobytes, not a growing queue.
    public static let defaultSignalBuffer = 64

    /// Starts receiving the signals that `match` describes. Returns once the bus has the match rule in place,
    /// so no signal sent after this returns is missed.
    ///
    /// - Parameters:
    ///   - buffering: how many unread signals to keep (at least 1); past it the oldest goes.
    ///   - drops: counts the signals dropped that way, for a reader that must know it missed some.
    public func signals(
        matching match: DBusSignalMatch, buffering: Int = DBusConnection.defaultSignalBuffer,
        drops: DBusSignalDrops? = nil
    ) async throws(DBusError) -> DBusSignals {
        let (stream, continuation) = DBusSignals.makeStream(bufferingPolicy: .bufferingNewest(max(1, buffering)))
        let token = source.makeToken()
        let gate = RequestGate()
        let source = source
        continuation.onTermination = { _ in
            source.submit { $0.unsubscribe(token: token) }
        }
        let installed = await withTaskCancellationHandler {
            await withCheckedContinuation { (installed: CheckedContinuation<Result<Void, DBusError>, Never>) in
                let accepted = source.submit { state in
                    state.subscribe(
                        token: token, match: match, stream: continuation, drops: drops, gate: gate,
                        installed: installed)
                }
                if !accepted {
                    continuation.finish()
                    installed.resume(returning: .failure(source.endReason ?? .closed))
                }
            }
        } onCancel: {
            if gate.cancel() { source.submit { $0.cancel(token: token) } }
        }
        withExtendedLifetime(self) {}
        try installed.get()
        return stream
    }

    /// Closes the connection: calls still waiting fail with ``DBusError/closed``, signal streams end. Returns once
    /// the socket is closed and the waiter no longer watches it. Closing again does nothing.
    public func close() async {
        source.stop()
        await source.waitUntilFinished()
    }

    private static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let total = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        if total.overflow { return UInt64.max - 1 }
        // sd-bus reads 0 as "the default timeout": never round a positive duration down to it.
        return max(1, total.partialValue + UInt64(attoseconds / 1_000_000_000_000))
    }
}
