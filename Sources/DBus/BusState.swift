import CSDBus
import Foundation

/// What one connection keeps on the descriptor waiter: the sd-bus object and the requests in flight. Lives on the
/// waiter's thread only (it is handed to jobs as a parameter, never captured), so it needs no lock.
final class BusState {
    let bus: OpaquePointer
    /// Set once the connection has ended; jobs that run afterwards fail with it instead of touching the bus.
    var endReason: DBusError?
    /// True while sd_bus_process runs: slots are then released only after it returns.
    var isProcessing = false

    /// Requests in flight, by token. The record is the userdata sd-bus hands back to the callbacks, so it is kept
    /// here, alive, for as long as its slot exists.
    private var records: [UInt64: SlotRecord] = [:]
    /// Records whose slot is to be released once sd_bus_process has returned.
    private var retired: [SlotRecord] = []

    /// Told when a callback finds the connection gone, before the callback answers anyone.
    private let connectionEnded: (DBusError) -> Void

    init(bus: OpaquePointer, connectionEnded: @escaping (DBusError) -> Void) {
        self.bus = bus
        self.connectionEnded = connectionEnded
    }

    // MARK: Method calls

    func startCall(
        token: UInt64, call: DBusMethodCall, timeoutMicroseconds: UInt64, gate: RequestGate,
        continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>
    ) {
        guard gate.begin() else { return continuation.resume(returning: .failure(.cancelled)) }
        if let endReason { return continuation.resume(returning: .failure(endReason)) }
        let message: OpaquePointer
        do {
            message = try makeMethodCall(call)
        } catch {
            return continuation.resume(returning: .failure(error))
        }
        defer { sd_bus_message_unref(message) }

        let record = SlotRecord(token: token, state: self, kind: .call(continuation))
        var slot: OpaquePointer?
        let result = sd_bus_call_async(
            bus, &slot, message,
            { reply, userdata, _ in
                guard let reply, let userdata else { return 0 }
                let record = Unmanaged<SlotRecord>.fromOpaque(userdata).takeUnretainedValue()
                record.state.deliverReply(reply, to: record)
                return 0
            }, Unmanaged.passUnretained(record).toOpaque(), timeoutMicroseconds)
        guard result >= 0, let slot else {
            // The connection may have broken since the last time sd_bus_process looked.
            let error: DBusError =
                sd_bus_is_open(bus) > 0
                ? .system(operation: "sending \(call.interface).\(call.member)", code: -result)
                : .disconnected(reason: DBusError.describe(errno: -result))
            return continuation.resume(returning: .failure(error))
        }
        record.slot = slot
        records[token] = record
    }

    /// Sends a call that expects no reply; see ``DBusConnection/send(_:)``.
    func send(_ call: DBusMethodCall) {
        guard endReason == nil, let message = try? makeMethodCall(call) else { return }
        defer { sd_bus_message_unref(message) }
        guard sd_bus_message_set_expect_reply(message, 0) >= 0 else { return }
        _ = sd_bus_send(bus, message, nil)
    }

    private func makeMethodCall(_ call: DBusMethodCall) throws(DBusError) -> OpaquePointer {
        var created: OpaquePointer?
        let result = call.destination.withCString { destination in
            call.path.withCString { path in
                call.interface.withCString { interface in
                    call.member.withCString { member in
                        sd_bus_message_new_method_call(bus, &created, destination, path, interface, member)
                    }
                }
            }
        }
        guard result >= 0, let message = created else {
            if result == -EINVAL {
                throw .invalidArgument(
                    "sd-bus refused the call \(call.interface).\(call.member) on \(call.path) at \(call.destination): "
                        + "a name or the path is malformed")
            }
            throw .system(operation: "creating the call \(call.interface).\(call.member)", code: -result)
        }
        do {
            try MessageCoding.check(
                sd_bus_message_set_auto_start(message, call.allowsAutoStart ? 1 : 0), "setting auto-start")
            for argument in call.arguments { try MessageCoding.append(argument, to: message) }
        } catch {
            sd_bus_message_unref(message)
            throw error
        }
        return message
    }

    fileprivate func deliverReply(_ reply: OpaquePointer, to record: SlotRecord) {
        guard case .call(let continuation) = record.kind else { return }
        retire(record)
        continuation.resume(returning: result(of: reply))
    }

    private func result(of reply: OpaquePointer) -> Result<DBusMessage, DBusError> {
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error?.pointee.message.map { String(cString: $0) } ?? ""
            // sd-bus answers calls still in flight with NoReply when the connection goes; say what happened.
            if sd_bus_is_open(bus) <= 0 && name == DBusErrorName.noReply.rawValue {
                let lost = DBusError.disconnected(reason: text.isEmpty ? "the connection ended" : text)
                connectionEnded(lost)
                return .failure(lost)
            }
            return .failure(.remote(name: DBusErrorName(rawValue: name), message: text))
        }
        return Result { () throws(DBusError) in try Self.snapshot(of: reply) }
    }

    /// Reads a received message in full into a value that can leave the waiter's thread.
    static func snapshot(of message: OpaquePointer) throws(DBusError) -> DBusMessage {
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        return DBusMessage(
            sender: text(sd_bus_message_get_sender(message)),
            path: text(sd_bus_message_get_path(message)),
            interface: text(sd_bus_message_get_interface(message)),
            member: text(sd_bus_message_get_member(message)),
            signature: text(sd_bus_message_get_signature(message, 1)) ?? "",
            body: try MessageCoding.readAll(message))
    }

    // MARK: Signals

    func subscribe(
        token: UInt64, match: DBusSignalMatch, stream: DBusSignals.Continuation, drops: DBusSignalDrops?,
        gate: RequestGate, installed: CheckedContinuation<Result<Void, DBusError>, Never>
    ) {
        guard gate.begin() else {
            stream.finish()
            return installed.resume(returning: .failure(.cancelled))
        }
        if let endReason {
            stream.finish()
            return installed.resume(returning: .failure(endReason))
        }
        if let argument = match.argument0, argument.contains("'") || argument.utf8.contains(0) {
            stream.finish()
            return installed.resume(
                returning: .failure(
                    .invalidArgument("a match's argument cannot hold a single quote or a NUL: \"\(argument)\"")))
        }
        let record = SlotRecord(token: token, state: self, kind: .signals(stream, installed: installed))
        record.drops = drops
        var slot: OpaquePointer?
        let result =
            match.argument0 == nil
            ? addSignalMatch(match, record: record, slot: &slot) : addRuleMatch(match, record: record, slot: &slot)
        guard result >= 0, let slot else {
            stream.finish()
            let error: DBusError =
                result == -EINVAL
                ? .invalidArgument("sd-bus refused the signal match \(match)")
                : .system(operation: "adding a signal match", code: -result)
            return installed.resume(returning: .failure(error))
        }
        record.slot = slot
        records[token] = record
    }

    /// A match of sender, path, interface and member, which sd-bus checks and writes as a rule itself.
    private func addSignalMatch(_ match: DBusSignalMatch, record: SlotRecord, slot: inout OpaquePointer?) -> Int32 {
        withOptionalCString(match.sender) { sender in
            withOptionalCString(match.path) { path in
                withOptionalCString(match.interface) { interface in
                    withOptionalCString(match.member) { member in
                        sd_bus_match_signal_async(
                            bus, &slot, sender, path, interface, member,
                            signalArrived, matchAnswered, Unmanaged.passUnretained(record).toOpaque())
                    }
                }
            }
        }
    }

    /// A match with an argument condition, which sd_bus_match_signal cannot take: the rule is written here.
    private func addRuleMatch(_ match: DBusSignalMatch, record: SlotRecord, slot: inout OpaquePointer?) -> Int32 {
        match.rule.withCString { rule in
            sd_bus_add_match_async(
                bus, &slot, rule,
                signalArrived, matchAnswered, Unmanaged.passUnretained(record).toOpaque())
        }
    }

    fileprivate func deliverSignal(_ message: OpaquePointer, to record: SlotRecord) {
        guard case .signals(let stream, _) = record.kind else { return }
        // A signal this module cannot represent (one carrying a file descriptor) is no use to anyone here.
        guard let signal = try? Self.snapshot(of: message) else { return }
        if case .dropped = stream.yield(signal) { record.drops?.add() }
    }

    fileprivate func matchInstalled(_ reply: OpaquePointer, for record: SlotRecord) {
        guard case .signals(let stream, let installed?) = record.kind else { return }
        record.kind = .signals(stream, installed: nil)
        switch result(of: reply) {
        case .success:
            installed.resume(returning: .success(()))
        case .failure(let error):
            retire(record)
            stream.finish()
            installed.resume(returning: .failure(error))
        }
    }

    /// Stops delivering the signals of a subscription whose consumer went away; sd-bus removes the bus's match rule.
    func unsubscribe(token: UInt64) {
        guard let record = records[token], case .signals(let stream, let installed) = record.kind else { return }
        retire(record)
        stream.finish()
        installed?.resume(returning: .failure(.cancelled))
    }

    // MARK: Ending requests

    /// Withdraws a request whose caller was cancelled: its reply or signals, if any come, are dropped.
    func cancel(token: UInt64) {
        guard let record = records[token] else { return }
        retire(record)
        switch record.kind {
        case .call(let continuation):
            continuation.resume(returning: .failure(.cancelled))
        case .signals(let stream, let installed):
            stream.finish()
            installed?.resume(returning: .failure(.cancelled))
        }
    }

    /// Fails every request still in flight with `reason`; signal streams end, with an error unless the connection
    /// was closed on purpose.
    func failAll(_ reason: DBusError) {
        for record in records.values {
            switch record.kind {
            case .call(let continuation):
                continuation.resume(returning: .failure(reason))
            case .signals(let stream, let installed):
                if reason == .closed { stream.finish() } else { stream.finish(throwing: reason) }
                installed?.resume(returning: .failure(reason))
            }
            retire(record)
        }
        releaseRetired()
    }

    private func retire(_ record: SlotRecord) {
        guard records.removeValue(forKey: record.token) != nil else { return }
        retired.append(record)
        if !isProcessing { releaseRetired() }
    }

    /// Releases the slots of finished requests. Done outside sd_bus_process's callbacks, so a slot is never freed
    /// while sd-bus is still calling through it.
    func releaseRetired() {
        for record in retired {
            if let slot = record.slot { sd_bus_slot_unref(slot) }
            record.slot = nil
        }
        retired.removeAll()
    }
}

/// sd-bus's callback for a signal that a match let through; its userdata is the match's ``SlotRecord``. One
/// function for both ways a match is added (sd-bus's own rule, or a rule written here).
private let signalArrived: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let record = Unmanaged<SlotRecord>.fromOpaque(userdata).takeUnretainedValue()
    record.state.deliverSignal(message, to: record)
    return 0
}

/// sd-bus's callback for the bus's answer to adding a match.
private let matchAnswered: sd_bus_message_handler_t = { reply, userdata, _ in
    guard let reply, let userdata else { return 0 }
    let record = Unmanaged<SlotRecord>.fromOpaque(userdata).takeUnretainedValue()
    record.state.matchInstalled(reply, for: record)
    return 0
}

/// One request's record: the token, the slot, and whom to answer.
final class SlotRecord {
    enum Kind {
        case call(CheckedContinuation<Result<DBusMessage, DBusError>, Never>)
        case signals(DBusSignals.Continuation, installed: CheckedContinuation<Result<Void, DBusError>, Never>?)
    }

    let token: UInt64
    unowned let state: BusState
    var kind: Kind
    var slot: OpaquePointer?
    /// Where a subscription counts the signals its full buffer dropped.
    var drops: DBusSignalDrops?

    init(token: UInt64, state: BusState, kind: Kind) {
        self.token = token
        self.state = state
        self.kind = kind
    }
}

/// Settles the race between a request starting on the waiter's thread and its caller being cancelled.
final class RequestGate: @unchecked Sendable {
    // `lock` guards `phase`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var phase = Phase.waiting

    private enum Phase { case waiting, started, cancelled }

    /// Called on the waiter's thread as the request starts: false when the caller was cancelled first.
    func begin() -> Bool {
        lock.withLock {
            guard phase == .waiting else { return false }
            phase = .started
            return true
        }
    }

    /// Called when the caller is cancelled: true when the request has started and must be withdrawn on the waiter's
    /// thread; false when it has not, and will see the cancellation when it tries to start.
    func cancel() -> Bool {
        lock.withLock {
            defer { phase = .cancelled }
            return phase == .started
        }
    }
}

private func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
