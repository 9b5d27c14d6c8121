import Foundation
import MQTT

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

/// A connection on the daemon's descriptor waiter, with the waiting tests need: the next event, or the next one of
/// a kind.
final class MQTTTestClient: Sendable {
    let connection: MQTTConnection
    let log = EventLog()

    init(_ options: MQTTOptions) throws {
        connection = try MQTTConnection(options: options)
        // The stream alone, not the connection: the stream ends when the connection goes.
        Task { [events = connection.events, log] in
            for await event in events { await log.append(event) }
        }
    }

    func connect() async throws { try await connection.connect() }

    func publish(_ message: MQTTMessage, confirmed: Bool = false) async throws {
        try await connection.publish(message, confirmed: confirmed)
    }

    func subscribe(_ filter: String) async throws { try await connection.subscribe(filter, qos: 1) }

    func disconnect() async { await connection.disconnect() }

    /// Tears the TCP connection down without MQTT's goodbye (the broker then publishes the will).
    func crash() async { await connection.dropWithoutGoodbye() }

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
