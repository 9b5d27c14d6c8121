/// What the bus itself (`org.freedesktop.DBus`) says about well-known names: who owns one, which it could start, and
/// when the owner changes. A client of a system service (NetworkManager, GeoClue) asks this before and while it
/// uses the service, since the service may be absent, start later or restart.
public enum DBusNames {
    static let bus = "org.freedesktop.DBus"
    static let path = "/org/freedesktop/DBus"

    /// `NameOwnerChanged` for `name` alone (its first argument), so that the thousands of other names a desktop's
    /// bus hands out never wake the process. The body is `sss`: the name, the old owner, the new owner (empty when
    /// there is none).
    public static func ownerChanges(of name: String) -> DBusSignalMatch {
        DBusSignalMatch(sender: bus, path: path, interface: bus, member: "NameOwnerChanged", argument0: name)
    }

    /// The new owner a `NameOwnerChanged` signal names: nil when the name has gone, or when the signal cannot be
    /// read.
    public static func newOwner(in signal: DBusMessage) -> String? {
        guard let body = try? signal.body(signature: "sss"), let owner = body[2].string, !owner.isEmpty else {
            return nil
        }
        return owner
    }
}

extension DBusConnection {
    /// Whether some connection owns `name` now.
    public func nameHasOwner(_ name: String, timeout: Duration? = nil) async throws(DBusError) -> Bool {
        let reply = try await call(
            DBusMethodCall(
                destination: DBusNames.bus, path: DBusNames.path, interface: DBusNames.bus, member: "NameHasOwner",
                arguments: [.string(name)]),
            timeout: timeout)
        return try reply.body(signature: "b")[0].boolean ?? false
    }

    /// Whether the bus can start a service for `name` on demand (it has a service file for it).
    public func isActivatable(_ name: String, timeout: Duration? = nil) async throws(DBusError) -> Bool {
        let reply = try await call(
            DBusMethodCall(
                destination: DBusNames.bus, path: DBusNames.path, interface: DBusNames.bus,
                member: "ListActivatableNames"),
            timeout: timeout)
        return try reply.body(signature: "as")[0].strings?.contains(name) ?? false
    }
}
