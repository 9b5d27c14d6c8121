import Foundation

/// Signals as they arrive, for one ``DBusSignalMatch``.
///
/// The sequence ends normally when the connection is closed on this side, and with ``DBusError/disconnected(reason:)``
/// when the bus goes away. Ending the iteration (or cancelling the task that iterates) removes the match from the
/// bus. Signals are buffered without a bound until they are read: the peers forecastd listens to send a handful.
public typealias DBusSignals = AsyncThrowingStream<DBusMessage, any Error>

/// A client connection to a D-Bus bus, through libsystemd's sd-bus.
///
/// One thread of its own per connection does all of the bus work and sleeps in poll() on the bus's descriptor
/// whenever there is nothing to do (see ``BusThread``); calls and signal streams hand work to it and await the
/// answer. Cancelling a task that awaits a call withdraws the call at once. ``close()`` ends the connection and
/// the thread; so does dropping the last reference to the connection.
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
    private let thread: BusThread

    private init(uniqueName: String, address: String, thread: BusThread) {
        self.uniqueName = uniqueName
        self.address = address
        self.thread = thread
    }

    deinit {
        thread.stop()
    }

    /// Connects to the bus at `address` (`unix:path=/run/user/1000/bus`) and returns once the bus has accepted
    /// the connection (authenticated it and given it a name).
    public static func connect(address: String) async throws(DBusError) -> DBusConnection {
        let thread = try BusThread()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, DBusError>, Never>) in
                thread.start(address: address) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            thread.stop()
        }
        return DBusConnection(uniqueName: try result.get(), address: address, thread: thread)
    }

    /// Connects to the session bus (see ``DBusAddress/session(environment:)`` for how it is found).
    public static func session(environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws(DBusError) -> DBusConnection
    {
        try await connect(address: DBusAddress.session(environment: environment))
    }

    /// Whether the connection is still open: not closed on this side and not lost.
    public var isOpen: Bool { thread.endReason == nil }

    /// Why the connection ended (``DBusError/closed`` when closed on this side), or nil while it is open.
    public var endReason: DBusError? { thread.endReason }

    /// The kernel ID of the connection's bus thread, for tests that check it sleeps and exits.
    package var busThreadID: pid_t? { thread.threadID }

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
        let token = thread.makeToken()
        let gate = RequestGate()
        let thread = thread
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>) in
                let accepted = thread.submit { state in
                    state.startCall(
                        token: token, call: call, timeoutMicroseconds: timeoutMicroseconds, gate: gate,
                        continuation: continuation)
                }
                if !accepted { continuation.resume(returning: .failure(thread.endReason ?? .closed)) }
            }
        } onCancel: {
            if gate.cancel() { thread.submit { $0.cancel(token: token) } }
        }
        // The caller may hold no other reference while it waits: closing the connection in deinit then would fail
        // the very call it waits for.
        withExtendedLifetime(self) {}
        return try result.get()
    }

    /// Starts receiving the signals that `match` describes. Returns once the bus has the match rule in place,
    /// so no signal sent after this returns is missed.
    public func signals(matching match: DBusSignalMatch) async throws(DBusError) -> DBusSignals {
        let (stream, continuation) = DBusSignals.makeStream(bufferingPolicy: .unbounded)
        let token = thread.makeToken()
        let gate = RequestGate()
        let thread = thread
        continuation.onTermination = { _ in
            thread.submit { $0.unsubscribe(token: token) }
        }
        let installed = await withTaskCancellationHandler {
            await withCheckedContinuation { (installed: CheckedContinuation<Result<Void, DBusError>, Never>) in
                let accepted = thread.submit { state in
                    state.subscribe(
                        token: token, match: match, stream: continuation, gate: gate, installed: installed)
                }
                if !accepted {
                    continuation.finish()
                    installed.resume(returning: .failure(thread.endReason ?? .closed))
                }
            }
        } onCancel: {
            if gate.cancel() { thread.submit { $0.cancel(token: token) } }
        }
        withExtendedLifetime(self) {}
        try installed.get()
        return stream
    }

    /// Closes the connection: calls still waiting fail with ``DBusError/closed``, signal streams end. Returns once
    /// the bus thread has closed the socket and finished its work; the thread itself exits right after. Closing
    /// again does nothing.
    public func close() async {
        thread.stop()
        await thread.waitUntilFinished()
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
