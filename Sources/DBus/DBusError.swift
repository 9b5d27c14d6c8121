#if canImport(Glibc)
    import Glibc
#endif

/// What went wrong talking to a bus.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no session bus to connect to; `reason` says what was looked at.
    case noSessionBus(reason: String)
    /// Connecting to the bus at `address` failed (no socket there, refused, authentication failed).
    case connectionFailed(address: String, reason: String)
    /// The connection was lost: the bus went away or broke the connection.
    case disconnected(reason: String)
    /// The connection was closed on this side before or while the request ran.
    case closed
    /// The peer answered with a D-Bus error, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
    case remote(name: DBusErrorName, message: String)
    /// A value could not be sent as given (a string with a NUL, an array whose elements disagree with its type…).
    case invalidArgument(String)
    /// A reply or signal did not have the signature the caller expected.
    case unexpectedReply(String)
    /// The task waiting for the request was cancelled.
    case cancelled
    /// An sd-bus call failed with an errno value.
    case system(operation: String, code: Int32)

    public var description: String {
        switch self {
        case .noSessionBus(let reason):
            "There is no session bus: \(reason)."
        case .connectionFailed(let address, let reason):
            "Cannot connect to the bus at \(address): \(reason)."
        case .disconnected(let reason):
            "The bus connection was lost: \(reason)."
        case .closed:
            "The bus connection is closed."
        case .remote(let name, let message):
            message.isEmpty ? "\(name.rawValue)" : "\(name.rawValue): \(message)"
        case .invalidArgument(let problem):
            "Invalid D-Bus argument: \(problem)."
        case .unexpectedReply(let problem):
            "Unexpected D-Bus reply: \(problem)."
        case .cancelled:
            "The D-Bus request was cancelled."
        case .system(let operation, let code):
            "\(operation) failed: \(DBusError.describe(errno: code))."
        }
    }

    /// The error's D-Bus name when the peer answered with an error.
    public var remoteName: DBusErrorName? {
        if case .remote(let name, _) = self { name } else { nil }
    }

    static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// The name of a D-Bus error, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
public struct DBusErrorName: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// No connection owns the name a call was addressed to, and none can be started for it.
    public static let serviceUnknown: DBusErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The bus was asked about a name nobody owns.
    public static let nameHasNoOwner: DBusErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// No reply came: the call timed out, or the connection ended before the reply.
    public static let noReply: DBusErrorName = "org.freedesktop.DBus.Error.NoReply"
    public static let unknownMethod: DBusErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject: DBusErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface: DBusErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let invalidArgs: DBusErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let accessDenied: DBusErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    public static let matchRuleInvalid: DBusErrorName = "org.freedesktop.DBus.Error.MatchRuleInvalid"

    /// Whether the bus tried to start the service for the name and failed
    /// (`org.freedesktop.DBus.Error.Spawn.ChildExited` and its siblings).
    public var isActivationFailure: Bool { rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.") }
}
