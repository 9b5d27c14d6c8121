/// A method call to send: where it goes, what it asks, and its arguments.
public struct DBusMethodCall: Sendable, Hashable {
    /// The bus name of the peer (`org.freedesktop.Notifications`, or a unique name such as `:1.42`).
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
    /// Whether the bus may start the service that owns `destination` if nobody owns it yet (D-Bus activation).
    public var allowsAutoStart: Bool

    public init(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        allowsAutoStart: Bool = true
    ) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.allowsAutoStart = allowsAutoStart
    }
}

/// A message received from the bus (a method reply or a signal), read in full into values.
public struct DBusMessage: Sendable, Hashable {
    /// The unique name of the connection that sent it (`:1.7`); the bus itself is `org.freedesktop.DBus`.
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The body's signature (`ssss`, `a(tsav)`, or empty).
    public var signature: String
    public var body: [DBusValue]

    public init(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        signature: String, body: [DBusValue]
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.signature = signature
        self.body = body
    }

    /// The body, after checking that its signature is `expected`: what a typed reader calls first.
    public func body(signature expected: String) throws(DBusError) -> [DBusValue] {
        guard signature == expected else {
            let what = member.map { "\($0) " } ?? ""
            throw .unexpectedReply(
                "\(what)from \(sender ?? "an unknown sender") has the signature \"\(signature)\", "
                    + "expected \"\(expected)\"")
        }
        return body
    }
}

/// Which signals to receive. A field left nil matches anything.
///
/// `sender` may be a well-known name (`org.freedesktop.Notifications`): the bus then delivers the signals that
/// its current owner sends, whoever that is. `argument0` narrows a busy signal down on the bus's side, so that what
/// is not wanted never wakes the process: `NameOwnerChanged` for one name, `PropertiesChanged` of one interface.
public struct DBusSignalMatch: Sendable, Hashable {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The first argument, when it is a string, must be exactly this.
    public var argument0: String?

    public init(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        argument0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.argument0 = argument0
    }

    /// The match as a rule of the D-Bus specification (`type='signal',sender='…',arg0='…'`). Values are quoted as
    /// they are: a value holding a single quote cannot be written in a rule sd-bus reads (it refuses the
    /// specification's `'\''`), and such a match is refused when it is made.
    public var rule: String {
        var parts = ["type='signal'"]
        for (key, value) in [
            ("sender", sender), ("path", path), ("interface", interface), ("member", member), ("arg0", argument0),
        ] {
            guard let value else { continue }
            parts.append("\(key)='\(value)'")
        }
        return parts.joined(separator: ",")
    }
}
