import CMosquitto
import Foundation

/// An MQTT client over libmosquitto, driven from outside: no thread of its own, no timed polling.
/// ``MQTTConnection`` makes its socket a source of the descriptor waiter; this type only says what to wait for and
/// is told when it came:
/// - ``descriptor`` (nil between connections) and ``wantsWrite``: wait for the descriptor to be readable, and
///   writable too while there is output (a publish that did not fit in the socket's buffer, the CONNECT of a TLS
///   connection still shaking hands);
/// - ``keepAliveDeadline``: when ``misc()`` must run though nothing arrived (it sends the PINGREQ, or gives up on a
///   broker that did not answer the last one);
/// - ``readable()``, ``writable()``, ``misc()``: one step each, which never blocks.
///
/// ``connect()`` blocks (name lookup and TCP connect; the TLS handshake and the CONNECT finish in the steps), so it
/// runs off the waiter, while nothing else uses the client. The connection's events (``events``) come out of the
/// steps: libmosquitto's callbacks yield them into a bounded stream and return.
///
/// Not thread-safe: one thread at a time, which ``MQTTConnection`` ensures.
package final class MQTTClient: @unchecked Sendable {
    package let options: MQTTOptions
    /// What the connection says, oldest first; the oldest are dropped when ``MQTTOptions/eventBuffer`` wait unread.
    package let events: AsyncStream<MQTTEvent>

    private let handle: OpaquePointer
    private let sink: CallbackSink
    /// The last packet in and out, on libmosquitto's clock (CLOCK_MONOTONIC, the suspending clock on Linux).
    private var lastIn: SuspendingClock.Instant?
    private var lastOut: SuspendingClock.Instant?

    /// libmosquitto 2.0.11, the version of Debian 12, is the oldest this is built and tested against.
    package static let headerVersion = Int(cmosquitto_header_version())

    /// The version of the libmosquitto loaded at run time: `2.0.11`.
    package static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// `mosquitto_lib_init` once per process (it sets up OpenSSL), before the first client.
    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    /// Makes a client for `options`; nothing is sent until ``connect()``.
    package init(options: MQTTOptions) throws(MQTTError) {
        _ = Self.libraryReady
        guard (5...65535).contains(options.keepAliveSeconds) else {
            throw MQTTError(
                code: MOSQ_ERR_INVAL.rawValue,
                description: "keep-alive of \(options.keepAliveSeconds) s is outside 5 to 65535 s")
        }
        self.options = options
        let (events, continuation) = AsyncStream.makeStream(
            of: MQTTEvent.self, bufferingPolicy: .bufferingNewest(max(1, options.eventBuffer)))
        self.events = events
        sink = CallbackSink(continuation: continuation, maximumMessageBytes: options.maximumMessageBytes)
        guard let handle = mosquitto_new(options.clientID, true, Unmanaged.passUnretained(sink).toOpaque()) else {
            throw MQTTError(code: MOSQ_ERR_NOMEM.rawValue, description: "libmosquitto could not make a client")
        }
        self.handle = handle
        do {
            try configure()
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    deinit {
        // Closes the socket without a DISCONNECT (the broker then publishes the will) and frees the client; no
        // callback runs after this, so the sink may go.
        mosquitto_destroy(handle)
        sink.continuation.finish()
    }

    private func configure() throws(MQTTError) {
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "choosing MQTT 5")
        if let username = options.username {
            try check(mosquitto_username_pw_set(handle, username, options.password?.value), "setting the user name")
        }
        switch options.tls {
        case nil: break
        case .systemStore:
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "choosing the system's CA store")
        case .caFile(let path):
            try check(mosquitto_tls_set(handle, path, nil, nil, nil, nil), "reading the CA file \(path)")
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain, nil)
            }
            try check(rc, "setting the last will on \(will.topic)")
        }
        mosquitto_connect_v5_callback_set(handle) { _, context, reason, _, _ in
            CallbackSink.from(context).connected(reason: reason)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, context, reason, _ in
            CallbackSink.from(context).disconnected(reason: reason)
        }
        mosquitto_publish_v5_callback_set(handle) { _, context, mid, _, _ in
            CallbackSink.from(context).published(mid: mid)
        }
        mosquitto_message_v5_callback_set(handle) { _, context, message, _ in
            guard let message else { return }
            CallbackSink.from(context).received(message.pointee)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            CallbackSink.from(context).logged(String(cString: text))
        }
    }

    // MARK: Connecting

    /// Looks the broker up, opens the TCP connection and queues the CONNECT (with the will, the credentials and the
    /// largest packet this client takes); the broker's answer arrives through the steps as ``MQTTEvent/connected``
    /// or ``MQTTEvent/connectionRefused(reason:)``. Blocks for the name lookup and the TCP handshake: call it off
    /// the event loops, while no step runs. Calling it again after a lost connection reconnects.
    package func connect() throws(MQTTError) {
        sink.lastLibraryError = nil
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        // Room for the fixed header, the topic (up to 64 KiB) and the properties besides the payload.
        let largestPacket = UInt32(clamping: options.maximumMessageBytes + 65_536 + 1024)
        try check(
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), largestPacket),
            "setting the largest packet")
        let rc = mosquitto_connect_bind_v5(
            handle, options.host, Int32(options.port), Int32(options.keepAliveSeconds), nil, properties)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(code: rc, description: "cannot reach \(options.brokerDescription): \(describe(rc))")
        }
        let now = SuspendingClock.now
        lastIn = now
        lastOut = now
    }

    /// Sends DISCONNECT (the broker then forgets the will) and closes the connection once it is written;
    /// ``MQTTEvent/disconnected(reason:)`` follows with a nil reason.
    package func disconnect() {
        _ = mosquitto_disconnect_v5(handle, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), nil)
        lastOut = SuspendingClock.now
    }

    // MARK: What to wait for

    /// The socket to wait on, nil while there is no connection.
    package var descriptor: Int32? {
        let socket = mosquitto_socket(handle)
        return socket >= 0 ? socket : nil
    }

    /// Whether output is waiting for the socket to take it (wait for it to be writable too).
    package var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// When ``misc()`` must run though nothing arrived, nil while there is no connection.
    ///
    /// libmosquitto sends a PINGREQ once a keep-alive interval has passed since the last packet out, or since the
    /// last packet in, and closes the connection when the previous PINGREQ is still unanswered. It counts in whole
    /// seconds of CLOCK_MONOTONIC, so the deadline is a second after the interval (then libmosquitto always finds
    /// it due), converted to the continuous clock each time it is asked (the two clocks part while the machine
    /// sleeps). While idle this is one wakeup per keep-alive interval, plus one for the PINGRESP.
    package var keepAliveDeadline: ContinuousClock.Instant? {
        guard descriptor != nil, let lastIn, let lastOut else { return nil }
        let due = min(lastIn, lastOut) + .seconds(options.keepAliveSeconds + 1)
        return ContinuousClock.now + SuspendingClock.now.duration(to: due)
    }

    // MARK: Steps

    /// Reads what the socket holds: packets, the broker's answers, messages (yielded as events).
    package func readable() {
        let rc = step(reading: true)
        lastIn = SuspendingClock.now
        settle(rc)
    }

    /// Writes what waits for the socket.
    package func writable() {
        let rc = step(reading: false)
        lastOut = SuspendingClock.now
        settle(rc)
    }

    /// One step: `mosquitto_loop` with a zero timeout, whose select(2) on the socket the waiter has just found
    /// ready returns at once. Not `mosquitto_loop_read`/`_write`: in libmosquitto 2.0.11 only `mosquitto_loop`
    /// continues a TLS handshake that the connect left pending (its `want_connect` branch; the disassembly of
    /// `mosquitto_loop_read` shows no such call), so a handshake slower than the connect never finished
    /// (MQTTClientTests' TLS test waited 10 s for an answer once under load).
    ///
    /// `mosquitto_loop` refuses a socket that select(2) cannot hold (glibc's FD_SETSIZE, 1024: a daemon serving
    /// thousands of socket clients may reach it), and a refused step would leave the waiter spinning on a ready
    /// socket; there the plain steps run, which do everything but continue a pending TLS handshake.
    private func step(reading: Bool) -> Int32 {
        sink.disconnectReported = false
        if let socket = descriptor, socket >= 1024 {
            return reading ? mosquitto_loop_read(handle, 1) : mosquitto_loop_write(handle, 1)
        }
        return mosquitto_loop(handle, 0, 1)
    }

    /// The keep-alive: at ``keepAliveDeadline``, sends a PINGREQ, or closes a connection whose broker did not
    /// answer the last one (``MQTTEvent/disconnected(reason:)``).
    package func misc() {
        _ = mosquitto_loop_misc(handle)
        let now = SuspendingClock.now
        lastIn = now
        lastOut = now
    }

    /// A failed step has closed the connection and called the disconnect callback already (libmosquitto's
    /// `mosquitto__loop_rc_handle`); nothing is left to do but to stop timing a connection that is gone.
    private func settle(_ rc: Int32) {
        if rc != MOSQ_ERR_SUCCESS.rawValue, descriptor == nil {
            lastIn = nil
            lastOut = nil
            // A handshake that failed in `mosquitto_loop` closes the socket without the disconnect callback.
            if !sink.disconnectReported { sink.disconnected(reason: rc) }
        }
    }

    // MARK: Messages

    /// Queues `message` and writes what the socket takes now (the rest when ``wantsWrite``); fails without a
    /// connection, for a topic MQTT does not allow, or for a message larger than the broker takes. `confirmed`
    /// (QoS 1 or 2): ``MQTTEvent/delivered`` follows the broker's acknowledgement. libmosquitto holds back the QoS 1
    /// messages beyond the broker's receive maximum until earlier ones are acknowledged, and drops what it holds at
    /// a disconnection: a goodbye waits for the last message's confirmation first.
    package func publish(_ message: MQTTMessage, confirmed: Bool = false) throws(MQTTError) {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(
                handle, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos), message.retain,
                nil)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(code: rc, description: "cannot publish to \(message.topic): \(describe(rc))")
        }
        if confirmed, message.qos > 0 { sink.awaited.insert(mid) }
        lastOut = SuspendingClock.now
    }

    /// Subscribes to `filter` (wildcards allowed); retained messages on it arrive as events.
    package func subscribe(_ filter: String, qos: Int = 1) throws(MQTTError) {
        let rc = mosquitto_subscribe_v5(handle, nil, filter, Int32(qos), 0, nil)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(code: rc, description: "cannot subscribe to \(filter): \(describe(rc))")
        }
        lastOut = SuspendingClock.now
    }

    /// Stops the messages of `filter`.
    package func unsubscribe(_ filter: String) throws(MQTTError) {
        let rc = mosquitto_unsubscribe_v5(handle, nil, filter, nil)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(code: rc, description: "cannot unsubscribe from \(filter): \(describe(rc))")
        }
        lastOut = SuspendingClock.now
    }

    // MARK: Errors

    private func check(_ rc: Int32, _ doing: String) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw MQTTError(code: rc, description: "\(doing) failed: \(describe(rc))")
    }

    /// libmosquitto's sentence for `rc`, with errno's for system errors and OpenSSL's last complaint for TLS.
    private func describe(_ rc: Int32) -> String {
        CallbackSink.describe(rc, libraryError: sink.lastLibraryError)
    }
}

/// What libmosquitto's callbacks reach through their user data: the events' continuation and the size bound.
/// The callbacks run inside the client's steps, on the thread that calls them.
private final class CallbackSink: @unchecked Sendable {
    let continuation: AsyncStream<MQTTEvent>.Continuation
    let maximumMessageBytes: Int
    /// The last error libmosquitto logged (OpenSSL's reason for a refused handshake), for the next event.
    var lastLibraryError: String?
    /// Whether the disconnect callback ran in the current step.
    var disconnectReported = false
    /// The message ids published `confirmed` whose acknowledgement has not come.
    var awaited: Set<Int32> = []

    init(continuation: AsyncStream<MQTTEvent>.Continuation, maximumMessageBytes: Int) {
        self.continuation = continuation
        self.maximumMessageBytes = maximumMessageBytes
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> CallbackSink {
        Unmanaged<CallbackSink>.fromOpaque(context!).takeUnretainedValue()
    }

    func connected(reason: Int32) {
        if reason == 0 {
            continuation.yield(.connected)
        } else {
            continuation.yield(.connectionRefused(reason: String(cString: mosquitto_reason_string(reason))))
        }
    }

    func disconnected(reason: Int32) {
        disconnectReported = true
        awaited = []
        continuation.yield(
            .disconnected(reason: reason == 0 ? nil : Self.describe(reason, libraryError: lastLibraryError)))
        lastLibraryError = nil
    }

    /// A QoS 1 or 2 message was acknowledged (a QoS 0 one written): said only for one published `confirmed`.
    func published(mid: Int32) {
        guard awaited.remove(mid) != nil else { return }
        continuation.yield(.delivered)
    }

    func received(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let length = Int(message.payloadlen)
        guard length <= maximumMessageBytes else {
            continuation.yield(.oversized(topic: topic, bytes: length))
            return
        }
        let payload =
            message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        continuation.yield(
            .message(MQTTMessage(topic: topic, payload: payload, retain: message.retain, qos: Int(message.qos))))
    }

    func logged(_ text: String) {
        // Only its first line and 300 bytes: enough for OpenSSL's reason, never a flood.
        lastLibraryError = String(text.prefix { $0 != "\n" }.prefix(300))
    }

    /// MQTT 5 reason codes (0x80 and up, from the broker) and libmosquitto's own codes (below 0x80) in words.
    static func describe(_ rc: Int32, libraryError: String?) -> String {
        var text: String
        if rc >= 0x80 {
            text = String(cString: mosquitto_reason_string(rc))
        } else if rc == MOSQ_ERR_ERRNO.rawValue {
            text = String(cString: strerror(cmosquitto_errno()))
        } else if rc == MOSQ_ERR_KEEPALIVE.rawValue {
            // libmosquitto 2.0.11 has no sentence for it.
            text = "The broker did not answer within the keep-alive interval."
        } else {
            text = String(cString: mosquitto_strerror(rc))
        }
        if text == "Unknown error." { text = "libmosquitto error \(rc)." }
        guard let libraryError, rc == MOSQ_ERR_TLS.rawValue || rc == MOSQ_ERR_ERRNO.rawValue
            || rc == MOSQ_ERR_CONN_LOST.rawValue || rc == MOSQ_ERR_PROTOCOL.rawValue
        else { return text }
        return "\(text) (\(libraryError))"
    }
}
