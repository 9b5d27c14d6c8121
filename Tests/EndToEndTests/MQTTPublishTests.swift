import Foundation
import TestSupport
import Testing

/// The daemon publishing on a real Mosquitto broker (`[mqtt]`), checked with `mosquitto_sub`: the report
/// retained, the status and its will, Home Assistant's discovery configs; a broker down at start, killed and
/// restarted never stops the daemon, and what is retained comes back after the reconnect.
@Suite(.serialized)
struct MQTTPublishTests {
    static func mqttSettings(_ broker: MosquittoBroker, topic: String) -> String {
        """

        [mqtt]
        enabled = true
        url = "mqtt://127.0.0.1:\(broker.port)"
        topic = "\(topic)"

        """
    }

    /// The retained payload of `topic` as JSON, nil while there is none.
    static func retainedJSON(_ broker: MosquittoBroker, _ topic: String) async throws -> [String: Any]? {
        let lines = try await onOwnThread { try broker.retained(topic) }
        guard let line = lines.first, line.hasPrefix(topic + " ") else { return nil }
        return try JSONSerialization.jsonObject(with: Data(line.dropFirst(topic.count + 1).utf8)) as? [String: Any]
    }

    static func retained(_ broker: MosquittoBroker, _ filter: String) async throws -> [String] {
        try await onOwnThread { try broker.retained(filter) }
    }

    @Test func theReportTheStatusAndTheDiscoveryConfigsAreRetainedAndOfflineFollowsAStop() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: Self.mqttSettings(broker, topic: "forecastd/e2e"))
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "the report on MQTT", timeout: .seconds(20)) {
            try await Self.retainedJSON(broker, "forecastd/e2e/report") != nil
        }
        let shared = try #require(try await Self.retainedJSON(broker, "forecastd/e2e/report"))
        #expect(shared["forecastd_share"] as? Int == 1)
        let report = try #require(shared["report"] as? [String: Any])
        let socket = try await socketReport(daemon.socketPath)
        let current = try #require(report["current"] as? [String: Any])
        #expect(current["temperature"] as? Double == socket.current?.temperature)
        #expect((shared["publisher"] as? [String: Any])?["topic"] as? String == "forecastd/e2e")
        #expect(shared["model"] is [String: Any])
        #expect(try await Self.retained(broker, "forecastd/e2e/status") == ["forecastd/e2e/status online"])

        // One device of 18 entities in Home Assistant's discovery, each reading the report topic.
        let configs = try await Self.retained(broker, "homeassistant/+/forecastd_e2e/+/config")
        #expect(configs.count == 18, "\(configs)")
        let temperature = try #require(configs.first { $0.hasPrefix("homeassistant/sensor/forecastd_e2e/temperature/config ") })
        let config = try #require(
            try JSONSerialization.jsonObject(with: Data(temperature.drop { $0 != " " }.dropFirst().utf8)) as? [String: Any])
        #expect(config["state_topic"] as? String == "forecastd/e2e/report")
        #expect(config["unit_of_measurement"] as? String == "°C")
        #expect(config["availability_topic"] as? String == "forecastd/e2e/status")

        // A graceful stop says offline (and the goodbye keeps the broker from sending the will over it).
        #expect(await daemon.stop() == 0)
        #expect(try await Self.retained(broker, "forecastd/e2e/status") == ["forecastd/e2e/status offline"])
        #expect(!daemon.log.contains(" error: ") && !daemon.log.contains(" critical: "), "\(daemon.log)")
    }

    /// A broker that admits its users only: a wrong password from `password_file` is refused, said and retried
    /// while the daemon serves on; the right one from systemd's credential (`password_file = ""`) is let in. The
    /// log never shows either.
    @Test func aPasswordFileOrTheSystemdCredentialAdmitsTheDaemonAndTheLogNeverShowsThePassword() async throws {
        let broker = try MosquittoBroker.make(access: .passwords(["van": "s3cret-Passw0rd"]))
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        let passwordFile = directory.path + "/mqtt-password"
        try "wrong-s3cret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let refused = try await startPinnedAtSamara(
            server: server,
            extra: Self.mqttSettings(broker, topic: "forecastd/auth1")
                + "username = \"van\"\npassword_file = \"\(passwordFile)\"\n",
            in: directory)
        defer { refused.removeDirectory() }
        try await refused.wait(for: "the refusal in the log") {
            refused.log.contains("The MQTT broker refused this client")
        }
        #expect(refused.isRunning)
        #expect(try await socketReport(refused.socketPath).current != nil)
        #expect(await refused.stop() == 0)
        #expect(!refused.log.contains("wrong-s3cret"))

        let credentials = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: credentials) }
        try "s3cret-Passw0rd\n".write(toFile: credentials.path + "/mqtt-password", atomically: true, encoding: .utf8)
        let admitted = try await startPinnedAtSamara(
            server: server,
            extra: Self.mqttSettings(broker, topic: "forecastd/auth2") + "username = \"van\"\n",
            environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        defer { admitted.removeDirectory() }
        try await admitted.wait(for: "the report on MQTT", timeout: .seconds(20)) {
            !(try await onOwnThread { try broker.retained("forecastd/auth2/report", user: ("van", "s3cret-Passw0rd")) })
                .isEmpty
        }
        #expect(await admitted.stop() == 0)
        #expect(!admitted.log.contains("s3cret"))
    }

    /// `mqtts://` from the settings file to the broker's TLS listener: with `ca_file` naming the test CA the report
    /// is published; without it the system's store does not know that CA, so the handshake is refused, said once
    /// with the reason, and the daemon serves on.
    @Test func mqttsWithTheCAFileIsPublishedAndAnUnknownCAIsRefusedWithoutStoppingTheDaemon() async throws {
        let ca = try TestCertificateAuthority.make()
        defer { try? FileManager.default.removeItem(at: ca.directory) }
        let broker = try MosquittoBroker.make(tls: ca)
        let server = try await ReplayServer.start()
        func settings(_ topic: String, caFile: String?) -> String {
            "\n[mqtt]\nenabled = true\nurl = \"mqtts://localhost:\(broker.port)\"\ntopic = \"\(topic)\"\n"
                + (caFile.map { "ca_file = \"\($0)\"\n" } ?? "")
        }

        let trusted = try await startPinnedAtSamara(
            server: server, extra: settings("forecastd/tls1", caFile: ca.caCertificate.path))
        defer { trusted.removeDirectory() }
        try await trusted.wait(for: "the report on MQTT over TLS", timeout: .seconds(20)) {
            try await Self.retainedJSON(broker, "forecastd/tls1/report") != nil
        }
        #expect(try await Self.retained(broker, "forecastd/tls1/status") == ["forecastd/tls1/status online"])
        #expect(await trusted.stop() == 0)

        let untrusted = try await startPinnedAtSamara(server: server, extra: settings("forecastd/tls2", caFile: nil))
        defer { untrusted.removeDirectory() }
        try await untrusted.wait(for: "the refused handshake in the log", timeout: .seconds(20)) {
            untrusted.log.contains("certificate verify failed")
        }
        #expect(untrusted.isRunning)
        #expect(try await socketReport(untrusted.socketPath).current != nil)
        #expect(try await Self.retained(broker, "forecastd/tls2/#").isEmpty)
        #expect(await untrusted.stop() == 0)
    }

    /// Each listed city's report under `TOPIC/cities/ID/report` and its device in Home Assistant (13 entities: no
    /// warnings, air, rain soon or location source); a city taken off the list has both emptied.
    @Test func eachListedCityIsPublishedAndOneTakenOffTheListIsRemoved() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let paris = "\n[[cities]]\nname = \"Paris\"\ncountry = \"FR\"\nlatitude = 48.85341\nlongitude = 2.3488\n"
        let saoPaulo = "\n[[cities]]\nname = \"São Paulo\"\ncountry = \"BR\"\nlatitude = -23.5475\nlongitude = -46.63611\n"
        let mqtt = Self.mqttSettings(broker, topic: "forecastd/c")
        let daemon = try await startPinnedAtSamara(server: server, extra: mqtt + paris + saoPaulo)
        defer { daemon.removeDirectory() }
        for id in ["paris-fr", "sao-paulo-br"] {
            try await daemon.wait(for: "\(id)'s report on MQTT", timeout: .seconds(20)) {
                let shared = try await Self.retainedJSON(broker, "forecastd/c/cities/\(id)/report")
                return (shared?["report"] as? [String: Any])?["current"] != nil
            }
            let configs = try await Self.retained(broker, "homeassistant/+/forecastd_c_city_\(id)/+/config")
            #expect(configs.count == 13, "\(id): \(configs)")
        }

        // São Paulo leaves the list (the daemon applies the edit live): its report and its entities go.
        let settings = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try settings.replacingOccurrences(of: saoPaulo, with: "").write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try await daemon.wait(for: "São Paulo's report removed", timeout: .seconds(20)) {
            try await Self.retained(broker, "forecastd/c/cities/sao-paulo-br/report").isEmpty
        }
        #expect(try await Self.retained(broker, "homeassistant/+/forecastd_c_city_sao-paulo-br/+/config").isEmpty)
        #expect(try await Self.retained(broker, "homeassistant/+/forecastd_c_city_paris-fr/+/config").count == 13)
        #expect(try await Self.retainedJSON(broker, "forecastd/c/cities/paris-fr/report") != nil)
        await daemon.stop()
    }

    /// A daemon started with `discovery = false` empties the configs an earlier run with it on left, for here and
    /// for each listed city (Home Assistant removes both devices), and publishes the reports as before.
    @Test func aStartWithDiscoveryOffRemovesTheDevicesAnEarlierRunLeftForHereAndEachCity() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let paris = "\n[[cities]]\nname = \"Paris\"\ncountry = \"FR\"\nlatitude = 48.85341\nlongitude = 2.3488\n"
        let mqtt = Self.mqttSettings(broker, topic: "forecastd/d")
        let here = "homeassistant/+/forecastd_d/+/config"
        let city = "homeassistant/+/forecastd_d_city_paris-fr/+/config"
        let first = try await startPinnedAtSamara(server: server, extra: mqtt + paris)
        defer { first.removeDirectory() }
        try await first.wait(for: "the configs for here and Paris", timeout: .seconds(20)) {
            let (forHere, forParis) = (try await Self.retained(broker, here), try await Self.retained(broker, city))
            return forHere.count == 18 && forParis.count == 13
        }
        #expect(await first.stop() == 0)
        let firstParis = try await Self.retainedJSON(broker, "forecastd/d/cities/paris-fr/report")?["published_at"] as? String

        let second = try await startPinnedAtSamara(server: server, extra: mqtt + "discovery = false\n" + paris)
        defer { second.removeDirectory() }
        try await second.wait(for: "both devices' configs emptied", timeout: .seconds(20)) {
            let (forHere, forParis) = (try await Self.retained(broker, here), try await Self.retained(broker, city))
            return forHere.isEmpty && forParis.isEmpty
        }
        try await second.wait(for: "Paris's report published again", timeout: .seconds(20)) {
            let shared = try await Self.retainedJSON(broker, "forecastd/d/cities/paris-fr/report")
            return shared?["published_at"] as? String != firstParis && (shared?["report"] as? [String: Any])?["current"] != nil
        }
        #expect(try await Self.retained(broker, "forecastd/d/status") == ["forecastd/d/status online"])
        #expect(await second.stop() == 0)
    }

    @Test func aBrokerDownAtStartKilledAndRestartedNeverStopsTheDaemon() async throws {
        let broker = try MosquittoBroker.make(started: false)
        let server = try await ReplayServer.start()
        // The bar has its forecast though the broker is down.
        let daemon = try await startPinnedAtSamara(
            server: server, extra: Self.mqttSettings(broker, topic: "forecastd/down"))
        defer { daemon.removeDirectory() }
        try await daemon.wait(for: "the outage in the log") { daemon.log.contains("The MQTT broker cannot be reached") }

        try await onOwnThread { try broker.start() }
        // The backoff starts at 1 s and doubles: a few attempts have failed by now, so the next is within 16 s.
        try await daemon.wait(for: "the report after the broker started", timeout: .seconds(40)) {
            try await Self.retainedJSON(broker, "forecastd/down/report") != nil
        }

        // Killed and restarted without persistence: the broker forgot everything, and the daemon publishes it
        // again after its reconnect.
        try await onOwnThread { broker.kill() }
        try await daemon.wait(for: "the lost connection in the log") {
            daemon.log.contains("The connection to the MQTT broker ended")
        }
        try await onOwnThread { try broker.start() }
        try await daemon.wait(for: "the report again after the restart", timeout: .seconds(40)) {
            try await Self.retainedJSON(broker, "forecastd/down/report") != nil
        }
        #expect(try await Self.retained(broker, "forecastd/down/status") == ["forecastd/down/status online"])
        #expect(daemon.isRunning)
        #expect(try await socketReport(daemon.socketPath).current != nil)
        #expect(server.requestCount(path: "/forecast") == 1)
        await daemon.stop()
    }

    /// A broker down for longer than the first retries: every failed attempt arms the next, and the daemon
    /// publishes once the broker starts. (Before, the flag that keeps a refusal and its disconnection from arming
    /// twice was cleared only by a connection: the second failure armed nothing, and the daemon never tried again.)
    @Test func aBrokerDownForSeveralRetriesIsReachedOnceItStarts() async throws {
        let broker = try MosquittoBroker.make(started: false)
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: Self.mqttSettings(broker, topic: "forecastd/late"))
        defer { daemon.removeDirectory() }
        // Attempts about 0, 1, 3 and 7 s after start (1 s doubling, less up to half at random).
        try await daemon.wait(for: "four failed attempts", timeout: .seconds(60)) { daemon.log.contains("attempt=4") }
        try await onOwnThread { try broker.start() }
        // The next attempt comes within 8 s, the one after within 16 s.
        try await daemon.wait(for: "the report once the broker started", timeout: .seconds(60)) {
            try await Self.retainedJSON(broker, "forecastd/late/report") != nil
        }
        #expect(daemon.isRunning)
        await daemon.stop()
    }
}
