import DBus
import DesktopNotifications
import Foundation
import TestSupport

/// Starts python-dbusmock's `notification_daemon` template on `bus`: a notification server that answers as the
/// specification says, returns increasing IDs (or the one replaced), emits `NotificationClosed` on
/// `CloseNotification`, and logs every call. `capabilities` replaces its default ones (which include
/// `body-markup` but not `actions`).
func startNotificationServer(on bus: PrivateDBusDaemon, capabilities: [String]? = nil) async throws -> DBusMock {
    var parameters: String?
    if let capabilities {
        let json = try JSONSerialization.data(withJSONObject: ["capabilities": capabilities.joined(separator: " ")])
        parameters = String(decoding: json, as: UTF8.self)
    }
    return try await DBusMock.start(
        on: bus, template: "notification_daemon", name: NotificationClient.serviceName,
        path: NotificationClient.objectPath, parameters: parameters)
}

/// Runs `body` with a private bus, a notification server on it, and a client of that bus; stops them all afterwards.
func withNotificationServer<T>(
    capabilities: [String]? = nil, _ body: (PrivateDBusDaemon, DBusMock, NotificationClient) async throws -> T
) async throws -> T {
    try await withPrivateBus { bus in
        let server = try await startNotificationServer(on: bus, capabilities: capabilities)
        defer { server.stop() }
        let client = NotificationClient(
            applicationName: "forecastd", desktopEntry: "forecastd", bus: .address(bus.address))
        do {
            let result = try await body(bus, server, client)
            await client.disconnect()
            return result
        } catch {
            await client.disconnect()
            throw error
        }
    }
}

extension DBusMock {
    /// The arguments of each `Notify` the server received, oldest first.
    func notifyCalls() async throws -> [NotifyCall] {
        try await calls(of: "Notify").map(NotifyCall.init)
    }
}

/// One `Notify` call as the server logged it.
struct NotifyCall {
    var arguments: [DBusValue]

    var applicationName: String? { arguments[0].string }
    var replacesID: UInt32? { arguments[1].uint32 }
    var icon: String? { arguments[2].string }
    var summary: String? { arguments[3].string }
    var body: String? { arguments[4].string }
    var actions: [String]? { arguments[5].array?.compactMap(\.string) }
    var hints: DBusValue { arguments[6] }
    var expireTimeout: Int32? { arguments[7].int32 }

    /// A hint's value, out of its variant.
    func hint(_ name: String) -> DBusValue? { hints[name]?.variant ?? hints[name] }
}

/// Reads events until one satisfies `predicate`, and returns it with those skipped before it.
func nextEvent(
    _ iterator: inout NotificationEvents.AsyncIterator, where predicate: (NotificationEvent) -> Bool
) async throws -> NotificationEvent? {
    while let event = try await iterator.next() {
        if predicate(event) { return event }
    }
    return nil
}
