import CSDBus
import Foundation

/// The thread that owns one sd-bus connection and does all of its work.
///
/// sd-bus objects must not be used from two threads at once, so everything that touches the connection runs here,
/// as jobs handed over through ``submit(_:)``. The thread sleeps in poll() on two descriptors: the bus's (with the
/// events `sd_bus_get_events` asks for and the deadline `sd_bus_get_timeout` gives, which is how method call
/// timeouts fire) and an eventfd that ``submit(_:)`` and ``stop()`` write to. Nothing wakes it otherwise: an idle
/// connection costs no wake-ups at all.
///
/// Every job that ``submit(_:)`` accepts runs exactly once: normally, or, once the connection has ended, with
/// ``BusState/endReason`` set so that it fails at once instead of touching the bus.
final class BusThread: @unchecked Sendable {
    // `lock` guards the fields below it; the rest is immutable. That is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var jobs: [@Sendable (BusState) -> Void] = []
    private var accepting = true
    private var stopRequested = false
    /// Why the connection ended, set as soon as the thread knows, before it answers what was waiting.
    private var endedReason: DBusError?
    /// Set once the thread has closed the connection and has nothing left to do.
    private var finished = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextToken: UInt64 = 0
    private var kernelThreadID: pid_t?

    /// Written to wake the thread from poll(); never read by anyone but the thread.
    private let wakeDescriptor: Int32

    init() throws(DBusError) {
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard descriptor >= 0 else { throw .system(operation: "eventfd", code: csdbus_errno()) }
        wakeDescriptor = descriptor
    }

    deinit {
        // The thread holds a strong reference while it runs, so by now it has exited.
        close(wakeDescriptor)
    }

    /// Starts the thread: it connects to `address` and calls `ready` once with the connection's unique name, or
    /// with why it could not connect (``DBusError/cancelled`` when ``stop()`` came first).
    func start(address: String, ready: @escaping @Sendable (Result<String, DBusError>) -> Void) {
        let thread = Thread { [self] in run(address: address, ready: ready) }
        thread.start()
    }

    /// A number unique to this connection, naming one request.
    func makeToken() -> UInt64 {
        lock.withLock {
            nextToken += 1
            return nextToken
        }
    }

    /// Hands `job` to the bus thread. Returns false when the connection has ended; the job then never runs.
    @discardableResult
    func submit(_ job: @escaping @Sendable (BusState) -> Void) -> Bool {
        let accepted = lock.withLock {
            guard accepting else { return false }
            jobs.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    /// Asks the thread to close the connection and exit. Returns at once; see ``waitUntilFinished()``.
    func stop() {
        lock.withLock { stopRequested = true }
        wake()
    }

    /// The thread's kernel ID once it runs (its entry in /proc/self/task).
    var threadID: pid_t? {
        lock.withLock { kernelThreadID }
    }

    /// Why the connection ended, or nil while it is open.
    var endReason: DBusError? {
        lock.withLock { endedReason }
    }

    /// Returns once the thread has closed the connection and is about to exit (it has nothing left to do).
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
    /// waiting hears about it.
    private func markEnded(_ reason: DBusError) {
        lock.withLock {
            if endedReason == nil { endedReason = reason }
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: The thread

    private func run(address: String, ready: @escaping @Sendable (Result<String, DBusError>) -> Void) {
        csdbus_name_this_thread("sd-bus")
        let id = csdbus_thread_id()
        lock.withLock { kernelThreadID = id }
        let bus: OpaquePointer
        switch Self.connect(address: address) {
        case .success(let connected): bus = connected
        case .failure(let reason):
            finish(state: nil, reason: reason, ready: ready)
            return
        }
        let state = BusState(bus: bus) { [self] reason in markEnded(reason) }
        var waitingForReady = true
        let reason = serve(state, address: address, ready: ready, waitingForReady: &waitingForReady)
        finish(state: state, reason: reason, ready: waitingForReady ? ready : nil)
    }

    /// A started client connection to `address`; the handshake completes in the loop of ``serve``.
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

    /// Dispatches what arrives, runs the jobs handed over and sleeps in poll() until the connection ends or
    /// ``stop()`` is asked; returns why it ended. `waitingForReady` turns false once `ready` has been called.
    private func serve(
        _ state: BusState, address: String, ready: @Sendable (Result<String, DBusError>) -> Void,
        waitingForReady: inout Bool
    ) -> DBusError {
        let bus = state.bus
        while true {
            let processResult = Self.dispatch(state)
            if waitingForReady && sd_bus_is_ready(bus) > 0 {
                ready(.success(Self.uniqueName(bus)))
                waitingForReady = false
            }
            if processResult < 0 {
                return Self.lost(address: address, code: -processResult, connected: !waitingForReady)
            }
            let (batch, stopping) = lock.withLock {
                let batch = jobs
                jobs.removeAll()
                return (batch, stopRequested)
            }
            if stopping {
                // Accepted jobs still run, and fail at once, in `finish`.
                lock.withLock { jobs = batch + jobs }
                return .closed
            }
            for job in batch { job(state) }
            // A job may have queued output or, by sending, made input ready to dispatch: look again before sleeping.
            if !batch.isEmpty { continue }
            if let reason = waitForWork(bus, address: address, connected: !waitingForReady) { return reason }
        }
    }

    /// Dispatches everything that has arrived (replies, signals, the connection's own handshake); returns
    /// sd_bus_process's last result, negative when the connection failed.
    private static func dispatch(_ state: BusState) -> Int32 {
        var processResult: Int32 = 0
        repeat {
            state.isProcessing = true
            processResult = sd_bus_process(state.bus, nil)
            state.isProcessing = false
            state.releaseRetired()
        } while processResult > 0
        return processResult
    }

    private static func uniqueName(_ bus: OpaquePointer) -> String {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return "" }
        return String(cString: name)
    }

    /// Sleeps until the bus has something to do, its next deadline comes or ``wake()`` is called; returns why
    /// the connection ended when it cannot wait on it any more.
    private func waitForWork(_ bus: OpaquePointer, address: String, connected: Bool) -> DBusError? {
        let events = sd_bus_get_events(bus)
        let descriptor = sd_bus_get_fd(bus)
        guard events >= 0, descriptor >= 0 else {
            return Self.lost(address: address, code: events < 0 ? -events : -descriptor, connected: connected)
        }
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(truncatingIfNeeded: events), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let polled = poll(&descriptors, 2, Self.pollTimeout(bus))
        if polled < 0 && csdbus_errno() != EINTR {
            return .system(operation: "poll", code: csdbus_errno())
        }
        if descriptors[1].revents != 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
        }
        return nil
    }

    /// Why the connection ended on error `code`: before the handshake completed it never connected.
    private static func lost(address: String, code: Int32, connected: Bool) -> DBusError {
        let text = DBusError.describe(errno: code)
        return connected ? .disconnected(reason: text) : .connectionFailed(address: address, reason: text)
    }

    /// Milliseconds until sd-bus's next deadline (a method call's timeout, authentication), -1 for none.
    private static func pollTimeout(_ bus: OpaquePointer) -> Int32 {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicroseconds else { return 0 }
        // Rounded up: waking a little early would only find the deadline not yet due and sleep again.
        let milliseconds = (deadline - nowMicroseconds + 999) / 1000
        return Int32(clamping: milliseconds)
    }

    /// Ends the connection: stops accepting jobs, runs those already accepted (they fail at once), fails every
    /// request still waiting, closes the bus and wakes whoever waits for the end.
    private func finish(
        state: BusState?, reason: DBusError, ready: (@Sendable (Result<String, DBusError>) -> Void)?
    ) {
        markEnded(reason)
        ready?(.failure(reason == .closed ? .cancelled : reason))
        let remaining = lock.withLock {
            accepting = false
            let remaining = jobs
            jobs.removeAll()
            return remaining
        }
        if let state {
            state.endReason = reason
            for job in remaining { job(state) }
            state.failAll(reason)
            sd_bus_close_unref(state.bus)
        } else {
            // No connection was made, so no job was ever accepted for it.
            assert(remaining.isEmpty)
        }
        let waiters = lock.withLock {
            finished = true
            let waiters = finishWaiters
            finishWaiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
