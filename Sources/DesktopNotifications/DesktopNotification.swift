/// One desktop notification, as the Desktop Notifications Specification (1.2) describes it.
///
/// The client adapts it to the server it reaches: actions are sent only to a server with the `actions` capability,
/// the body is marked up only for one with `body-markup` (and plain text otherwise).
public struct DesktopNotification: Sendable, Hashable {
    /// A one-line summary. Plain text: the specification allows no markup here.
    public var summary: String
    public var body: NotificationBody
    /// An icon name from the icon theme (`weather-severe-alert`) or a `file://` URI; empty for none.
    public var icon: String
    public var urgency: Urgency
    /// The kind of notification (`x-forecastd.warning`); the specification's own categories do not cover weather,
    /// and it asks for vendor categories to start with `x-vendor.`.
    public var category: String?
    /// What the user may do with the notification; shown only by servers with the `actions` capability.
    public var actions: [NotificationAction]
    public var expiration: Expiration
    /// An earlier notification that this one updates in place.
    public var replacing: NotificationID?
    /// Asks the server not to keep the notification in its history once it is gone (the `transient` hint).
    public var isTransient: Bool

    public init(
        summary: String, body: NotificationBody = NotificationBody(), icon: String = "", urgency: Urgency = .normal,
        category: String? = nil, actions: [NotificationAction] = [], expiration: Expiration = .serverDefault,
        replacing: NotificationID? = nil, isTransient: Bool = false
    ) {
        self.summary = summary
        self.body = body
        self.icon = icon
        self.urgency = urgency
        self.category = category
        self.actions = actions
        self.expiration = expiration
        self.replacing = replacing
        self.isTransient = isTransient
    }
}

/// The number a server gives a notification; use it to replace or close that notification. Servers start again
/// from 1 when they restart, so an ID remembered across restarts may name someone else's notification by then.
public struct NotificationID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }
}

/// How urgent a notification is: the `urgency` hint. Servers may show critical ones until dismissed.
public enum Urgency: UInt8, Sendable, Hashable, CaseIterable {
    case low = 0
    case normal = 1
    case critical = 2
}

/// An action the user can take on a notification: a button, or for ``NotificationAction/defaultKey`` a click on
/// the notification itself.
public struct NotificationAction: Sendable, Hashable {
    /// What the server sends back in `ActionInvoked`.
    public var key: String
    /// What the user sees.
    public var label: String

    public init(key: String, label: String) {
        self.key = key
        self.label = label
    }

    /// The key of the action a click on the notification invokes.
    public static let defaultKey = "default"
}

/// When the server should take a notification away by itself.
public enum Expiration: Sendable, Hashable {
    /// The server decides (`expire_timeout` -1).
    case serverDefault
    /// Stay until the user dismisses it (0).
    case never
    /// After this long; rounded up to whole milliseconds, at most about 24 days.
    case after(Duration)

    /// The `expire_timeout` argument of `Notify`, in milliseconds.
    public var milliseconds: Int32 {
        switch self {
        case .serverDefault: return -1
        case .never: return 0
        case .after(let duration):
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0, duration > .zero else { return 1 }
            let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
            guard !milliseconds.overflow else { return Int32.max }
            let rounded = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            return Int32(clamping: max(1, rounded))
        }
    }
}

/// What a notification server says about itself (`GetServerInformation`).
public struct ServerInformation: Sendable, Hashable {
    public var name: String
    public var vendor: String
    public var version: String
    /// The version of the specification the server implements (`1.2`).
    public var specificationVersion: String

    public init(name: String, vendor: String, version: String, specificationVersion: String) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specificationVersion = specificationVersion
    }
}

/// An optional feature of a notification server (`GetCapabilities`).
public struct NotificationCapability: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// The server shows actions and reports `ActionInvoked`.
    public static let actions: NotificationCapability = "actions"
    /// The server shows the body at all.
    public static let body: NotificationCapability = "body"
    /// The server understands markup in the body.
    public static let bodyMarkup: NotificationCapability = "body-markup"
    /// The server shows links in the body.
    public static let bodyHyperlinks: NotificationCapability = "body-hyperlinks"
    /// The server keeps notifications until the user acts on them.
    public static let persistence: NotificationCapability = "persistence"
    public static let iconStatic: NotificationCapability = "icon-static"
    public static let sound: NotificationCapability = "sound"
}

/// Something a notification server reports about a notification.
public enum NotificationEvent: Sendable, Hashable {
    /// The notification is gone (`NotificationClosed`).
    case closed(NotificationID, reason: CloseReason)
    /// The user chose an action (`ActionInvoked`); `action` is its ``NotificationAction/key``.
    case actionInvoked(NotificationID, action: String)
    /// A token to activate a window with, sent just before `ActionInvoked` by servers implementing 1.2
    /// (`ActivationToken`).
    case activationToken(NotificationID, token: String)

    /// The notification the event is about. Servers broadcast these signals to every client, so the IDs of other
    /// programs' notifications appear too: match them against the IDs you were given.
    public var id: NotificationID {
        switch self {
        case .closed(let id, _), .actionInvoked(let id, _), .activationToken(let id, _): id
        }
    }
}

/// Why a notification was closed.
public enum CloseReason: Sendable, Hashable {
    case expired
    case dismissedByUser
    /// Closed by a `CloseNotification` call.
    case closedByCall
    case undefined
    /// A value the specification does not define.
    case other(UInt32)

    init(code: UInt32) {
        switch code {
        case 1: self = .expired
        case 2: self = .dismissedByUser
        case 3: self = .closedByCall
        case 4: self = .undefined
        default: self = .other(code)
        }
    }
}
