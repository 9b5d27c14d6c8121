import Foundation
import TestSupport
import Testing

/// `[mqtt]` edits applied live by a publishing daemon, checked on a real Mosquitto broker with `mosquitto_sub`: MQTT
/// turned on, the topic moved and MQTT turned off, each without a restart; what the old settings retained is
/// emptied so that Home Assistant keeps no ghost entities.
@Suite(.serialized)
struct MQTTLiveTests {
    static func retained(_ broker: MosquittoBroker, _ filter: String) async throws -> [String] {
        try await onOwnThread { try broker.retained(filter) }
    }

    /// The settings file with `old` replaced by `new`, written as an editor does (a new file renamed over it).
    static func edit(_ daemon: DaemonProcess, _ old: String, _ new: String) throws {
        let settings = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        #expect(settings.contains(old))
        try settings.replacingOccurrences(of: old, with: new).write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
    }

    /// Waits until `topic`'s report, status `online` and 18 discovery configs are retained.
    static func waitForPublication(_ daemon: DaemonProcess, _ broker: MosquittoBroker, topic: String) async throws {
        let node = topic.replacingOccurrences(of: "/", with: "_")
        try await daemon.wait(for: "\(topic)'s report, status and discovery", timeout: .seconds(30)) {
            let report = try await MQTTPublishTests.retainedJSON(broker, "\(topic)/report")
            let status = try await retained(broker, "\(topic)/status")
            let configs = try await retained(broker, "homeassistant/+/\(node)/+/config")
            return report != nil && status == ["\(topic)/status online"] && configs.count == 18
        }
    }

    @Test func mqttTurnedOnInTheRunningDaemonPublishesWithoutARestart() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let mqtt = MQTTPublishTests.mqttSettings(broker, topic: "forecastd/on")
            .replacingOccurrences(of: "enabled = true", with: "enabled = false")
        let daemon = try await startPinnedAtSamara(server: server, extra: mqtt)
        defer { daemon.removeDirectory() }
        let pid = daemon.process.processIdentifier
        #expect(try await Self.retained(broker, "#").isEmpty)

        // As a user turns it on: forecastctl rewrites the file, and the running daemon applies it.
        let set = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"),
            ["set", "--config", daemon.configPath, "mqtt.enabled", "true"],
            environment: DaemonProcess.environment(for: daemon.directory))
        #expect(set.status == 0, "\(set.stderr)")
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/on")
        let shared = try #require(try await MQTTPublishTests.retainedJSON(broker, "forecastd/on/report"))
        let current = try #require((shared["report"] as? [String: Any])?["current"] as? [String: Any])
        #expect(current["temperature"] as? Double == (try await socketReport(daemon.socketPath)).current?.temperature)
        #expect(daemon.isRunning && daemon.process.processIdentifier == pid)
        #expect(!daemon.log.contains("take effect when the daemon restarts"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
        #expect(try await Self.retained(broker, "forecastd/on/status") == ["forecastd/on/status offline"])
    }

    /// `follow` is read at start: MQTT turned on in a daemon that started with it off and `follow` set publishes
    /// nothing (it is not a follower until it restarts) and says so.
    @Test func mqttTurnedOnWithFollowSetPublishesNothingUntilARestart() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let mqtt = MQTTPublishTests.mqttSettings(broker, topic: "forecastd/nofollow")
            .replacingOccurrences(of: "enabled = true", with: "enabled = false") + "follow = \"forecastd/pi-van\"\n"
        let daemon = try await startPinnedAtSamara(server: server, extra: mqtt)
        defer { daemon.removeDirectory() }

        try Self.edit(daemon, "enabled = false", "enabled = true")
        try await daemon.wait(for: "the warning in the log") { daemon.log.contains("MQTT was turned on with follow set") }
        #expect(try await Self.retained(broker, "#").isEmpty)
        #expect(!daemon.log.contains("Connected to the MQTT broker"))
        #expect(await daemon.stop() == 0)
    }

    @Test func aNewTopicIsPublishedAndTheOldOneEmptiedButItsOfflineStatus() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/old"))
        defer { daemon.removeDirectory() }
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/old")

        // A topic MQTT does not allow is refused by the settings layer: the connection stays as it was.
        try Self.edit(daemon, "topic = \"forecastd/old\"", "topic = \"forecastd/+\"")
        try await daemon.wait(for: "the refusal in the log") {
            daemon.log.contains("keeping the last good settings") && daemon.log.contains("mqtt.topic")
        }
        #expect(try await Self.retained(broker, "forecastd/old/status") == ["forecastd/old/status online"])
        #expect(!daemon.log.contains("The MQTT settings changed"))

        try Self.edit(daemon, "topic = \"forecastd/+\"", "topic = \"forecastd/new\"")
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/new")
        // The old topic keeps only its status, offline: no report for a follower, no entity for Home Assistant.
        try await daemon.wait(for: "the old topic emptied", timeout: .seconds(20)) {
            try await Self.retained(broker, "forecastd/old/#") == ["forecastd/old/status offline"]
        }
        #expect(try await Self.retained(broker, "homeassistant/+/forecastd_old/+/config").isEmpty)
        let config = try #require(
            try await Self.retained(broker, "homeassistant/sensor/forecastd_new/temperature/config").first)
        #expect(config.contains("\"state_topic\":\"forecastd/new/report\""), "\(config)")
        #expect(daemon.isRunning)
        #expect(!daemon.log.contains("not published on MQTT"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    /// Discovery turned off and on again under the same topic: the configs go and come back, while the report
    /// and the status (`online`, not the old connection's will) stay.
    @Test func discoveryTurnedOffAndOnAgainRemovesAndRestoresTheEntitiesOnly() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/ha") + "discovery = true\n")
        defer { daemon.removeDirectory() }
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/ha")

        try Self.edit(daemon, "discovery = true", "discovery = false")
        try await daemon.wait(for: "the discovery configs emptied", timeout: .seconds(20)) {
            try await Self.retained(broker, "homeassistant/#").isEmpty
        }
        try await daemon.wait(for: "the new connection", timeout: .seconds(20)) {
            daemon.log.components(separatedBy: "Connected to the MQTT broker.").count == 3
        }
        #expect(try await MQTTPublishTests.retainedJSON(broker, "forecastd/ha/report") != nil)
        #expect(try await Self.retained(broker, "forecastd/ha/status") == ["forecastd/ha/status online"])

        try Self.edit(daemon, "discovery = false", "discovery = true")
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/ha")
        #expect(await daemon.stop() == 0)
    }

    /// New credentials the broker refuses are retried with backoff while the daemon serves on; the right ones,
    /// written in later, are let in without a restart.
    @Test func refusedNewCredentialsAreRetriedAndTheDaemonServesOn() async throws {
        let user = (name: "van", password: "s3cret-Passw0rd")
        let broker = try MosquittoBroker.make(access: .passwords([user.name: user.password]))
        let server = try await ReplayServer.start()
        let directory = try DaemonProcess.makeDirectory()
        try "\(user.password)\n".write(toFile: directory.path + "/right", atomically: true, encoding: .utf8)
        try "wrong-s3cret\n".write(toFile: directory.path + "/wrong", atomically: true, encoding: .utf8)
        let daemon = try await startPinnedAtSamara(
            server: server,
            extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/auth")
                + "username = \"van\"\npassword_file = \"\(directory.path)/right\"\n",
            in: directory)
        defer { daemon.removeDirectory() }
        try await daemon.wait(for: "the report on MQTT", timeout: .seconds(20)) {
            !(try await onOwnThread { try broker.retained("forecastd/auth/report", user: user) }).isEmpty
        }

        try Self.edit(daemon, "\(directory.path)/right", "\(directory.path)/wrong")
        try await daemon.wait(for: "the refusal in the log", timeout: .seconds(20)) {
            daemon.log.contains("The MQTT broker refused this client")
        }
        #expect(try await onOwnThread { try broker.retained("forecastd/auth/status", user: user) } == [
            "forecastd/auth/status offline"
        ])
        #expect(daemon.isRunning)
        #expect(try await socketReport(daemon.socketPath).current != nil)

        try Self.edit(daemon, "\(directory.path)/wrong", "\(directory.path)/right")
        try await daemon.wait(for: "online again", timeout: .seconds(20)) {
            try await onOwnThread { try broker.retained("forecastd/auth/status", user: user) } == [
                "forecastd/auth/status online"
            ]
        }
        #expect(await daemon.stop() == 0)
        #expect(!daemon.log.contains("s3cret"))
    }

    @Test func mqttTurnedOffSaysOfflineEmptiesTheDiscoveryAndTheDaemonCarriesOn() async throws {
        let broker = try MosquittoBroker.make()
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/off"))
        defer { daemon.removeDirectory() }
        try await Self.waitForPublication(daemon, broker, topic: "forecastd/off")

        try Self.edit(daemon, "enabled = true", "enabled = false")
        try await daemon.wait(for: "offline and the discovery emptied", timeout: .seconds(20)) {
            let status = try await Self.retained(broker, "forecastd/off/status")
            let configs = try await Self.retained(broker, "homeassistant/#")
            return status == ["forecastd/off/status offline"] && configs.isEmpty
        }
        #expect(try await Self.retained(broker, "forecastd/off/report").isEmpty)

        // The daemon carries on: a later edit (the units) still reaches the status file.
        try Self.edit(daemon, "units = \"metric\"", "units = \"imperial\"")
        try await daemon.wait(for: "the status file in imperial units", timeout: .seconds(20)) {
            (statusFileReportLine(daemon.statusFilePath) ?? "").contains("°F")
        }
        #expect(daemon.isRunning)
        #expect(try await socketReport(daemon.socketPath).stale == false)
        #expect(await daemon.stop() == 0)
        // Nothing came back on the broker after the stop.
        #expect(try await Self.retained(broker, "homeassistant/#").isEmpty)
        #expect(try await Self.retained(broker, "forecastd/off/status") == ["forecastd/off/status offline"])
    }
}
