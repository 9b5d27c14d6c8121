import DBus

/// Why a notification could not be sent, closed or listened for.
///
/// ``isUnavailable`` separates "nobody can be notified here" (no session bus, the bus unreachable, no notification
/// service on it) from real failures: a caller logs the first kind once and carries on, and tries again later,
/// when a notification server or a session may have appeared.
public enum NotificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no session bus at all: the process runs outside a desktop session, as the system service does.
    case noSessionBus(reason: String)
    /// The session bus could not be reached, or the connection to it was lost.
    case busUnreachable(DBusError)
    /// The session bus is there, but nothing provides `org.freedesktop.Notifications` and the bus could not start
    /// anything that does.
    case noNotificationService(DBusError)
    /// The notification server or the bus answered with an error, or with something the specification does not
    /// allow, or did not answer in time.
    case failed(DBusError)
    /// The notification has something D-Bus cannot carry (a NUL character in a text).
    case invalidNotification(String)
    /// The task waiting for the answer was cancelled.
    case cancelled

    /// Whether no notification can reach anyone now: log it once and go on.
    public var isUnavailable: Bool {
        switch self {
        case .noSessionBus, .busUnreachable, .noNotificationService: true
        case .failed, .invalidNotification, .cancelled: false
        }
    }

    public var description: String {
        switch self {
        case .noSessionBus(let reason):
            "Desktop notifications cannot be sent: there is no session bus (\(reason)). forecastd running as a system "
                + "service is outside every desktop session and cannot notify anyone; to get notifications, run it as "
                + "a user service in your session instead (systemd/user/forecastd.service: "
                + "systemctl --user enable --now forecastd) and disable the system service."
        case .busUnreachable(let error):
            "Desktop notifications cannot be sent: the session bus cannot be reached. \(error)"
        case .noNotificationService(let error):
            "Desktop notifications cannot be sent: no notification server runs on the session bus "
                + "(start one, such as dunst, mako or your desktop's own). \(error)"
        case .failed(let error):
            "The notification server failed: \(error)"
        case .invalidNotification(let problem):
            "The notification cannot be sent: \(problem)"
        case .cancelled:
            "The notification request was cancelled."
        }
    }

    /// Sorts a bus error into the conditions above.
    init(_ error: DBusError) {
        switch error {
        case .noSessionBus(let reason):
            self = .noSessionBus(reason: reason)
        case .connectionFailed, .disconnected, .closed:
            self = .busUnreachable(error)
        case .remote(let name, _)
        where name == .serviceUnknown || name == .nameHasNoOwner || name.isActivationFailure:
            self = .noNotificationService(error)
        case .invalidArgument(let problem):
            self = .invalidNotification(problem)
        case .cancelled:
            self = .cancelled
        case .remote, .unexpectedReply, .system:
            self = .failed(error)
        }
    }
}
