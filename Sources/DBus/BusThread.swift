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
        var created: OpaquePointer?
        var result = sd_bus_new(&created)
        guard result >= 0, let bus = created else {
            finish(state: nil, reason: .system(operation: "sd_bus_new", code: -result), ready: ready)
            return
        }
        result = address.withCString { sd_bus_set_address(bus, $0) }
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = "forecastd".withCString { sd_bus_set_description(bus, $0) } }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_close_unref(bus)
            finish(
                state: nil, reason: .connectionFailed(address: address, reason: DBusError.describe(errno: -result)),
                ready: ready)
            return
        }

        let state = BusState(bus: bus) { [self] reason in markEnded(reason) }
        var waitingForReady = true
        var reason: DBusError
        while true {
            // Dispatch everything that has arrived (replies, signals, the connection's own handshake).
            var processResult: Int32 = 0
            repeat {
                state.isProcessing = true
                processResult = sd_bus_process(bus, nil)
                state.isProcessing = false
                state.releaseRetired()
            } while processResult > 0
            if waitingForReady && sd_bus_is_ready(bus) > 0 {
                var name: UnsafePointer<CChar>?
                if sd_bus_get_unique_name(bus, &name) >= 0, let name {
                    ready(.success(String(cString: name)))
                } else {
                    ready(.success(""))
                }
                waitingForReady = false
            }
            if processResult < 0 {
                let text = DBusError.describe(errno: -processResult)
                reason =
                    waitingForReady
                    ? .connectionFailed(address: address, reason: text) : .disconnected(reason: text)
                break
            }

            let (batch, stopping) = lock.withLock {
                let batch = jobs
                jobs.removeAll()
                return (batch, stopRequested)
            }
            if stopping {
                reason = .closed
                // Accepted jobs still run, and fail at once, in `finish`.
                lock.withLock { jobs = batch + jobs }
                break
            }
            for job in batch { job(state) }
            // A job may have queued output or, by sending, made input ready to dispatch: look again before sleeping.
            if !batch.isEmpty { continue }

            let events = sd_bus_get_events(bus)
            let descriptor = sd_bus_get_fd(bus)
            guard events >= 0, descriptor >= 0 else {
                let code = events < 0 ? -events : -descriptor
                reason =
                    waitingForReady
                    ? .connectionFailed(address: address, reason: DBusError.describe(errno: code))
                    : .disconnected(reason: DBusError.describe(errno: code))
                break
            }
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(truncatingIfNeeded: events), revents: 0),
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let polled = poll(&descriptors, 2, Self.pollTimeout(bus))
            if polled < 0 && csdbus_errno() != EINTR {
                reason = .system(operation: "poll", code: csdbus_errno())
                break
            }
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            }
        }
        finish(state: state, reason: reason, ready: waitingForReady ? ready : nil)
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
