import Foundation
import MQTT
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Drives an ``MQTTClient`` from a test's ``DescriptorLoop``, as the daemon's descriptor waiter will: these few
/// lines are the whole of what a waiter needs to know of the client.
final class ClientSource: LoopSource, @unchecked Sendable {
    let client: MQTTClient
    init(_ client: MQTTClient) { self.client = client }

    var interest: (descriptor: Int32, events: Int16)? {
        guard let socket = client.descriptor else { return nil }
        return (socket, Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0))
    }

    var deadline: ContinuousClock.Instant? { client.keepAliveDeadline }

    func ready(_ revents: Int16) {
        if revents == 0 { return client.misc() }
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { client.readable() }
        if revents & Int16(POLLOUT) != 0, client.descriptor != nil { client.writable() }
    }
}

/// The events of a client as they came, and a reader that waits for the next one up to a deadline.
actor EventLog {
    private var events: [MQTTEvent] = []
    private var cursor = 0
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    func append(_ event: MQTTEvent) {
        events.append(event)
        for waiter in waiters.values { waiter.resume() }
        waiters = [:]
    }

    /// Every event so far.
    var all: [MQTTEvent] { events }

    /// The next event not read yet, nil when none comes before `deadline`.
    func next(before deadline: ContinuousClock.Instant) async -> MQTTEvent? {
        while cursor >= events.count {
            if ContinuousClock.now >= deadline { return nil }
            let id = UUID()
            await withCheckedContinuation { continuation in
                waiters[id] = continuation
                Task {
                    try? await Task.sleep(until: deadline)
                    self.expire(id)
                }
            }
        }
        defer { cursor += 1 }
        return events[cursor]
    }

    private func expire(_ id: UUID) { waiters.removeValue(forKey: id)?.resume() }
}

/// A client on a loop of its own, with the waiting tests need: the next event, or the next one of a kind.
final class MQTTTestClient: @unchecked Sendable {
    let client: MQTTClient
    let loop: DescriptorLoop
    let log = EventLog()

    init(_ options: MQTTOptions) throws {
        client = try MQTTClient(options: options)
        loop = DescriptorLoop(name: "mqtt-test")
        let source = ClientSource(client)
        loop.execute { [loop] in _ = loop.add(source) }
        // The stream alone, not the client: the stream ends when the client goes.
        Task { [events = client.events, log] in
            for await event in events { await log.append(event) }
        }
    }

    deinit { loop.stop() }

    /// Connects on the loop's thread (blocking it, as the daemon's blocking thread would be).
    func connect() async throws {
        try await loop.run { [client] in try client.connect() }
    }

    func publish(_ message: MQTTMessage) async throws {
        try await loop.run { [client] in try client.publish(message) }
    }

    func subscribe(_ filter: String) async throws {
        try await loop.run { [client] in try client.subscribe(filter, qos: 1) }
    }

    func disconnect() async throws {
        try await loop.run { [client] in client.disconnect() }
    }

    /// Tears the TCP connection down without MQTT's goodbye, as a crash or a pulled cable would (the broker then
    /// publishes the will); libmosquitto keeps its descriptor and finds the connection closed.
    func crash() async throws {
        try await loop.run { [client] in
            if let socket = client.descriptor { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// The next event that `matches` within `timeout` (those before it are passed over), nil when none came.
    func next(timeout: Duration = .seconds(10), where matches: (MQTTEvent) -> Bool = { _ in true }) async
        -> MQTTEvent?
    {
        let deadline = ContinuousClock.now + timeout
        while let event = await log.next(before: deadline) {
            if matches(event) { return event }
        }
        return nil
    }

    func nextMessage(timeout: Duration = .seconds(10)) async -> MQTTMessage? {
        let event = await next(timeout: timeout) { if case .message = $0 { true } else { false } }
        if case .message(let message) = event { return message }
        return nil
    }

    /// The broker's answer to the CONNECT: `.connected`, `.connectionRefused`, or `.disconnected` when the
    /// connection ended first (a refused TLS handshake).
    func answer(timeout: Duration = .seconds(10)) async -> MQTTEvent? {
        await next(timeout: timeout) {
            switch $0 {
            case .connected, .connectionRefused, .disconnected: true
            default: false
            }
        }
    }

    /// The reason of the next disconnection (nil inside when this client asked); nil when none came.
    func disconnected(timeout: Duration = .seconds(10)) async -> String?? {
        let event = await next(timeout: timeout) { if case .disconnected = $0 { true } else { false } }
        if case .disconnected(let reason) = event { return .some(reason) }
        return nil
    }
}
