import DBus
import Foundation
import TestSupport
import Testing

/// What clients of system services (NetworkManager, GeoClue) need from the connection: the system bus, properties,
/// signals narrowed by their first argument, a bounded signal buffer that says what it dropped, and a call that goes
/// out from a cancelled task.
@Suite("DBus for system services", .timeLimit(.minutes(1)))
struct SystemBusTests {
    @Test("The system bus is DBUS_SYSTEM_BUS_ADDRESS, else the standard socket")
    func systemAddress() async throws {
        #expect(DBusAddress.system(environment: [:]) == "unix:path=/run/dbus/system_bus_socket")
        #expect(DBusAddress.system(environment: ["DBUS_SYSTEM_BUS_ADDRESS": ""]) == DBusAddress.defaultSystemBus)
        try await withPrivateBus(kind: .system) { bus in
            let connection = try await DBusConnection.system(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
            #expect(connection.address == bus.address)
            #expect(try await connection.nameHasOwner(connection.uniqueName))
            #expect(try await connection.nameHasOwner("org.example.Nobody") == false)
            await connection.close()
        }
        // No bus at the address: the error names it.
        await #expect {
            try await DBusConnection.system(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        } throws: { error in
            "\(error)".contains("unix:path=/nonexistent/bus")
        }
    }

    @Test("GetAll, Get and Set read and write a peer's properties, values out of their variants")
    func properties() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await DBusMock.start(
                on: bus, name: "org.forecastd.Props", path: "/org/forecastd/Props", interface: "org.forecastd.Props")
            try await peer.mockCall("AddProperty", [.string(""), .string("Strength"), .variant(.byte(71))])
            try await peer.mockCall("AddProperty", [.string(""), .string("Name"), .variant(.string("lab"))])
            let client = try await DBusConnection.connect(address: bus.address)
            let all = try await client.allProperties(
                destination: peer.name, path: peer.path, interface: "org.forecastd.Props")
            #expect(all == ["Strength": .byte(71), "Name": .string("lab")])
            #expect(
                try await client.property(
                    "Name", destination: peer.name, path: peer.path, interface: "org.forecastd.Props") == .string("lab"))

            let changes = try await client.signals(
                matching: DBusProperties.changes(sender: peer.name, interface: "org.forecastd.Props"))
            try await client.setProperty(
                "Name", to: .string("field"), destination: peer.name, path: peer.path, interface: "org.forecastd.Props")
            #expect(
                try await client.property(
                    "Name", destination: peer.name, path: peer.path, interface: "org.forecastd.Props")
                    == .string("field"))
            var iterator = changes.makeAsyncIterator()
            let change = try DBusPropertiesChange(#require(try await iterator.next()))
            #expect(change.interface == "org.forecastd.Props")
            #expect(change.changed == ["Name": .string("field")])
            #expect(change.mentions("Name") && !change.mentions("Strength"))

            // A peer that has no such interface answers with an error, which comes through as it is.
            await #expect {
                try await client.allProperties(destination: peer.name, path: peer.path, interface: "org.example.None")
            } throws: { error in (error as? DBusError)?.remoteName != nil }
            await client.close()
            peer.stop()
        }
    }

    @Test("A match on the first argument delivers only the signals whose first argument is that string")
    func argumentMatch() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await startEchoPeer(on: bus)
            let client = try await DBusConnection.connect(address: bus.address)
            // sd-bus cannot read a quote inside a rule's value: refused before anything is sent.
            await #expect(throws: DBusError.invalidArgument("a match's argument cannot hold a single quote or a NUL: \"it's\"")) {
                try await client.signals(matching: DBusSignalMatch(sender: peer.name, argument0: "it's"))
            }
            let wanted = "mine, with a comma"
            let signals = try await client.signals(
                matching: DBusSignalMatch(
                    sender: peer.name, interface: "org.forecastd.Echo", member: "Said", argument0: wanted))
            for word in ["other", wanted, "it", wanted + "!"] {
                try await peer.emitSignal(
                    interface: "org.forecastd.Echo", member: "Said", signature: "s", arguments: [.string(word)])
            }
            try await peer.emitSignal(
                interface: "org.forecastd.Echo", member: "Said", signature: "s", arguments: [.string("last")])
            try await peer.emitSignal(
                interface: "org.forecastd.Echo", member: "Said", signature: "s", arguments: [.string(wanted)])
            var received: [String] = []
            for try await signal in signals {
                received.append(signal.body.first?.string ?? "?")
                if received.count == 2 { break }
            }
            #expect(received == [wanted, wanted])
            #expect(
                DBusNames.ownerChanges(of: "org.freedesktop.NetworkManager").rule
                    == "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                    + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.NetworkManager'")
            await client.close()
            peer.stop()
        }
    }

    @Test("A reader that falls behind a burst keeps the newest signals and learns how many it lost")
    func boundedSignals() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await startEchoPeer(on: bus)
            let drops = DBusSignalDrops()
            // The subscription is on the connection that drives the peer: each EmitSignal's reply comes after its
            // signal, so once the last call returns every signal is in the buffer.
            let signals = try await peer.control.signals(
                matching: DBusSignalMatch(sender: peer.name, interface: "org.forecastd.Echo", member: "Added"),
                buffering: 16, drops: drops)
            for number in 0..<100 {
                try await peer.emitSignal(
                    interface: "org.forecastd.Echo", member: "Added", signature: "u", arguments: [.uint32(UInt32(number))])
            }
            #expect(drops.pending == 84)
            var kept: [UInt32] = []
            for try await signal in signals {
                kept.append(signal.body.first?.uint32 ?? 0)
                if kept.count == 16 { break }
            }
            #expect(kept == Array(84..<100))
            #expect(drops.take() == 84)
            #expect(drops.take() == 0)
            peer.stop()
        }
    }

    @Test("NameOwnerChanged for one name says when its owner comes and goes")
    func ownerChanges() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let client = try await DBusConnection.connect(address: bus.address)
            let changes = try await client.signals(matching: DBusNames.ownerChanges(of: "org.forecastd.Echo"))
            // Another name coming and going is filtered out by the bus.
            let other = try await DBusMock.start(
                on: bus, name: "org.forecastd.Other", path: "/org/forecastd/Other", interface: "org.forecastd.Other")
            other.stop()
            let peer = try await startEchoPeer(on: bus)
            peer.stop()
            var owners: [String?] = []
            for try await change in changes {
                #expect(change.body.first?.string == "org.forecastd.Echo")
                owners.append(DBusNames.newOwner(in: change))
                if owners.count == 2 { break }
            }
            #expect(owners.first??.hasPrefix(":") == true)
            #expect(owners.last == .some(nil))
            await client.close()
        }
    }

    @Test("send delivers a call without waiting for a reply, even from a cancelled task")
    func sendWithoutReply() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await startEchoPeer(on: bus)
            try await peer.addEcho("Note", signature: "s")
            let client = try await DBusConnection.connect(address: bus.address)
            let called = try await peer.methodCalledSignals(on: peer.control)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try client.send(
                    DBusMethodCall(
                        destination: peer.name, path: peer.path, interface: "org.forecastd.Echo", member: "Note",
                        arguments: [.string("stop")]))
            }
            try await task.value
            for try await signal in called where signal.body.first == .string("Note") { break }
            #expect(try await peer.calls(of: "Note") == [[.string("stop")]])
            await client.close()
            #expect(throws: DBusError.closed) {
                try client.send(
                    DBusMethodCall(
                        destination: peer.name, path: peer.path, interface: "org.forecastd.Echo", member: "Note",
                        arguments: [.string("late")]))
            }
            peer.stop()
        }
    }

    @Test("A call sent just before close still goes out: what a client says on its way out is not lost")
    func sendThenClose() async throws {
        try await withPrivateBus(kind: .system) { bus in
            let peer = try await startEchoPeer(on: bus)
            try await peer.addEcho("Note", signature: "s")
            let called = try await peer.methodCalledSignals(on: peer.control)
            for round in 0..<20 {
                let client = try await DBusConnection.connect(address: bus.address)
                try client.send(
                    DBusMethodCall(
                        destination: peer.name, path: peer.path, interface: "org.forecastd.Echo", member: "Note",
                        arguments: [.string("bye \(round)")]))
                await client.close()
                for try await signal in called where signal.body.first == .string("Note") { break }
            }
            #expect(try await peer.calls(of: "Note").count == 20)
            peer.stop()
        }
    }
}
