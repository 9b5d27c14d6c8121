import DBus
import DesktopNotifications
import Foundation

/// Something that opens a web page for the user: the I/O seam of the "Open warning" action.
public protocol URLOpening: Sendable {
    /// Asks for `url` to be opened; `activationToken` (from the notification server's `ActivationToken`)
    /// lets the browser's window come to the front on Wayland.
    func open(_ url: URL, activationToken: String?) async throws
}

/// Opens pages through the desktop portal: `OpenURI` of `org.freedesktop.portal.OpenURI` on the session bus
/// (xdg-desktop-portal, which every desktop and most window managers' sessions run). The portal opens the
/// user's own browser, asking first if the desktop wants to; forecastd starts no program itself.
public actor DesktopPortal: URLOpening {
    public static let serviceName = "org.freedesktop.portal.Desktop"
    public static let objectPath = "/org/freedesktop/portal/desktop"
    public static let interface = "org.freedesktop.portal.OpenURI"

    private let bus: NotificationClient.Bus
    private let callTimeout: Duration
    private var connection: DBusConnection?

    public init(bus: NotificationClient.Bus = .session, callTimeout: Duration = .seconds(10)) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    /// Calls `OpenURI("", url, {activation_token})`. Throws ``DBusError`` when there is no session bus or no
    /// portal on it, or the portal refuses.
    public func open(_ url: URL, activationToken: String?) async throws {
        let connection = try await connected()
        var options: [DBusDictionaryEntry] = []
        if let activationToken {
            options.append(
                DBusDictionaryEntry(key: .string("activation_token"), value: .variant(.string(activationToken))))
        }
        do {
            _ = try await connection.call(
                DBusMethodCall(
                    destination: Self.serviceName, path: Self.objectPath, interface: Self.interface, member: "OpenURI",
                    arguments: [
                        .string(""), .string(url.absoluteString), .dictionary(key: .string, value: .variant, options),
                    ]),
                timeout: callTimeout)
        } catch {
            if !connection.isOpen { self.connection = nil }
            throw error
        }
    }

    /// Closes the bus connection; the next call opens a new one.
    public func disconnect() async {
        let connection = connection
        self.connection = nil
        await connection?.close()
    }

    private func connected() async throws -> DBusConnection {
        if let connection, connection.isOpen { return connection }
        let address: String
        switch bus {
        case .session(let environment): address = try DBusAddress.session(environment: environment)
        case .address(let given): address = given
        }
        let made = try await DBusConnection.connect(address: address)
        connection = made
        return made
    }
}
