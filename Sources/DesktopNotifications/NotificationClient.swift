import DBus
import Foundation

/// A client of the desktop's notification server: `org.freedesktop.Notifications` on the session bus
/// (Desktop Notifications Specification 1.2).
///
/// The client connects when first used and again after the connection is lost, so a caller can keep one client for
/// the life of the program: while nobody can be notified, every request fails with a ``NotificationError`` whose
/// ``NotificationError/isUnavailable`` is true, and the first request after a session bus or a notification server
/// has appeared goes through.
///
/// Each ``send(_:)`` asks the server for its capabilities first: the server can be replaced at any moment (another
/// notification daemon started, one activated on demand), and notifications are rare enough that the extra round
/// trip costs nothing worth caching for.
public actor NotificationClient {
    /// Which bus to reach the server on.
    public enum Bus: Sendable, Hashable {
        /// The session bus, found from this environment (see `DBusAddress.session(environment:)`).
        case session(environment: [String: String])
        /// The bus at this D-Bus address.
        case address(String)

        /// The session bus of this process's environment.
        public static var session: Bus { .session(environment: ProcessInfo.processInfo.environment) }
    }

    /// The server's well-known name, object and interface.
    public static let serviceName = "org.freedesktop.Notifications"
    public static let objectPath = "/org/freedesktop/Notifications"
    public static let interface = "org.freedesktop.Notifications"

    /// The `app_name` sent with every notification.
    public let applicationName: String
    /// The desktop entry (file name without `.desktop`) sent as the `desktop-entry` hint, if any.
    public let desktopEntry: String?
    /// How long to wait for each answer from the server.
    public let callTimeout: Duration
    private let bus: Bus
    private var connection: DBusConnection?

    public init(
        applicationName: String = "forecastd", desktopEntry: String? = nil, bus: Bus = .session,
        callTimeout: Duration = .seconds(10)
    ) {
        self.applicationName = applicationName
        self.desktopEntry = desktopEntry
        self.bus = bus
        self.callTimeout = callTimeout
    }

    // MARK: Methods of the specification

    /// The server's name, vendor, version and the specification version it implements.
    public func serverInformation() async throws(NotificationError) -> ServerInformation {
        let body = try await call("GetServerInformation", signature: "ssss")
        return ServerInformation(
            name: body[0].string ?? "", vendor: body[1].string ?? "", version: body[2].string ?? "",
            specificationVersion: body[3].string ?? "")
    }

    /// The optional features the server has.
    public func capabilities() async throws(NotificationError) -> Set<NotificationCapability> {
        let body = try await call("GetCapabilities", signature: "as")
        return Set((body[0].strings ?? []).map(NotificationCapability.init(rawValue:)))
    }

    /// Shows `notification`, or updates the one it replaces, and returns its ID.
    ///
    /// Actions go only to a server with the `actions` capability; the body is sent as markup only to one with
    /// `body-markup`, as plain text otherwise.
    @discardableResult
    public func send(_ notification: DesktopNotification) async throws(NotificationError) -> NotificationID {
        let capabilities = try await capabilities()
        let body = try await call("Notify", signature: "u", arguments: notifyArguments(notification, capabilities))
        return NotificationID(rawValue: body[0].uint32 ?? 0)
    }

    /// Takes a notification away. The server answers with `NotificationClosed` (see ``events()``).
    public func close(_ id: NotificationID) async throws(NotificationError) {
        _ = try await call("CloseNotification", signature: "", arguments: [.uint32(id.rawValue)])
    }

    /// The server's reports about notifications (closed, action invoked, activation token), from now on.
    ///
    /// The sequence ends with a ``NotificationError`` when the bus connection is lost; ask again for a new one.
    public func events() async throws(NotificationError) -> NotificationEvents {
        let connection = try await connected()
        do throws(DBusError) {
            let signals = try await connection.signals(
                matching: DBusSignalMatch(
                    sender: Self.serviceName, path: Self.objectPath, interface: Self.interface))
            return NotificationEvents(signals: signals)
        } catch {
            throw settle(error, on: connection)
        }
    }

    /// Closes the bus connection; the next request opens a new one.
    public func disconnect() async {
        let connection = connection
        self.connection = nil
        await connection?.close()
    }

    // MARK: The arguments of Notify

    /// `Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout)`, adapted to what the
    /// server can do.
    func notifyArguments(_ notification: DesktopNotification, _ capabilities: Set<NotificationCapability>)
        -> [DBusValue]
    {
        let actions =
            capabilities.contains(.actions)
            ? notification.actions.flatMap { [$0.key, $0.label] } : []
        let body =
            capabilities.contains(.bodyMarkup) ? notification.body.markup : notification.body.plainText
        var hints: [DBusDictionaryEntry] = [hint("urgency", .byte(notification.urgency.rawValue))]
        if let category = notification.category { hints.append(hint("category", .string(category))) }
        if let desktopEntry { hints.append(hint("desktop-entry", .string(desktopEntry))) }
        if notification.isTransient { hints.append(hint("transient", .boolean(true))) }
        return [
            .string(applicationName),
            .uint32(notification.replacing?.rawValue ?? 0),
            .string(notification.icon),
            .string(notification.summary),
            .string(body),
            .strings(actions),
            .dictionary(key: .string, value: .variant, hints),
            .int32(notification.expiration.milliseconds),
        ]
    }

    private func hint(_ name: String, _ value: DBusValue) -> DBusDictionaryEntry {
        DBusDictionaryEntry(key: .string(name), value: .variant(value))
    }

    // MARK: The connection

    private func call(_ member: String, signature: String, arguments: [DBusValue] = [])
        async throws(NotificationError) -> [DBusValue]
    {
        let connection = try await connected()
        do throws(DBusError) {
            let reply = try await connection.call(
                DBusMethodCall(
                    destination: Self.serviceName, path: Self.objectPath, interface: Self.interface, member: member,
                    arguments: arguments),
                timeout: callTimeout)
            return try reply.body(signature: signature)
        } catch {
            throw settle(error, on: connection)
        }
    }

    /// The open connection, made now if there is none or the last one was lost.
    private func connected() async throws(NotificationError) -> DBusConnection {
        if let connection, connection.isOpen { return connection }
        connection = nil
        do throws(DBusError) {
            let address: String
            switch bus {
            case .session(let environment): address = try DBusAddress.session(environment: environment)
            case .address(let given): address = given
            }
            let made = try await DBusConnection.connect(address: address)
            // Another request may have connected while this one waited; keep one connection.
            if let connection, connection.isOpen {
                await made.close()
                return connection
            }
            connection = made
            return made
        } catch {
            throw NotificationError(error)
        }
    }

    /// Sorts a failed request's error, and forgets a connection that has ended so the next request makes a new one.
    private func settle(_ error: DBusError, on used: DBusConnection) -> NotificationError {
        if !used.isOpen, connection === used { connection = nil }
        return NotificationError(error)
    }
}

/// The server's reports about notifications, as they arrive.
public struct NotificationEvents: AsyncSequence, Sendable {
    public typealias Element = NotificationEvent

    let signals: DBusSignals

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(signals: signals.makeAsyncIterator())
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var signals: DBusSignals.AsyncIterator

        /// The next event; signals that do not have the specification's signature are skipped.
        public mutating func next() async throws -> NotificationEvent? {
            do {
                while let message = try await signals.next() {
                    if let event = NotificationEvents.event(from: message) { return event }
                }
                return nil
            } catch let error as DBusError {
                throw NotificationError(error)
            }
        }
    }

    static func event(from message: DBusMessage) -> NotificationEvent? {
        let body = message.body
        switch (message.member, message.signature) {
        case ("NotificationClosed", "uu"):
            guard let id = body[0].uint32, let reason = body[1].uint32 else { return nil }
            return .closed(NotificationID(rawValue: id), reason: CloseReason(code: reason))
        case ("ActionInvoked", "us"):
            guard let id = body[0].uint32, let action = body[1].string else { return nil }
            return .actionInvoked(NotificationID(rawValue: id), action: action)
        case ("ActivationToken", "us"):
            guard let id = body[0].uint32, let token = body[1].string else { return nil }
            return .activationToken(NotificationID(rawValue: id), token: token)
        default:
            return nil
        }
    }
}
