import CMosquitto
import Foundation
import Synchronization
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// An ``MQTTClient`` whose socket waits with the daemon's other descriptors: a ``WaitSource`` of the
/// ``DescriptorWaiter``, whose interest is libmosquitto's socket (readable, and writable while output waits), whose
/// deadline is the keep-alive, and whose readiness runs one of libmosquitto's steps (`mosquitto_loop` with a zero timeout). libmosquitto has no thread
/// (never `mosquitto_loop_start`), and nothing polls: an idle connection wakes the waiter for its PINGREQ and the
/// PINGRESP, once per keep-alive interval.
///
/// Every call on the client runs on the waiter's thread, but one: the connect, which blocks in the name lookup and
/// the TCP handshake (for as long as the kernel's SYN retries, two minutes, when the broker's host is gone). It runs
/// on a short thread of its own (`mqtt-connect`), as libgps's does (`gpsd-connect`), so that it holds neither the
/// waiter nor `Blocking`'s one thread; while it runs the source waits on nothing and no other call reaches the
/// client.
///
/// The owner reconnects (with its own backoff) by calling ``connect()`` again after a disconnection.
package final class MQTTConnection: Sendable {
    package let options: MQTTOptions
    /// What the connection says (``MQTTClient/events``).
    package let events: AsyncStream<MQTTEvent>
    private let source: ClientSource

    /// Makes the client and watches its socket; nothing is sent until ``connect()``.
    package init(options: MQTTOptions) throws(MQTTError) {
        let client = try MQTTClient(options: options)
        self.options = options
        events = client.events
        let source = ClientSource(client)
        self.source = source
        let waiter = DescriptorWaiter.shared
        waiter.execute { source.token = waiter.add(source) }
    }

    deinit {
        // Queued after the addition, so the token is there; the client goes (and its socket closes, which makes
        // the broker publish the will) on the waiter once no wait can use it.
        let waiter = DescriptorWaiter.shared
        waiter.execute { [source] in
            if let token = source.token { waiter.remove(token) }
            source.close()
        }
    }

    /// How many times the waiter has called the source (readiness or the keep-alive): for tests that show an idle
    /// connection does not spin.
    package var wakeups: Int { source.wakeups.load(ordering: .relaxed) }

    /// Connects (or reconnects after a lost connection): the name lookup and the TCP connection on the
    /// `mqtt-connect` thread, then the CONNECT queued; the broker's answer arrives as ``MQTTEvent/connected`` or
    /// ``MQTTEvent/connectionRefused(reason:)``. Fails when the broker cannot be reached, or while another connect
    /// runs.
    package func connect() async throws(MQTTError) {
        let source = source
        let result: Result<Void, MQTTError> = await withCheckedContinuation { continuation in
            DescriptorWaiter.shared.execute {
                guard !source.connecting, !source.closed else {
                    let doing = source.closed ? "the connection was closed" : "a connect is under way"
                    return continuation.resume(
                        returning: .failure(MQTTError(code: MOSQ_ERR_INVAL.rawValue, description: "cannot connect: \(doing)")))
                }
                source.connecting = true
                let thread = Thread {
                    cmosquitto_name_this_thread("mqtt-connect")
                    let result = Result { () throws(MQTTError) in try source.client.connect() }
                    DescriptorWaiter.shared.execute {
                        source.connecting = false
                        continuation.resume(returning: result)
                    }
                }
                thread.start()
            }
        }
        try result.get()
    }

    /// Queues `message` (``MQTTClient/publish(_:confirmed:)``).
    package func publish(_ message: MQTTMessage, confirmed: Bool = false) async throws(MQTTError) {
        try await onClient { client throws(MQTTError) in try client.publish(message, confirmed: confirmed) }
    }

    /// Subscribes to `filter` (``MQTTClient/subscribe(_:qos:)``).
    package func subscribe(_ filter: String, qos: Int = 1) async throws(MQTTError) {
        try await onClient { client throws(MQTTError) in try client.subscribe(filter, qos: qos) }
    }

    /// Stops the messages of `filter`.
    package func unsubscribe(_ filter: String) async throws(MQTTError) {
        try await onClient { client throws(MQTTError) in try client.unsubscribe(filter) }
    }

    /// Says goodbye (DISCONNECT: the broker forgets the will); ``MQTTEvent/disconnected(reason:)`` follows with a
    /// nil reason.
    package func disconnect() async {
        _ = try? await onClient { client in client.disconnect() }
    }

    /// Tears the TCP connection down without MQTT's goodbye, as a crash or a pulled cable would (the broker then
    /// publishes the will); libmosquitto finds it closed at its next step. For tests.
    package func dropWithoutGoodbye() async {
        _ = try? await onClient { client in
            if let socket = client.descriptor { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Whether there is a socket (connected, or connecting): false once a lost connection was seen.
    package var hasSocket: Bool {
        get async { (try? await onClient { client in client.descriptor != nil }) ?? false }
    }

    /// Runs `body` on the client, on the waiter's thread; refused while the connect runs on its own thread.
    private func onClient<T: Sendable>(_ body: @escaping @Sendable (MQTTClient) throws(MQTTError) -> T) async throws(MQTTError) -> T {
        let source = source
        let result: Result<T, MQTTError> = await DescriptorWaiter.shared.perform {
            guard !source.connecting, !source.closed else {
                return .failure(MQTTError(code: MOSQ_ERR_NO_CONN.rawValue, description: "not connected to \(source.client.options.brokerDescription)"))
            }
            return Result { () throws(MQTTError) -> T in try body(source.client) }
        }
        return try result.get()
    }
}

/// The client as the waiter sees it. Made, asked and called on the waiter's thread, but for `client.connect()`,
/// which runs on the connect thread while `connecting` keeps the waiter (and every other call) off the client.
private final class ClientSource: WaitSource, @unchecked Sendable {
    let client: MQTTClient
    /// The watch, set on the waiter once the source was added.
    var token: WaitToken?
    var connecting = false
    var closed = false
    let wakeups = Atomic<Int>(0)

    init(_ client: MQTTClient) { self.client = client }

    var interest: (descriptor: Int32, events: Readiness)? {
        guard !connecting, !closed, let socket = client.descriptor else { return nil }
        return (socket, client.wantsWrite ? [.readable, .writable] : .readable)
    }

    var deadline: ContinuousClock.Instant? {
        guard !connecting, !closed else { return nil }
        return client.keepAliveDeadline
    }

    func ready(_ events: Readiness) {
        guard !connecting, !closed else { return }
        wakeups.add(1, ordering: .relaxed)
        if events.isEmpty { return client.misc() }
        if !events.isDisjoint(with: [.readable, .error, .hangUp]) { client.readable() }
        if events.contains(.writable), client.descriptor != nil { client.writable() }
    }

    /// Called once the source is no longer watched: no call reaches the client after this.
    func close() { closed = true }
}
