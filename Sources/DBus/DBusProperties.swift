/// `org.freedesktop.DBus.Properties`, the standard interface through which an object's properties are read, written
/// and announced when they change.
public enum DBusProperties {
    public static let interface = "org.freedesktop.DBus.Properties"

    /// The `PropertiesChanged` signals of `interface`'s properties on objects of `sender` (on one object when `path`
    /// is given). The interface is the signal's first argument, so the bus filters the others out: NetworkManager's
    /// access points announce a strength change after every scan, which a follower of the devices never hears.
    public static func changes(sender: String, path: String? = nil, interface: String) -> DBusSignalMatch {
        DBusSignalMatch(
            sender: sender, path: path, interface: Self.interface, member: "PropertiesChanged", argument0: interface)
    }
}

/// One `PropertiesChanged` signal, read: which interface, the new values, and the names whose new values the sender
/// did not include (the receiver reads them again if it cares).
public struct DBusPropertiesChange: Sendable, Hashable {
    public var path: String?
    public var interface: String
    /// The new values, taken out of their variants.
    public var changed: [String: DBusValue]
    public var invalidated: [String]

    /// Reads the signal; a body of another shape (a peer sending something else under the name) is refused.
    public init(_ signal: DBusMessage) throws(DBusError) {
        let body = try signal.body(signature: "sa{sv}as")
        guard let interface = body[0].string, let entries = body[1].dictionary else {
            throw .unexpectedReply("PropertiesChanged from \(signal.sender ?? "an unknown sender") cannot be read")
        }
        path = signal.path
        self.interface = interface
        changed = DBusValue.properties(entries)
        invalidated = body[2].strings ?? []
    }

    /// Whether `name` changed, with or without its new value.
    public func mentions(_ name: String) -> Bool {
        changed[name] != nil || invalidated.contains(name)
    }
}

extension DBusConnection {
    /// Every property of `interface` on the object at `path` of `destination` (`Properties.GetAll`), by name, each
    /// value taken out of its variant.
    ///
    /// - Throws: as ``call(_:timeout:)``, and ``DBusError/unexpectedReply(_:)`` when the reply is not an `a{sv}`.
    ///
    /// - Parameter allowsAutoStart: false for a service that must not be started for the question (NetworkManager
    ///   on a machine that does not run it).
    public func allProperties(
        destination: String, path: String, interface: String, allowsAutoStart: Bool = true, timeout: Duration? = nil
    ) async throws(DBusError) -> [String: DBusValue] {
        let reply = try await call(
            DBusMethodCall(
                destination: destination, path: path, interface: DBusProperties.interface, member: "GetAll",
                arguments: [.string(interface)], allowsAutoStart: allowsAutoStart),
            timeout: timeout)
        guard let entries = try reply.body(signature: "a{sv}")[0].dictionary else {
            throw .unexpectedReply("GetAll of \(interface) on \(path) did not return a dictionary")
        }
        return DBusValue.properties(entries)
    }

    /// One property (`Properties.Get`), taken out of its variant.
    public func property(
        _ name: String, destination: String, path: String, interface: String, allowsAutoStart: Bool = true,
        timeout: Duration? = nil
    ) async throws(DBusError) -> DBusValue {
        let reply = try await call(
            DBusMethodCall(
                destination: destination, path: path, interface: DBusProperties.interface, member: "Get",
                arguments: [.string(interface), .string(name)], allowsAutoStart: allowsAutoStart),
            timeout: timeout)
        let value = try reply.body(signature: "v")[0]
        return value.variant ?? value
    }

    /// Sets one property (`Properties.Set`); `value` is wrapped in a variant here.
    public func setProperty(
        _ name: String, to value: DBusValue, destination: String, path: String, interface: String,
        timeout: Duration? = nil
    ) async throws(DBusError) {
        _ = try await call(
            DBusMethodCall(
                destination: destination, path: path, interface: DBusProperties.interface, member: "Set",
                arguments: [.string(interface), .string(name), .variant(value)]),
            timeout: timeout)
    }
}

extension DBusValue {
    /// An `a{sv}`'s entries as a dictionary of names to values out of their variants; a later duplicate name wins,
    /// entries whose key is not a string are left out.
    static func properties(_ entries: [DBusDictionaryEntry]) -> [String: DBusValue] {
        var properties: [String: DBusValue] = [:]
        for entry in entries {
            guard let name = entry.key.string else { continue }
            properties[name] = entry.value.variant ?? entry.value
        }
        return properties
    }
}
