import CSDBus
import Foundation
import Waiting

/// One sd-bus connection as a source of the daemon's descriptor waiter (`fd-waiter`, Sources/Waiting), whose thread
/// does all of the connection's work: no thread of its own.
///
/// sd-bus objects must not be used from two threads at once, so everything that touches the connection runs on the
/// waiter's thread: jobs handed over through ``submit(_:)`` run there as work of the waiter, and the waiter calls
/// ``ready(_:)`` when the bus's descriptor is ready for the events `sd_bus_get_events` asks for, or when the deadline
/// `sd_bus_get_timeout` gives has come (which is how method call timeouts fire). Nothing wakes the waiter otherwise:
/// an idle connection costs no wake-ups at all.
///
/// Every job that ``submit(_:)`` accepts runs exactly once: normally, or, once the connection has ended, with
/// ``BusState/endReason`` set so that it fails at once instead of touching the bus.
final class BusSource: WaitSource, @unchecked Sendable {
    // `lock` guards the fields below it, the only ones other threads touch; the rest is touched on the waiter's
    // thread only. That is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var accepting = true
    private var stopRequested = false
    /// Why the connection ended, set as soon as it is known, before anything waiting hears about it.
    private var endedReason: DBusError?
    /// Set once the connection is closed and every request waiting on it answered.
    private var finished = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextToken: UInt64 = 0
    private var readyCalls = 0

    private enum Phase {
        case idle
        case connecting
        case open(BusState)
        case ended(BusState?)

        var state: BusState? {
            switch self {
            case .open(let state): state
            case .ended(let state): state
            case .idle, .connecting: nil
            }
        }
    }

    // On the waiter's thread only.
    private var phase = Phase.idle
    private var address = ""
    private var token: WaitToken?
    /// Told once: the unique name when the handshake completes, or why the connection failed.
    private var whenReady: (@Sendable (Result<String, DBusError>) -> Void)?
    /// sd-bus's last deadline and the instant it was converted to: the same instant for as long as sd-bus gives the
    /// same deadline and nothing has run, so that the waiter rings a past one only once (its rule against spinning).
    private var convertedTimeout: (microseconds: UInt64, instant: ContinuousClock.Instant)?
    /// Set when ``ready(_:)`` stopped with work left (``processBudget``): a past instant, so the next wait returns at
    /// once, after the other sources have had their turn.
    private var backlogAt: ContinuousClock.Instant?

    /// sd_bus_process calls per ``ready(_:)``: each handles one message at most, and a flood of signals must not keep
    /// the waiter from its other sources.
    private static let processBudget = 64

    private var waiter: DescriptorWaiter { .shared }

    /// Connects to `address` and calls `ready` once, on the waiter's thread, with the connection's unique name, or
    /// with why it could not connect (``DBusError/cancelled`` when ``stop()`` came first).
    func start(address: String, ready: @escaping @Sendable (Result<String, DBusError>) -> Void) {
        let waiter = waiter
        waiter.execute { [self] in
            self.address = address
            whenReady = ready
            phase = .connecting
            if lock.withLock({ stopRequested }) { return end(.closed) }
            guard Self.connectsWithoutBlocking(address) else {
                // A name to resolve or a program to start: on a short-lived thread, so the waiter never blocks.
                let thread = Thread {
                    csdbus_name_this_thread("sd-bus-connect")
                    let result = Self.connect(address: address).map(ConnectedBus.init)
                    waiter.execute { self.opened(result.map(\.pointer)) }
                }
                thread.start()
                return
            }
            opened(Self.connect(address: address))
        }
    }

    /// A number unique to this connection, naming one request.
    func makeToken() -> UInt64 {
        lock.withLock {
            nextToken += 1
            return nextToken
        }
    }

    /// Hands `job` to the waiter's thread. Returns false when the connection has ended; the job then never runs.
    @discardableResult
    func submit(_ job: @escaping @Sendable (BusState) -> Void) -> Bool {
        guard lock.withLock({ accepting }) else { return false }
        // Accepted: it runs, even when the connection ends before the waiter gets to it (it then fails at once).
        waiter.execute { [self] in run(job) }
        return true
    }

    /// Asks for the connection to be closed. Returns at once; see ``waitUntilFinished()``.
    func stop() {
        lock.withLock { stopRequested = true }
        waiter.execute { [self] in
            // While connecting, `opened` closes what the connect returns.
            guard case .open = phase else { return }
            // What was sent and not yet written (a `send` just before: GeoClue's Stop) goes out first, as far as
            // the socket takes it without waiting: sd_bus_process writes the queue before anything else.
            process()
            end(.closed)
        }
    }

    /// Why the connection ended, or nil while it is open.
    var endReason: DBusError? {
        lock.withLock { endedReason }
    }

    /// How often the waiter has called ``ready(_:)`` (data, a deadline): for tests that prove an idle connection
    /// costs no wake-ups.
    var wakeups: Int { lock.withLock { readyCalls } }

    /// Whether the waiter watches the connection's descriptor. On the waiter's thread only.
    var isWatched: Bool { token != nil }

    /// Returns once the connection is closed and every request that waited on it has been answered.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lock.withLock {
                if finished { return true }
                finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Records why the connection ended, first reason first, so that ``endReason`` is right by the time anyone
    /// waiting hears about it; from then on no job is accepted.
    private func markEnded(_ reason: DBusError) {
        lock.withLock {
            if endedReason == nil { endedReason = reason }
            accepting = false
        }
    }

    // MARK: On the waiter's thread

    private func run(_ job: (BusState) -> Void) {
        // Jobs run in the order they were handed over, and ``stop()``'s work is queued behind those accepted before
        // it: a message sent just before a close goes out (the close writes it), and a call made just before fails
        // with `.closed` when the close comes. Jobs accepted after it find the connection ended.
        // Jobs come only from a `DBusConnection`, which exists only once the connection was made.
        guard let state = phase.state else { return assertionFailure("A bus job arrived before the connection.") }
        job(state)
        // Sending may have changed sd-bus's deadline, or queued input to dispatch (then it answers 0).
        convertedTimeout = nil
    }

    /// Once the bus is connected (or could not be): watches it, or answers `whenReady` with the failure.
    private func opened(_ result: Result<OpaquePointer, DBusError>) {
        switch result {
        case .failure(let reason):
            end(reason)
        case .success(let bus):
            phase = .open(BusState(bus: bus) { [weak self] reason in self?.markEnded(reason) })
            if lock.withLock({ stopRequested }) { return end(.closed) }
            token = waiter.add(self)
            process()
        }
    }

    var interest: (descriptor: Int32, events: Readiness)? {
        guard case .open(let state) = phase else { return nil }
        let events = sd_bus_get_events(state.bus)
        let descriptor = sd_bus_get_fd(state.bus)
        // `process` ends the connection when either fails, so this does not happen between two waits.
        guard events >= 0, descriptor >= 0 else { return nil }
        return (descriptor, Readiness(rawValue: Int16(truncatingIfNeeded: events)))
    }

    var deadline: ContinuousClock.Instant? {
        guard case .open(let state) = phase else { return nil }
        if let backlogAt { return backlogAt }
        var microseconds: UInt64 = 0
        guard sd_bus_get_timeout(state.bus, &microseconds) >= 0, microseconds != UInt64.max else { return nil }
        if let converted = convertedTimeout, converted.microseconds == microseconds { return converted.instant }
        // sd-bus's deadline is CLOCK_MONOTONIC microseconds; ContinuousClock on Linux is CLOCK_BOOTTIME (Swift's
        // runtime, Clock.cpp), which also counts time suspended: the deadline is converted as what is left of it,
        // not as an absolute value.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        let left = microseconds > nowMicroseconds ? microseconds - nowMicroseconds : 0
        // Read after the monotonic clock and the microseconds truncated down: never early.
        let instant = ContinuousClock.now + .microseconds(left)
        convertedTimeout = (microseconds, instant)
        return instant
    }

    func ready(_ events: Readiness) {
        lock.withLock { readyCalls += 1 }
        backlogAt = nil
        convertedTimeout = nil
        process()
    }

    /// Dispatches what has arrived (replies, signals, the handshake, timeouts), at most ``processBudget`` steps,
    /// answers `whenReady` once the handshake is done, and ends the connection when sd-bus says it is gone.
    private func process() {
        guard case .open(let state) = phase else { return }
        var result: Int32 = 0
        for _ in 0..<Self.processBudget {
            state.isProcessing = true
            result = sd_bus_process(state.bus, nil)
            state.isProcessing = false
            state.releaseRetired()
            if result <= 0 { break }
        }
        if let whenReady, sd_bus_is_ready(state.bus) > 0 {
            self.whenReady = nil
            whenReady(.success(Self.uniqueName(state.bus)))
        }
        if result < 0 { return end(lost(code: -result)) }
        let events = sd_bus_get_events(state.bus)
        let descriptor = sd_bus_get_fd(state.bus)
        guard events >= 0, descriptor >= 0 else { return end(lost(code: events < 0 ? -events : -descriptor)) }
        backlogAt = result > 0 ? .now : nil
    }

    /// Ends the connection, once: no job is accepted any more (those already accepted fail at once when they run),
    /// every request still waiting fails, the bus is closed and leaves the waiter, and whoever waits for the end
    /// is woken.
    private func end(_ reason: DBusError) {
        if case .ended = phase { return }
        let state = phase.state
        markEnded(reason)
        phase = .ended(state)
        backlogAt = nil
        if let token {
            waiter.remove(token)
            self.token = nil
        }
        if let whenReady {
            self.whenReady = nil
            whenReady(.failure(reason == .closed ? .cancelled : reason))
        }
        if let state {
            state.endReason = reason
            state.failAll(reason)
            sd_bus_close_unref(state.bus)
        }
        let waiters = lock.withLock {
            finished = true
            defer { finishWaiters.removeAll() }
            return finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Why the connection ended on error `code`: before the handshake completed it never connected.
    private func lost(code: Int32) -> DBusError {
        let text = DBusError.describe(errno: code)
        return whenReady == nil ? .disconnected(reason: text) : .connectionFailed(address: address, reason: text)
    }

    private static func uniqueName(_ bus: OpaquePointer) -> String {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return "" }
        return String(cString: name)
    }

    // MARK: Connecting

    /// Whether `sd_bus_start` returns at once for `address`: true when every address in the list is `unix:`. For
    /// those sd-bus makes a non-blocking socket, whose connect(2) returns at once (EINPROGRESS, or a refusal), and
    /// starts the handshake without waiting for an answer (the rest is done in ``ready(_:)``). Other transports can
    /// block in `sd_bus_start`: `tcp:` resolves its host with getaddrinfo (DNS), `unixexec:` forks and execs a
    /// program, `x-machine-*` enters a container's namespaces. (sd-bus's sources, bus-socket.c and bus-control.c,
    /// systemd 252 and 257.)
    static func connectsWithoutBlocking(_ address: String) -> Bool {
        let entries = address.split(separator: ";", omittingEmptySubsequences: true)
        return !entries.isEmpty && entries.allSatisfy { $0.hasPrefix("unix:") }
    }

    /// A started client connection to `address`; the handshake completes in ``process()``.
    private static func connect(address: String) -> Result<OpaquePointer, DBusError> {
        var created: OpaquePointer?
        var result = sd_bus_new(&created)
        guard result >= 0, let bus = created else {
            return .failure(.system(operation: "sd_bus_new", code: -result))
        }
        result = address.withCString { sd_bus_set_address(bus, $0) }
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = "forecastd".withCString { sd_bus_set_description(bus, $0) } }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_close_unref(bus)
            return .failure(.connectionFailed(address: address, reason: DBusError.describe(errno: -result)))
        }
        return .success(bus)
    }
}

/// A connected bus on its way from the connect thread to the waiter's: used by one thread at a time.
private struct ConnectedBus: @unchecked Sendable {
    let pointer: OpaquePointer
}
