import DBus
import Foundation
import TestSupport

/// Calls a method of the bus itself (`org.freedesktop.DBus`).
func busCall(_ connection: DBusConnection, _ member: String, _ arguments: [DBusValue] = [], interface: String? = nil)
    async throws(DBusError) -> DBusMessage
{
    try await connection.call(
        DBusMethodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: interface ?? "org.freedesktop.DBus", member: member, arguments: arguments))
}

/// The bus's `NameOwnerChanged` signals.
let nameOwnerChanged = DBusSignalMatch(
    sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
    member: "NameOwnerChanged")

/// How many match rules the bus holds for `connection`, from dbus-daemon's statistics interface.
func matchRules(of connection: DBusConnection, askingWith asker: DBusConnection) async throws -> UInt32? {
    let reply = try await busCall(
        asker, "GetConnectionStats", [.string(connection.uniqueName)], interface: "org.freedesktop.DBus.Debug.Stats")
    return reply.body.first?["MatchRules"]?.variant?.uint32
}

/// The names of this process's threads, as the kernel lists them.
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `names` without libdispatch's workers (`…default-qos`, `…qos.overcommit`), whose number follows the load.
func ownThreads(_ names: [String]) -> [String] {
    names.filter { !$0.contains("qos") }
}

/// How many descriptors this process holds.
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

/// A dbusmock object with an `Echo` method per signature, returning its arguments as they arrived: a peer written
/// in another D-Bus implementation (dbus-python, over libdbus) to check what this one sends and reads.
func startEchoPeer(on bus: PrivateDBusDaemon) async throws -> DBusMock {
    try await DBusMock.start(
        on: bus, name: "org.forecastd.Echo", path: "/org/forecastd/Echo", interface: "org.forecastd.Echo")
}

extension DBusMock {
    /// Adds `member` echoing arguments of `signature` back.
    func addEcho(_ member: String, signature: String) async throws {
        try await addMethod(
            member, inSignature: signature, outSignature: signature,
            code: "ret = tuple(args) if len(args) > 1 else args[0]")
    }

    /// Adds `Hang`, which answers only after a minute: a peer busy with a call, for timeouts and cancellation.
    func addHang() async throws {
        try await addMethod(
            "Hang", inSignature: "s", outSignature: "s", code: "import time\ntime.sleep(60)\nret = args[0]")
    }

    /// Calls `Hang` from `connection` in a task of its own, and returns once the peer has the call: dbusmock says
    /// so with `MethodCalled` before it runs the method's code.
    func startHangingCall(from connection: DBusConnection, timeout: Duration? = nil) async throws
        -> Task<DBusMessage, any Error>
    {
        let called = try await methodCalledSignals(on: control)
        let call = DBusMethodCall(
            destination: name, path: path, interface: "org.forecastd.Echo", member: "Hang", arguments: [.string("hi")])
        let task = Task { () async throws -> DBusMessage in try await connection.call(call, timeout: timeout) }
        for try await signal in called where signal.body.first == .string("Hang") { break }
        return task
    }

    func echo(_ member: String, _ arguments: [DBusValue], timeout: Duration? = nil) async throws(DBusError)
        -> DBusMessage
    {
        try await control.call(
            DBusMethodCall(
                destination: name, path: path, interface: "org.forecastd.Echo", member: member, arguments: arguments),
            timeout: timeout)
    }
}
