import DBus
import Foundation
import TestSupport
import Testing
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("DBusConnection against a private dbus-daemon", .timeLimit(.minutes(3)))
struct ConnectionTests {
    @Test("Connects, gets a unique name, and the bus lists it")
    func connectAndCall() async throws {
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            #expect(connection.uniqueName.hasPrefix(":"))
            #expect(connection.isOpen)

            let names = try await busCall(connection, "ListNames").body(signature: "as")[0].strings ?? []
            #expect(names.contains(connection.uniqueName))
            #expect(names.contains("org.freedesktop.DBus"))

            let owner = try await busCall(connection, "GetNameOwner", [.string(connection.uniqueName)])
            #expect(owner.body == [.string(connection.uniqueName)])
            #expect(owner.sender == "org.freedesktop.DBus")
            await connection.close()
        }
    }

    @Test("Connects to the session bus named by DBUS_SESSION_BUS_ADDRESS or found as $XDG_RUNTIME_DIR/bus")
    func sessionBus() async throws {
        try await withPrivateBus { bus in
            let byAddress = try await DBusConnection.session(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            let byRuntimeDirectory = try await DBusConnection.session(environment: [
                "XDG_RUNTIME_DIR": bus.directory.path
            ])
            #expect(byRuntimeDirectory.address == "unix:path=" + DBusAddress.escape(bus.socketPath))
            let names = try await busCall(byAddress, "ListNames").body(signature: "as")[0].strings ?? []
            #expect(names.contains(byRuntimeDirectory.uniqueName))
            await byAddress.close()
            await byRuntimeDirectory.close()
        }
    }

    @Test("Error replies carry their D-Bus names")
    func errorNames() async throws {
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            await #expect(throws: DBusError.remote(
                name: .nameHasNoOwner, message: "Could not get owner of name 'org.example.Nobody': no such name")
            ) {
                try await busCall(connection, "GetNameOwner", [.string("org.example.Nobody")])
            }

            let nobody = DBusMethodCall(
                destination: "org.example.Nobody", path: "/org/example/Nobody", interface: "org.example.Nobody",
                member: "Hello")
            await #expect {
                try await connection.call(nobody)
            } throws: { error in
                (error as? DBusError)?.remoteName == .serviceUnknown
                    && "\(error)".contains("org.freedesktop.DBus.Error.ServiceUnknown")
            }

            await #expect {
                try await busCall(connection, "NoSuchMethod")
            } throws: { error in (error as? DBusError)?.remoteName == .unknownMethod }

            // The bus checks argument types: a uint32 where it wants a string.
            await #expect {
                try await busCall(connection, "GetNameOwner", [.uint32(1)])
            } throws: { error in (error as? DBusError)?.remoteName == .invalidArgs }

            // The connection is still good after all of that.
            #expect(try await busCall(connection, "ListNames").signature == "as")
            await connection.close()
        }
    }

    @Test("Arguments that cannot be sent are refused before anything is sent")
    func invalidArguments() async throws {
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            let refusedArguments: [DBusValue] = [
                .string("a\u{0}b"), .array(.string, [.uint32(1)]), .objectPath("not/a/path"),
            ]
            for argument in refusedArguments {
                await #expect {
                    try await busCall(connection, "GetNameOwner", [argument])
                } throws: { error in
                    if case .invalidArgument = error as? DBusError { return true }
                    return false
                }
            }
            let badName = DBusMethodCall(
                destination: "not a bus name", path: "/", interface: "org.example.Iface", member: "Hello")
            await #expect {
                try await connection.call(badName)
            } throws: { error in
                if case .invalidArgument(let text) = error as? DBusError { return text.contains("not a bus name") }
                return false
            }
            #expect(try await busCall(connection, "ListNames").signature == "as")
            await connection.close()
        }
    }

    @Test("Every type goes to another D-Bus implementation and comes back unchanged")
    func typedRoundTrip() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            let arguments: [DBusValue] = [
                .byte(255), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535), .int32(-7),
                .uint32(4_000_000_000), .int64(Int64.min), .uint64(UInt64.max), .double(-2.5),
                .string("Pluie à 14:30 ☔ <b>&amp;</b>"), .objectPath("/org/forecastd/Echo"), .signature("a{sv}"),
                .strings(["default", "Open forecast"]), .strings([]),
                .variantDictionary(["urgency": .byte(2), "category": .string("x-forecastd.warning")]),
                .dictionary(
                    key: .uint32, value: .string,
                    [DBusDictionaryEntry(key: .uint32(1), value: .string("one"))]),
                .structure([.string("s"), .int32(1), .variant(.strings(["nested"]))]),
                .variant(.variant(.double(1.5))),
                .array(.array(.byte), [.array(.byte, [.byte(1), .byte(2)]), .array(.byte, [])]),
            ]
            let signature = arguments.map(\.type.signature).joined()
            try await peer.addEcho("Echo", signature: signature)
            let reply = try await peer.echo("Echo", arguments)
            #expect(reply.signature == signature)
            #expect(reply.body == arguments)
            // dbusmock logged what it received: the same values, read by dbus-python.
            let logged = try await peer.calls(of: "Echo")
            #expect(logged.count == 1)
            #expect(logged.first?.count == arguments.count)
        }
    }

    @Test("Signals arrive for a match installed before they are sent, and only those that match")
    func signals() async throws {
        try await withPrivateBus { bus in
            let listener = try await DBusConnection.connect(address: bus.address)
            let changes = try await listener.signals(matching: nameOwnerChanged)
            var iterator = changes.makeAsyncIterator()

            let other = try await DBusConnection.connect(address: bus.address)
            let joined = try #require(try await iterator.next())
            #expect(joined.member == "NameOwnerChanged")
            #expect(joined.sender == "org.freedesktop.DBus")
            #expect(joined.body == [.string(other.uniqueName), .string(""), .string(other.uniqueName)])

            // RequestName(name, flags) → 1: the caller is now the primary owner.
            let request = try await busCall(other, "RequestName", [.string("org.forecastd.Probe"), .uint32(0)])
            #expect(request.body == [.uint32(1)])
            let acquired = try #require(try await iterator.next())
            #expect(acquired.body == [.string("org.forecastd.Probe"), .string(""), .string(other.uniqueName)])

            await other.close()
            let released = try #require(try await iterator.next())
            #expect(released.body.first == .string("org.forecastd.Probe"))
            #expect(released.body.last == .string(""))
            await listener.close()
        }
    }

    @Test("Ending a signal stream removes its match rule from the bus; cancelling its task ends it")
    func signalStreamEnds() async throws {
        try await withPrivateBus { bus in
            let listener = try await DBusConnection.connect(address: bus.address)
            let observer = try await DBusConnection.connect(address: bus.address)
            let before = try #require(try await matchRules(of: listener, askingWith: observer))

            let changes = try await listener.signals(matching: nameOwnerChanged)
            #expect(try await matchRules(of: listener, askingWith: observer) == before + 1)
            let reader = Task {
                var count = 0
                for try await _ in changes { count += 1 }
                return count
            }
            reader.cancel()
            _ = try await reader.value

            // Ending the stream hands the bus thread a job that releases the match, and sd-bus sends RemoveMatch as it
            // does. A round trip on the same connection, queued after that job, returns once the bus has handled it.
            _ = try await busCall(listener, "ListNames")
            let after = try await matchRules(of: listener, askingWith: observer)
            #expect(after == before)
            await listener.close()
            await observer.close()
        }
    }

    @Test("Closing ends signal streams normally, fails later calls with .closed, and the waiter stops watching it")
    func close() async throws {
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            #expect(await connection.isWatched)
            let changes = try await connection.signals(matching: nameOwnerChanged)
            let reader = Task {
                var count = 0
                for try await _ in changes { count += 1 }
                return count
            }
            await connection.close()
            #expect(try await reader.value == 0)
            #expect(!connection.isOpen)
            #expect(connection.endReason == .closed)
            await #expect(throws: DBusError.closed) { try await busCall(connection, "ListNames") }
            await #expect(throws: DBusError.closed) { try await connection.signals(matching: nameOwnerChanged) }
            // close() returns once the socket is closed and the connection has left the waiter.
            #expect(await !connection.isWatched)
            await connection.close()
        }
    }

    @Test("When the bus goes away, streams end with .disconnected and so do calls in flight")
    func busGoesAway() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addHang()
            let connection = try await DBusConnection.connect(address: bus.address)
            let changes = try await connection.signals(matching: nameOwnerChanged)
            let reader = Task {
                for try await _ in changes {}
            }
            let pending = try await peer.startHangingCall(from: connection)
            await bus.stop()

            let callOutcome = await pending.result.map { _ in () }
            let readerOutcome = await reader.result
            for outcome in [callOutcome, readerOutcome] {
                #expect {
                    try outcome.get()
                } throws: { error in
                    if case .disconnected = error as? DBusError { return true }
                    return false
                }
            }
            #expect(!connection.isOpen)
            await #expect {
                try await busCall(connection, "ListNames")
            } throws: { error in
                if case .disconnected = error as? DBusError { return true }
                return false
            }
            #expect(await !connection.isWatched)
        }
    }

    @Test("After a bus daemon is killed mid-call, a connection to a new bus works")
    func newBusAfterKill() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addHang()
            let connection = try await DBusConnection.connect(address: bus.address)
            let pending = try await peer.startHangingCall(from: connection)
            await bus.stop()
            await #expect {
                try await pending.value
            } throws: { error in
                if case .disconnected = error as? DBusError { return true }
                return false
            }
        }
        // The waiter that served the lost connection serves the next one.
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            let names = try await busCall(connection, "ListNames").body(signature: "as")[0].strings ?? []
            #expect(names.contains(connection.uniqueName))
            await connection.close()
        }
    }

    @Test("A call to a peer that does not answer times out when asked, named NoReply")
    func callTimeout() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addHang()
            let caller = try await DBusConnection.connect(address: bus.address)
            let started = ContinuousClock.now
            let call = try await peer.startHangingCall(from: caller, timeout: .milliseconds(300))
            await #expect {
                try await call.value
            } throws: { error in (error as? DBusError)?.remoteName == .noReply }
            let waited = ContinuousClock.now - started
            // The bus thread woke for sd-bus's deadline, not for a reply and not much later.
            // (sd-bus's own default is 25 s; the bound leaves room for a loaded machine.)
            #expect(waited >= .milliseconds(300) && waited < .seconds(20), "timed out after \(waited)")
            #expect(try await busCall(caller, "ListNames").signature == "as")
            await caller.close()
        }
    }

    @Test("Cancelling the task of a call that waits for its reply ends it at once with .cancelled")
    func cancelCall() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addHang()
            let caller = try await DBusConnection.connect(address: bus.address)
            let call = try await peer.startHangingCall(from: caller)
            let started = ContinuousClock.now
            call.cancel()
            await #expect(throws: DBusError.cancelled) { try await call.value }
            #expect(ContinuousClock.now - started < .seconds(20))  // not sd-bus's 25 s; slack for a loaded machine
            // The connection is unharmed.
            #expect(try await busCall(caller, "ListNames").signature == "as")
            await caller.close()
        }
    }

    @Test("A call from an already cancelled task is not sent")
    func alreadyCancelled() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addEcho("Echo", signature: "s")
            let caller = try await DBusConnection.connect(address: bus.address)
            let call = Task { () throws(DBusError) in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await caller.call(
                    DBusMethodCall(
                        destination: peer.name, path: peer.path, interface: "org.forecastd.Echo", member: "Echo",
                        arguments: [.string("never")]))
            }
            await #expect(throws: DBusError.cancelled) { try await call.value }
            // Nothing reached the peer.
            _ = try await peer.echo("Echo", [.string("after")])
            #expect(try await peer.calls(of: "Echo").map { $0.first } == [.string("after")])
            await caller.close()
        }
    }

    @Test("Connecting where no bus listens fails with the address and the reason")
    func connectionFailures() async throws {
        try await withTemporaryDirectory("dbus-none") { directory in
            let missing = "unix:path=" + directory.appendingPathComponent("no-bus-here").path
            await #expect {
                try await DBusConnection.connect(address: missing)
            } throws: { error in
                guard case .connectionFailed(let address, let reason) = error as? DBusError else { return false }
                return address == missing && reason.contains("No such file")
            }
            await #expect {
                try await DBusConnection.connect(address: "nonsense")
            } throws: { error in
                if case .connectionFailed(let address, _) = error as? DBusError { return address == "nonsense" }
                return false
            }
            await #expect {
                try await DBusConnection.session(environment: [:])
            } throws: { error in
                if case .noSessionBus = error as? DBusError { return true }
                return false
            }
        }
    }

    @Test("A bus that hangs up before the handshake is done fails the connection with its address, not as one lost")
    func hangUpBeforeHandshake() async throws {
        try await withTemporaryDirectory("dbus-hangup") { directory in
            let path = directory.appendingPathComponent("bus").path
            // Listening before the client connects, so that the connection is made and the hang-up comes during
            // the handshake: the bus thread's loop hears it, where a lost connection and one that never completed
            // are told apart (in a rare race sd_bus_start hears it first, which fails the same way).
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { Glibc.close(listener) }
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0 && listen(listener, 1) == 0)
            let address = "unix:path=" + path
            let connecting = Task { try await DBusConnection.connect(address: address) }
            let accepted = try await onOwnThread { accept(listener, nil, nil) }
            try #require(accepted >= 0)
            Glibc.close(accepted)
            await #expect {
                try await connecting.value
            } throws: { error in
                guard case .connectionFailed(let failed, _) = error as? DBusError else { return false }
                return failed == address
            }
        }
    }

    @Test("An idle connection costs no wake-ups: the waiter is not called for it in a second with nothing to do")
    func idleConnectionSleeps() async throws {
        try await withPrivateBus { bus in
            let connection = try await DBusConnection.connect(address: bus.address)
            let changes = try await connection.signals(matching: nameOwnerChanged)
            _ = changes
            // A round trip after the match: whatever the bus still had to say about it has been read.
            _ = try await busCall(connection, "ListNames")
            let before = connection.waiterWakeups
            // A measurement window, not a wait for something to happen: a connection that polled on a timer, or
            // whose deadline came round again and again, would be woken several times in it.
            try await Task.sleep(for: .seconds(1))
            let after = connection.waiterWakeups
            #expect(after - before == 0, "the waiter was woken \(after - before) times for an idle connection")
            await connection.close()
        }
    }

    @Test("Connections add no thread: the descriptor waiter serves them all, and no thread is named sd-bus")
    func noThreadPerConnection() async throws {
        try await withPrivateBus { bus in
            // The waiter's own thread starts at its first use: counted in `before`.
            await DescriptorWaiter.shared.perform {}
            let before = threadNames()
            var connections: [DBusConnection] = []
            for _ in 0..<4 { connections.append(try await DBusConnection.connect(address: bus.address)) }
            for connection in connections { _ = try await busCall(connection, "ListNames") }
            let after = threadNames()
            #expect(!after.contains("sd-bus"), "threads: \(after.sorted())")
            // Other tests run beside this one and start and end threads of their own (a private bus is started
            // from a thread), and libdispatch's pool (the tests' executor) grows and shrinks with their work, so
            // its workers are left out: a thread per connection would be 4 more, whatever the rest do.
            let grown = ownThreads(after).count - ownThreads(before).count
            #expect(grown < connections.count, "before: \(before.sorted()); after: \(after.sorted())")
            for connection in connections { await connection.close() }
        }
    }

    @Test("A call whose answer never comes fails at its timeout while the waiter keeps serving another connection")
    func timeoutWhileServingOthers() async throws {
        try await withPrivateBus { bus in
            let peer = try await startEchoPeer(on: bus)
            defer { peer.stop() }
            try await peer.addHang()
            let caller = try await DBusConnection.connect(address: bus.address)
            let other = try await DBusConnection.connect(address: bus.address)
            let started = ContinuousClock.now
            let hanging = try await peer.startHangingCall(from: caller, timeout: .seconds(5))
            let outcome = Task { (await hanging.result.map { _ in () }, ContinuousClock.now) }
            for _ in 0..<5 { #expect(try await busCall(other, "ListNames").signature == "as") }
            let othersAnswered = ContinuousClock.now
            let (result, failedAt) = await outcome.value
            #expect {
                try result.get()
            } throws: { error in (error as? DBusError)?.remoteName == .noReply }
            #expect(othersAnswered < failedAt, "the other connection was answered only after the timeout")
            #expect(failedAt - started >= .seconds(5), "timed out after \(failedAt - started)")
            #expect(caller.isOpen)
            await caller.close()
            await other.close()
        }
    }

    @Test("A burst of 300 signals arrives whole: the waiter dispatches them in turns, none left behind")
    func signalBurst() async throws {
        try await withPrivateBus { bus in
            let listener = try await DBusConnection.connect(address: bus.address)
            let sender = try await DBusConnection.connect(address: bus.address)
            // 150 names taken and released at once: 300 NameOwnerChanged signals reach the listener together, more
            // than one turn of sd_bus_process (64). The subscription's buffer holds them all (the default, 64, would
            // keep the newest and count the rest as dropped: SystemBusTests covers that).
            let names = (0..<150).map { "org.forecastd.Burst\($0)" }
            let drops = DBusSignalDrops()
            let changes = try await listener.signals(
                matching: nameOwnerChanged, buffering: 2 * names.count + 16, drops: drops)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for name in names {
                    group.addTask {
                        _ = try await busCall(sender, "RequestName", [.string(name), .uint32(0)])
                        _ = try await busCall(sender, "ReleaseName", [.string(name)])
                    }
                }
                try await group.waitForAll()
            }
            var seen = 0
            for try await signal in changes where signal.body.first?.string?.hasPrefix("org.forecastd.Burst") == true {
                seen += 1
                if seen == 2 * names.count { break }
            }
            #expect(seen == 2 * names.count)
            #expect(drops.pending == 0)
            await listener.close()
            await sender.close()
        }
    }

    @Test("200 connections opened and closed leave no descriptor open and nothing on the waiter")
    func openCloseCycles() async throws {
        try await withPrivateBus { bus in
            // One first, so that what is opened once (the waiter's eventfd) is counted in `before`.
            try await DBusConnection.connect(address: bus.address).close()
            let before = openDescriptors()
            for cycle in 0..<200 {
                let connection = try await DBusConnection.connect(address: bus.address)
                _ = try await busCall(connection, "GetId")
                await connection.close()
                if cycle % 50 == 0 { #expect(await !connection.isWatched) }
            }
            let after = openDescriptors()
            // Other tests open and close descriptors beside this one (their buses' pipes and sockets); a leak of
            // one a connection would be 200.
            #expect(after - before < 100, "\(before) descriptors open before, \(after) after 200 connections")
        }
    }

    @Test("An address that is not unix: connects on a short-lived thread, and its failure names the address")
    func connectsOnThreadForOtherTransports() async throws {
        try await withPrivateBus { bus in
            // sd-bus tries the addresses in turn: the tcp: one is refused (nothing listens on port 1), the unix: one
            // is the bus. The list is not all unix:, so sd_bus_start runs on the sd-bus-connect thread.
            let listed = "tcp:host=127.0.0.1,port=1;" + bus.address
            let connection = try await DBusConnection.connect(address: listed)
            #expect(try await busCall(connection, "ListNames").signature == "as")
            await connection.close()
            let refused = "tcp:host=127.0.0.1,port=1"
            await #expect {
                try await DBusConnection.connect(address: refused)
            } throws: { error in
                if case .connectionFailed(let address, _) = error as? DBusError { return address == refused }
                return false
            }
        }
    }
}
