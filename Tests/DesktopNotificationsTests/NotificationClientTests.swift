import DBus
import DesktopNotifications
import Foundation
import Localization
import TestSupport
import Testing

@Suite(
    "NotificationClient against python-dbusmock's notification server on a private bus",
    .timeLimit(.minutes(3)))
struct NotificationClientTests {
    @Test("Server information and capabilities are the server's")
    func serverInformationAndCapabilities() async throws {
        try await withNotificationServer { _, _, client in
            let information = try await client.serverInformation()
            #expect(
                information
                    == ServerInformation(
                        name: "mock-notify", vendor: "test vendor", version: "1.0", specificationVersion: "1.1"))
            let capabilities = try await client.capabilities()
            #expect(capabilities.contains(.bodyMarkup))
            #expect(capabilities.contains(.body))
            #expect(!capabilities.contains(.actions))
        }
        try await withNotificationServer(capabilities: ["body", "actions", "persistence"]) { _, _, client in
            let capabilities = try await client.capabilities()
            #expect(capabilities == [.body, .actions, .persistence])
        }
    }

    @Test("Notify carries the notification as given, and each gets an ID of its own")
    func notifyArguments() async throws {
        try await withNotificationServer(capabilities: ["body"]) { _, server, client in
            let warning = DesktopNotification(
                summary: "Severe thunderstorm warning", body: "Until 21:00 <local time> & beyond",
                icon: "weather-severe-alert", urgency: .critical, category: "x-forecastd.warning",
                expiration: .after(.seconds(5)))
            let first = try await client.send(warning)
            let second = try await client.send(
                DesktopNotification(summary: "Rain in 20 min", urgency: .low, expiration: .never, isTransient: true))
            #expect(first != second)

            let calls = try await server.notifyCalls()
            try #require(calls.count == 2)
            let sent = calls[0]
            #expect(sent.applicationName == "forecastd")
            #expect(sent.replacesID == 0)
            #expect(sent.icon == "weather-severe-alert")
            #expect(sent.summary == "Severe thunderstorm warning")
            // No body-markup: plain text, nothing escaped.
            #expect(sent.body == "Until 21:00 <local time> & beyond")
            #expect(sent.actions == [])
            #expect(sent.hint("urgency") == .byte(2))
            #expect(sent.hint("category") == .string("x-forecastd.warning"))
            #expect(sent.hint("desktop-entry") == .string("forecastd"))
            #expect(sent.hint("transient") == nil)
            #expect(sent.expireTimeout == 5000)

            #expect(calls[1].hint("urgency") == .byte(0))
            #expect(calls[1].hint("category") == nil)
            #expect(calls[1].hint("transient") == .boolean(true))
            #expect(calls[1].expireTimeout == 0)
            #expect(calls[1].body == "")
        }
    }

    @Test("An update replaces the earlier notification: same ID, replaces_id sent")
    func replaces() async throws {
        try await withNotificationServer { _, server, client in
            let original = try await client.send(DesktopNotification(summary: "Wind warning (moderate)"))
            let updated = try await client.send(
                DesktopNotification(summary: "Wind warning (severe)", urgency: .critical, replacing: original))
            #expect(updated == original)
            let calls = try await server.notifyCalls()
            #expect(calls.count == 2)
            #expect(calls.map(\.replacesID) == [0, original.rawValue])
            #expect(calls.map(\.summary) == ["Wind warning (moderate)", "Wind warning (severe)"])
        }
    }

    @Test("close() sends CloseNotification with the ID, and NotificationClosed arrives as an event")
    func closeAndClosedEvent() async throws {
        try await withNotificationServer { _, server, client in
            var events = try await client.events().makeAsyncIterator()
            let kept = try await client.send(DesktopNotification(summary: "Fog until 10:00"))
            let cancelled = try await client.send(DesktopNotification(summary: "Frost warning"))
            try await client.close(cancelled)

            let closed = try await nextEvent(&events) { _ in true }
            // dbusmock's template gives reason 1 (expired) whatever the cause; a real server says 3.
            #expect(closed == .closed(cancelled, reason: .expired))
            // dbusmock declares CloseNotification's argument as int32 (the specification says uint32) and logs it so.
            let closes = try await server.calls(of: "CloseNotification")
            #expect(closes == [[.int32(Int32(cancelled.rawValue))]])
            #expect(try await server.notifyCalls().count == 2)
            #expect(kept != cancelled)
        }
    }

    @Test("Actions go to a server that shows them, and to no other")
    func actionsOnlyWithCapability() async throws {
        let withAction = DesktopNotification(
            summary: "Heavy rain warning",
            actions: [NotificationAction(key: NotificationAction.defaultKey, label: "Open forecast")])
        try await withNotificationServer(capabilities: ["body", "actions"]) { _, server, client in
            try await client.send(withAction)
            #expect(try await server.notifyCalls().map(\.actions) == [["default", "Open forecast"]])
        }
        try await withNotificationServer(capabilities: ["body"]) { _, server, client in
            try await client.send(withAction)
            #expect(try await server.notifyCalls().map(\.actions) == [[]])
        }
    }

    @Test("ActionInvoked and ActivationToken become events; signals of the wrong shape are skipped")
    func actionEvents() async throws {
        try await withNotificationServer(capabilities: ["body", "actions"]) { _, server, client in
            var events = try await client.events().makeAsyncIterator()
            let id = try await client.send(
                DesktopNotification(
                    summary: "Heavy rain warning",
                    actions: [NotificationAction(key: NotificationAction.defaultKey, label: "Open forecast")]))
            let interface = NotificationClient.interface
            // A broken server's signal: wrong signature. It must not end the stream or become an event.
            try await server.emitSignal(
                interface: interface, member: "ActionInvoked", signature: "u", arguments: [.uint32(id.rawValue)])
            try await server.emitSignal(
                interface: interface, member: "ActivationToken", signature: "us",
                arguments: [.uint32(id.rawValue), .string("token-123")])
            try await server.emitSignal(
                interface: interface, member: "ActionInvoked", signature: "us",
                arguments: [.uint32(id.rawValue), .string("default")])

            #expect(try await events.next() == .activationToken(id, token: "token-123"))
            #expect(try await events.next() == .actionInvoked(id, action: "default"))
        }
    }

    @Test("The body is escaped markup for a body-markup server and plain text for others")
    func bodyMarkup() async throws {
        let body = NotificationBody([.bold("Rain in 20 min"), .text(" (moderate) — PM2.5 <10 & O₃ >90")])
        try await withNotificationServer(capabilities: ["body", "body-markup"]) { _, server, client in
            try await client.send(DesktopNotification(summary: "Rain soon", body: body))
            #expect(
                try await server.notifyCalls().map(\.body)
                    == ["<b>Rain in 20 min</b> (moderate) — PM2.5 &lt;10 &amp; O₃ &gt;90"])
        }
        try await withNotificationServer(capabilities: ["body"]) { _, server, client in
            try await client.send(DesktopNotification(summary: "Rain soon", body: body))
            let bodies = try await server.notifyCalls().map(\.body)
            #expect(bodies == ["Rain in 20 min (moderate) — PM2.5 <10 & O₃ >90"])
        }
    }

    @Test("A bus without a notification service: noNotificationService, unavailable, named ServiceUnknown")
    func noService() async throws {
        try await withPrivateBus { bus in
            let client = NotificationClient(bus: .address(bus.address))
            await #expect {
                try await client.send(DesktopNotification(summary: "Nobody will see this"))
            } throws: { error in
                guard let error = error as? NotificationError, case .noNotificationService(let cause) = error else {
                    return false
                }
                return error.isUnavailable && cause.remoteName == .serviceUnknown
                    && "\(error)".contains("no notification server")
            }
            await #expect(throws: NotificationError.self) { try await client.serverInformation() }
            await client.disconnect()
        }
    }

    @Test("A notification server the bus cannot start (it exits at once): noNotificationService, unavailable")
    func activationFails() async throws {
        try await withPrivateBus(activatable: [NotificationClient.serviceName: "/bin/false"]) { bus in
            let client = NotificationClient(bus: .address(bus.address))
            await #expect {
                try await client.send(DesktopNotification(summary: "Nobody will see this"))
            } throws: { error in
                guard let error = error as? NotificationError, case .noNotificationService(let cause) = error else {
                    return false
                }
                // dbus-daemon says org.freedesktop.DBus.Error.Spawn.ChildExited.
                return error.isUnavailable && cause.remoteName?.isActivationFailure == true
            }
            await client.disconnect()
        }
    }

    @Test("No session bus at all (the system service): noSessionBus, with how to use the user unit instead")
    func noSessionBus() async throws {
        let client = NotificationClient(bus: .session(environment: ["HOME": "/root"]))
        await #expect {
            try await client.send(DesktopNotification(summary: "Nobody will see this"))
        } throws: { error in
            guard let error = error as? NotificationError, case .noSessionBus = error else { return false }
            let text = "\(error)"
            return error.isUnavailable && text.contains("cannot be sent") && text.contains("system service")
                && text.contains("systemctl --user enable --now forecastd")
        }
    }

    @Test("A bus address where no bus listens: busUnreachable, unavailable")
    func busUnreachable() async throws {
        try await withTemporaryDirectory("notify-none") { directory in
            let address = "unix:path=" + directory.appendingPathComponent("bus").path
            let client = NotificationClient(bus: .address(address))
            await #expect {
                try await client.send(DesktopNotification(summary: "Nobody will see this"))
            } throws: { error in
                guard let error = error as? NotificationError, case .busUnreachable = error else { return false }
                return error.isUnavailable && "\(error)".contains(address)
            }
        }
    }

    @Test("The client goes on: a server that starts later, and a bus that comes back, get the next notification")
    func recovers() async throws {
        try await withTemporaryDirectory("notify-recover") { directory in
            var bus = try await PrivateDBusDaemon.start(in: directory)
            // The address without the bus's guid, as a user unit's DBUS_SESSION_BUS_ADDRESS is: a new bus at the
            // same socket is then the same session bus.
            let client = NotificationClient(bus: .address("unix:path=" + bus.socketPath))

            await #expect(throws: NotificationError.self) { try await client.send(DesktopNotification(summary: "1")) }
            var server = try await startNotificationServer(on: bus)
            #expect(try await client.send(DesktopNotification(summary: "2")) == NotificationID(rawValue: 1))

            let events = try await client.events()
            server.stop()
            await bus.stop()
            await #expect {
                try await client.send(DesktopNotification(summary: "3"))
            } throws: { error in (error as? NotificationError)?.isUnavailable == true }
            // The events of the lost connection end with the same condition.
            await #expect {
                for try await _ in events {}
            } throws: { error in (error as? NotificationError)?.isUnavailable == true }

            bus = try await PrivateDBusDaemon.start(in: directory)
            server = try await startNotificationServer(on: bus)
            #expect(try await client.send(DesktopNotification(summary: "4")) == NotificationID(rawValue: 1))
            #expect(try await server.notifyCalls().map(\.summary) == ["4"])
            await client.disconnect()
            server.stop()
            await bus.stop()
        }
    }
}

@Suite("Notification values")
struct NotificationValueTests {
    @Test("expire_timeout: -1 for the server's default, 0 for never, whole milliseconds rounded up otherwise")
    func expiration() {
        #expect(Expiration.serverDefault.milliseconds == -1)
        #expect(Expiration.never.milliseconds == 0)
        #expect(Expiration.after(.seconds(5)).milliseconds == 5000)
        #expect(Expiration.after(.microseconds(1500)).milliseconds == 2)
        #expect(Expiration.after(.nanoseconds(1)).milliseconds == 1)
        #expect(Expiration.after(.zero).milliseconds == 1)
        #expect(Expiration.after(.seconds(-3)).milliseconds == 1)
        #expect(Expiration.after(.seconds(1_000_000_000)).milliseconds == Int32.max)
    }

    @Test("Markup escapes &, < and >, and only those")
    func escaping() {
        #expect(Markup.escaped("a < b && c > d \"q\" 'a'") == "a &lt; b &amp;&amp; c &gt; d \"q\" 'a'")
        let body: NotificationBody = "Fog <1 km"
        #expect(body.markup == "Fog &lt;1 km")
        #expect(body.plainText == "Fog <1 km")
        #expect(NotificationBody([.italic("until 10:00")]).markup == "<i>until 10:00</i>")
        #expect(NotificationBody().isEmpty)
    }

    @Test("Close reasons follow the specification's codes")
    func closeReasons() async throws {
        // Decoded from real signals: a server emits each code.
        try await withNotificationServer { _, server, client in
            var events = try await client.events().makeAsyncIterator()
            for code: UInt32 in [1, 2, 3, 4, 99] {
                try await server.emitSignal(
                    interface: NotificationClient.interface, member: "NotificationClosed", signature: "uu",
                    arguments: [.uint32(7), .uint32(code)])
            }
            var reasons: [CloseReason] = []
            for _ in 0..<5 {
                if case .closed(_, let reason) = try await events.next() { reasons.append(reason) }
            }
            #expect(reasons == [.expired, .dismissedByUser, .closedByCall, .undefined, .other(99)])
        }
    }
}
