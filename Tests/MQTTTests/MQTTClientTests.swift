import Foundation
import MQTT
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The client against a real Mosquitto broker on a loopback port: anonymous, with a password file, with TLS from a
/// test CA; the broker down at start, restarted, killed and hung. `mosquitto_sub` checks what reached the broker.
@Suite(.serialized)
struct MQTTClientTests {
    static func options(
        _ broker: MosquittoBroker, id: String = "test-\(UUID().uuidString.prefix(6))", tls: MQTTOptions.TLS? = nil,
        user: String? = nil, password: String? = nil, will: MQTTMessage? = nil, keepAlive: Int = 60,
        maximumMessageBytes: Int = 1 << 20
    ) -> MQTTOptions {
        MQTTOptions(
            host: tls == nil ? "127.0.0.1" : "localhost", port: broker.port, tls: tls, clientID: id, username: user,
            password: password.map(MQTTOptions.Secret.init), will: will, keepAliveSeconds: keepAlive,
            maximumMessageBytes: maximumMessageBytes)
    }

    @Test func publishesRetainedMessagesThatOtherClientsReceive() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.publish(MQTTMessage(topic: "forecastd/test/report", text: #"{"a":1}"#, retain: true, qos: 1))
        // A client that comes later gets the retained message.
        let seen = try await onOwnThread { try broker.subscribe("forecastd/test/report") }
        #expect(seen == [#"forecastd/test/report {"a":1}"#])
    }

    @Test func receivesWhatItSubscribedTo() async throws {
        let broker = try MosquittoBroker.make()
        try broker.publish("forecastd/pi-van/report", "kept", retain: true)
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.subscribe("forecastd/pi-van/#")
        let retained = try #require(await client.nextMessage())
        #expect(retained.topic == "forecastd/pi-van/report")
        #expect(retained.text == "kept")
        #expect(retained.retain)
        try broker.publish("forecastd/pi-van/status", "online")
        let live = try #require(await client.nextMessage())
        #expect(live == MQTTMessage(topic: "forecastd/pi-van/status", text: "online", retain: false, qos: 1))
    }

    @Test func theWillIsPublishedWhenTheConnectionDiesAndNotOnAGoodbye() async throws {
        let broker = try MosquittoBroker.make()
        let will = MQTTMessage(topic: "forecastd/van/status", text: "offline", retain: true, qos: 1)
        let client = try MQTTTestClient(Self.options(broker, will: will))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.publish(MQTTMessage(topic: "forecastd/van/status", text: "online", retain: true, qos: 1))
        #expect(try await onOwnThread { try broker.subscribe("forecastd/van/status") } == ["forecastd/van/status online"])
        await client.crash()
        #expect(await client.disconnected() != nil)
        #expect(try await onOwnThread { try broker.subscribe("forecastd/van/status") } == ["forecastd/van/status offline"])

        // A goodbye (DISCONNECT) does not publish the will.
        let polite = try MQTTTestClient(Self.options(broker, will: MQTTMessage(topic: "forecastd/polite/status", text: "offline", retain: true)))
        try await polite.connect()
        #expect(await polite.answer() == .connected)
        try await polite.publish(MQTTMessage(topic: "forecastd/polite/status", text: "online", retain: true, qos: 1))
        await polite.disconnect()
        #expect(await polite.disconnected() == .some(nil))
        #expect(try await onOwnThread { try broker.subscribe("forecastd/polite/status") } == ["forecastd/polite/status online"])
    }

    /// More QoS 1 messages at once than the broker's receive maximum (20): libmosquitto holds the rest back until
    /// earlier ones are acknowledged, and a goodbye drops what it still holds. The confirmation of the last one
    /// (`.delivered`) says all of them reached the broker, so a goodbye after it loses none.
    @Test func theConfirmationOfTheLastMessageComesOnceEveryMessageBeforeItReachedTheBroker() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        for index in 0..<60 {
            try await client.publish(
                MQTTMessage(topic: "forecastd/many/\(index)", text: "\(index)", retain: true, qos: 1))
        }
        try await client.publish(
            MQTTMessage(topic: "forecastd/many/status", text: "offline", retain: true, qos: 1), confirmed: true)
        #expect(await client.next { $0 == .delivered } == .delivered)
        await client.disconnect()
        #expect(await client.disconnected() == .some(nil))
        let retained = try await onOwnThread { try broker.retained("forecastd/many/#") }
        #expect(retained.count == 61, "\(retained)")
        #expect(retained.contains("forecastd/many/status offline"))
    }

    @Test func aPasswordFileAdmitsItsUsersOnly() async throws {
        let broker = try MosquittoBroker.make(access: .passwords(["van": "s3cret-Passw0rd"]))
        let wrong = try MQTTTestClient(Self.options(broker, user: "van", password: "guess"))
        try await wrong.connect()
        guard case .connectionRefused(let reason) = await wrong.answer() else {
            Issue.record("a wrong password was not refused: \(await wrong.log.all)")
            return
        }
        #expect(reason.lowercased().contains("not authorized") || reason.lowercased().contains("password"))

        let anonymous = try MQTTTestClient(Self.options(broker))
        try await anonymous.connect()
        guard case .connectionRefused = await anonymous.answer() else {
            Issue.record("an anonymous client was let in: \(await anonymous.log.all)")
            return
        }

        let options = Self.options(broker, user: "van", password: "s3cret-Passw0rd")
        // The password shows nowhere a log line could take it from.
        #expect(!"\(options)".contains("s3cret"))
        #expect(!String(reflecting: options).contains("s3cret"))
        let right = try MQTTTestClient(options)
        try await right.connect()
        #expect(await right.answer() == .connected)
        try await right.publish(MQTTMessage(topic: "forecastd/van/report", text: "x", retain: true, qos: 1))
        #expect(
            try await onOwnThread { try broker.subscribe("forecastd/van/report", user: ("van", "s3cret-Passw0rd")) }
                == ["forecastd/van/report x"])
    }

    @Test func tlsWithTheCAFileConnectsAndTheSystemStoreRefusesAnUnknownCA() async throws {
        let ca = try TestCertificateAuthority.make()
        defer { try? FileManager.default.removeItem(at: ca.directory) }
        let broker = try MosquittoBroker.make(tls: ca)

        let trusted = try MQTTTestClient(Self.options(broker, tls: .caFile(ca.caCertificate.path)))
        try await trusted.connect()
        #expect(await trusted.answer() == .connected)
        try await trusted.publish(MQTTMessage(topic: "forecastd/tls/report", text: "over TLS", retain: true, qos: 1))
        #expect(try await onOwnThread { try broker.subscribe("forecastd/tls/report") } == ["forecastd/tls/report over TLS"])

        // The system's store does not know the test CA: the handshake fails and says why, in the connect's error
        // or in the disconnection, as far as the handshake got before the blocking connect returned.
        let system = try MQTTTestClient(Self.options(broker, tls: .systemStore))
        var failure: String?
        do {
            try await system.connect()
            if case .disconnected(let reason) = await system.answer() { failure = reason }
        } catch {
            failure = "\(error)"
            #expect(failure?.contains("mqtts://localhost:\(broker.port)") == true)
        }
        #expect(failure?.contains("certificate verify failed") == true, "\(failure ?? "connected")")

        // Plain MQTT to a TLS listener gets nowhere either.
        let plain = try MQTTTestClient(Self.options(broker))
        try await plain.connect()
        guard case .disconnected = await plain.answer() else {
            Issue.record("plain MQTT reached a TLS listener: \(await plain.log.all)")
            return
        }
    }

    @Test func aBrokerThatIsDownIsSaidSoAndReachedOnceItRuns() async throws {
        let broker = try MosquittoBroker.make(started: false)
        let client = try MQTTTestClient(Self.options(broker))
        await #expect {
            try await client.connect()
        } throws: { error in
            let text = "\(error)"
            return text.contains("mqtt://127.0.0.1:\(broker.port)") && text.contains("Connection refused")
        }
        try await onOwnThread { try broker.start() }
        try await client.connect()
        #expect(await client.answer() == .connected)
    }

    @Test func aRestartedBrokerEndsTheConnectionAndAReconnectCarriesOn() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.subscribe("forecastd/r/#")

        try await onOwnThread { broker.stop() }
        let reason = try #require(await client.disconnected())
        #expect(reason != nil)
        #expect(await !client.connection.hasSocket)

        try await onOwnThread { try broker.start() }
        try await client.connect()
        #expect(await client.answer() == .connected)
        // A broker without persistence forgot the subscription: the owner subscribes again on `.connected`.
        try await client.subscribe("forecastd/r/#")
        try broker.publish("forecastd/r/report", "again")
        #expect(await client.nextMessage()?.text == "again")
    }

    @Test func aKilledBrokerIsSeenAtOnce() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await onOwnThread { broker.kill() }
        let reason = try #require(await client.disconnected(timeout: .seconds(5)))
        #expect(reason != nil)
    }

    /// A broker that stops answering (SIGSTOP: its socket stays open, as a broker on a machine that froze or a
    /// link that silently died) is given up by the keep-alive, on the client's own timer.
    @Test func aBrokerThatStopsAnsweringIsGivenUpByTheKeepAlive() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker, keepAlive: 5))
        try await client.connect()
        #expect(await client.answer() == .connected)
        let pid = try #require(broker.pid)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        // A PINGREQ 6 s after the last packet, then the connection closed 6 s later for want of a PINGRESP.
        let reason = try #require(await client.disconnected(timeout: .seconds(20)))
        #expect(reason == "The broker did not answer within the keep-alive interval.")
    }

    /// An idle connection wakes the descriptor waiter for it about twice per keep-alive interval (the PINGREQ's deadline, the PINGRESP)
    /// and stays up: no polling, no spinning.
    @Test func anIdleConnectionStaysUpOnItsKeepAliveAlone() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker, keepAlive: 5))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.subscribe("forecastd/idle/#")
        try await Task.sleep(for: .seconds(1))
        let before = client.connection.wakeups
        // Two and a half keep-alive intervals: without its PINGREQs the broker would drop the client after 7.5 s.
        try await Task.sleep(for: .seconds(13))
        let wakeups = client.connection.wakeups - before
        #expect(wakeups >= 2 && wakeups <= 8, "\(wakeups) wakeups in 13 s")
        try broker.publish("forecastd/idle/report", "still here")
        #expect(await client.nextMessage()?.text == "still here")
        #expect(await client.log.all.allSatisfy { if case .disconnected = $0 { false } else { true } })
    }

    /// The broker is told the largest packet this client takes (MQTT 5), and drops larger messages for it: the
    /// big one never arrives, the small one after it does.
    @Test func aMessageOverTheBoundNeverArrives() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker, maximumMessageBytes: 1000))
        try await client.connect()
        #expect(await client.answer() == .connected)
        try await client.subscribe("forecastd/big/#")
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).json")
        try Data(repeating: 0x61, count: 200_000).write(to: big)
        defer { try? FileManager.default.removeItem(at: big) }
        try broker.publish("forecastd/big/report", file: big)
        try broker.publish("forecastd/big/report", "small")
        let message = try #require(await client.nextMessage())
        #expect(message.text == "small")
    }

    @Test func aTopicMQTTDoesNotAllowIsRefusedWithItsName() async throws {
        let broker = try MosquittoBroker.make()
        let client = try MQTTTestClient(Self.options(broker))
        try await client.connect()
        #expect(await client.answer() == .connected)
        await #expect {
            try await client.publish(MQTTMessage(topic: "forecastd/+/report", text: "x"))
        } throws: { "\($0)".contains("forecastd/+/report") }
    }
}
