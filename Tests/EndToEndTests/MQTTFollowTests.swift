import Control
import ForecastModel
import Foundation
import TestSupport
import Testing

/// Followers (`[mqtt] follow`) on a real Mosquitto broker: a publishing daemon and two followers, each follower
/// rendering the publisher's report in its own units and language without a single HTTP request; the publisher's
/// `offline` marking the followers stale; garbage, oversized and wrong-schema messages refused with the last good
/// report kept; and the followed report kept through a broker outage and a restart.
@Suite(.serialized)
struct MQTTFollowTests {
    /// A follower's settings: pinned at Samara on its own replay server (which must hear nothing), following
    /// `forecastd/pub` with its own client id, units and language, and a text bar.
    static func followerSettings(
        _ broker: MosquittoBroker, server: ReplayServer, id: String, units: String, language: String, bar: String
    ) throws -> String {
        try pinnedAtSamaraSettings(server: server, units: units) + """

            [display]
            language = "\(language)"

            [[output.files]]
            path = "\(bar)"
            format = "text"

            [mqtt]
            enabled = true
            url = "mqtt://127.0.0.1:\(broker.port)"
            client_id = "\(id)"
            follow = "forecastd/pub"

            """
    }

    static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func request(_ daemon: DaemonProcess, _ line: String) async throws -> String {
        let path = daemon.socketPath
        return try await onOwnThread { try ControlClient(socketPath: path).request(line) }
    }

    static func start(follower settings: String, in directory: URL? = nil) async throws -> DaemonProcess {
        let daemon = try DaemonProcess.start(config: settings, in: directory)
        try await daemon.waitForSocket()
        return daemon
    }

    @Test func twoFollowersShowThePublishersReportInTheirOwnUnitsAndLanguagesWithoutARequestAndTurnStaleWhenItGoesOffline()
        async throws
    {
        let broker = try MosquittoBroker.make()
        let publisherServer = try await ReplayServer.start()
        let followerServer = try await ReplayServer.start()
        let publisher = try await startPinnedAtSamara(
            server: publisherServer,
            extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/pub"))
        defer { publisher.removeDirectory() }

        let spanishDirectory = try DaemonProcess.makeDirectory()
        let spanishBar = spanishDirectory.path + "/bar.txt"
        let spanish = try await Self.start(
            follower: try Self.followerSettings(
                broker, server: followerServer, id: "follower-es", units: "imperial", language: "es", bar: spanishBar),
            in: spanishDirectory)
        defer { spanish.removeDirectory() }
        let germanDirectory = try DaemonProcess.makeDirectory()
        let germanBar = germanDirectory.path + "/bar.txt"
        let german = try await Self.start(
            follower: try Self.followerSettings(
                broker, server: followerServer, id: "follower-de", units: "metric", language: "de", bar: germanBar),
            in: germanDirectory)
        defer { german.removeDirectory() }

        // The publisher's 18.5 °C in Samara: 65 °F in the Spanish follower's bar, 18,5 °C in the German one's.
        let source = try await socketReport(publisher.socketPath)
        #expect(source.current?.temperature == 18.5)
        try await spanish.wait(for: "the followed report in °F", timeout: .seconds(20)) {
            try await socketReport(spanish.socketPath).current != nil && Self.contents(spanishBar).contains("°F")
        }
        try await german.wait(for: "the followed report in °C", timeout: .seconds(20)) {
            Self.contents(germanBar).contains("18,5°C")
        }
        let imperial = try await socketReport(spanish.socketPath)
        #expect(imperial.current?.temperature.map { abs($0 - 65.3) < 0.6 } == true, "\(String(describing: imperial.current))")
        #expect(imperial.units.temperature == "°F")
        #expect(imperial.place?.name == source.place?.name)
        #expect(imperial.stale == false)
        #expect(Self.contents(spanishBar).contains("65"), "\(Self.contents(spanishBar))")
        let waybar = try await Self.request(spanish, #"{"request":"report","format":"waybar"}"#)
        #expect(waybar.contains("viento"), "the Spanish follower's formats speak Spanish: \(waybar)")
        let metric = try await socketReport(german.socketPath)
        #expect(metric.current?.temperature == 18.5)
        #expect(metric.hourly.count == source.hourly.count && metric.daily.count == source.daily.count)

        // A change at the publisher (its pin renamed, applied live) reaches both followers.
        let settings = try String(contentsOfFile: publisher.configPath, encoding: .utf8)
        try settings.replacingOccurrences(of: "[location.pin]\n", with: "[location.pin]\nname = \"Van\"\n")
            .write(toFile: publisher.configPath, atomically: true, encoding: .utf8)
        try await publisher.wait(for: "the publisher's new place name", timeout: .seconds(10)) {
            try await socketReport(publisher.socketPath).place?.name == "Van"
        }
        for follower in [spanish, german] {
            try await follower.wait(for: "the publisher's new place name", timeout: .seconds(10)) {
                try await socketReport(follower.socketPath).place?.name == "Van"
            }
        }

        // Neither follower asked anyone anything: no forecast, no warning, no air, no position request.
        #expect(followerServer.requests().isEmpty, "\(followerServer.requests().map(\.path))")
        // The publisher's own: the first forecast, and one more for its changed pin.
        #expect((1...2).contains(publisherServer.requestCount(path: "/forecast")))

        // The publisher stops: its status says offline, and both followers keep its report, marked stale.
        #expect(await publisher.stop() == 0)
        for follower in [spanish, german] {
            try await follower.wait(for: "the followed report marked stale", timeout: .seconds(10)) {
                try await socketReport(follower.socketPath).stale
            }
            let report = try await socketReport(follower.socketPath)
            #expect(report.current != nil)
            #expect(report.errors.contains { $0.kind == "offline" && $0.message.contains("forecastd/pub") }, "\(report.errors)")
            #expect(follower.log.contains("The followed forecastd is offline"))
        }
        #expect(followerServer.requests().isEmpty)
        #expect(await spanish.stop() == 0)
        #expect(await german.stop() == 0)
        for log in [spanish.log, german.log] {
            #expect(!log.contains(" error: ") && !log.contains(" critical: "), "\(log)")
        }
    }

    /// The two settings of README's "A household on one forecast", as written there but for the broker's address
    /// and the password file's path (the test's own): `[publisher, follower]`.
    static func readmeHousehold(broker: MosquittoBroker, passwordFile: String) throws -> [String] {
        let readme = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### A household on one forecast").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        let blocks = section.components(separatedBy: "```toml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        try #require(blocks.count == 2, "README's household example has a publisher's and a follower's settings")
        return blocks.map {
            $0.replacingOccurrences(of: "mqtt://homeassistant.lan:1883", with: "mqtt://127.0.0.1:\(broker.port)")
                .replacingOccurrences(of: "/etc/forecastd/mqtt-password", with: passwordFile)
        }
    }

    /// README's household example works as written: its publisher's `[mqtt]` (on a daemon pinned at Samara instead
    /// of the van's GPS) behind a broker that admits the user `forecastd` only, its follower's whole settings file
    /// as it stands. The follower shows the van's report in Spanish and °F and asks nothing of anyone; the broker
    /// holds the van's Home Assistant device.
    @Test func readmesHouseholdExampleWorksAsWritten() async throws {
        let broker = try MosquittoBroker.make(access: .passwords(["forecastd": "kitchen-and-van-2026"]))
        let secrets = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: secrets) }
        let passwordFile = secrets.path + "/mqtt-password"
        try "kitchen-and-van-2026\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let settings = try Self.readmeHousehold(broker: broker, passwordFile: passwordFile)

        let server = try await ReplayServer.start()
        let van = try await startPinnedAtSamara(server: server, extra: "\n" + settings[0])
        defer { van.removeDirectory() }
        let kitchen = try await Self.start(follower: settings[1])
        defer { kitchen.removeDirectory() }

        try await kitchen.wait(for: "the van's report in the kitchen", timeout: .seconds(20)) {
            try await socketReport(kitchen.socketPath).current != nil
        }
        let report = try await socketReport(kitchen.socketPath)
        #expect(report.units.temperature == "°F")
        #expect(report.current?.temperature.map { abs($0 - 65.3) < 0.6 } == true, "\(String(describing: report.current))")
        #expect(report.place?.name == (try await socketReport(van.socketPath)).place?.name)
        let waybar = try await Self.request(kitchen, #"{"request":"report","format":"waybar"}"#)
        #expect(waybar.contains("viento"), "\(waybar)")
        #expect(server.requests().map(\.path) == ["/forecast"], "only the van asks, once")

        let user = (name: "forecastd", password: "kitchen-and-van-2026")
        let configs = try await onOwnThread {
            try broker.retained("homeassistant/+/forecastd_pi-van/+/config", user: user)
        }
        #expect(configs.count == 18, "\(configs)")
        #expect(configs.allSatisfy { $0.contains(#""name":"forecastd "#) }, "\(configs.first ?? "none")")
        #expect(await kitchen.stop() == 0)
        #expect(await van.stop() == 0)
        for log in [van.log, kitchen.log] {
            #expect(!log.contains(" error: ") && !log.contains(" critical: ") && !log.contains("kitchen-and-van"), "\(log)")
        }
    }

    /// A broker killed and down for longer than the first retry: the attempts go on (each failed one arms the next)
    /// and both daemons are back once it returns; the follower kept its report meanwhile and takes the change the
    /// publisher made while the broker was away.
    @Test func aBrokerDownForSeveralRetriesIsReconnectedByThePublisherAndTheFollower() async throws {
        let broker = try MosquittoBroker.make()
        let publisherServer = try await ReplayServer.start()
        let followerServer = try await ReplayServer.start()
        let publisher = try await startPinnedAtSamara(
            server: publisherServer, extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/pub"))
        defer { publisher.removeDirectory() }
        let directory = try DaemonProcess.makeDirectory()
        let follower = try await Self.start(
            follower: try Self.followerSettings(
                broker, server: followerServer, id: "follower", units: "metric", language: "en",
                bar: directory.path + "/bar.txt"),
            in: directory)
        defer { follower.removeDirectory() }
        try await follower.wait(for: "the followed report", timeout: .seconds(20)) {
            try await socketReport(follower.socketPath).current?.temperature == 18.5
        }

        try await onOwnThread { broker.kill() }
        try await follower.wait(for: "the lost connection") { follower.log.contains("The connection to the MQTT broker ended") }
        let settings = try String(contentsOfFile: publisher.configPath, encoding: .utf8)
        try settings.replacingOccurrences(of: "[location.pin]\n", with: "[location.pin]\nname = \"Away\"\n")
            .write(toFile: publisher.configPath, atomically: true, encoding: .utf8)
        // The first retry comes within 1 s and fails; so do the next ones while the broker stays down.
        try await publisher.wait(for: "two failed retries", timeout: .seconds(20)) {
            publisher.log.components(separatedBy: "The MQTT broker cannot be reached").count
                + publisher.log.components(separatedBy: "The connection to the MQTT broker ended").count >= 5
        }
        #expect(try await socketReport(follower.socketPath).current?.temperature == 18.5)
        try await onOwnThread { try broker.start() }
        try await follower.wait(for: "the change made while the broker was away", timeout: .seconds(40)) {
            try await socketReport(follower.socketPath).place?.name == "Away"
        }
        #expect(followerServer.requests().isEmpty)
        await follower.stop()
        await publisher.stop()
    }

    @Test func garbageOversizedAndWrongSchemaMessagesAreRefusedAndTheLastGoodReportStaysThroughAnOutageAndARestart()
        async throws
    {
        let broker = try MosquittoBroker.make()
        let publisherServer = try await ReplayServer.start()
        let followerServer = try await ReplayServer.start()
        let publisher = try await startPinnedAtSamara(
            server: publisherServer, extra: MQTTPublishTests.mqttSettings(broker, topic: "forecastd/pub"))
        defer { publisher.removeDirectory() }
        let directory = try DaemonProcess.makeDirectory()
        let bar = directory.path + "/bar.txt"
        let settings = try Self.followerSettings(
            broker, server: followerServer, id: "follower", units: "metric", language: "en", bar: bar)
        var follower = try await Self.start(follower: settings, in: directory)
        defer { follower.removeDirectory() }
        try await follower.wait(for: "the followed report", timeout: .seconds(20)) {
            try await socketReport(follower.socketPath).current?.temperature == 18.5
        }
        // The publisher goes, so that nothing but the broken messages below reaches the follower; its `offline`
        // marks the report stale, which a good message would undo and none of these may.
        #expect(await publisher.stop() == 0)
        try await follower.wait(for: "the offline publisher", timeout: .seconds(10)) {
            try await socketReport(follower.socketPath).stale
        }
        let kept = try await socketReportLine(follower.socketPath)

        let large = directory.appendingPathComponent("large.json")
        try Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 4096).write(to: large)
        let refusals: [(send: @Sendable () throws -> Void, said: String)] = [
            ({ try broker.publish("forecastd/pub/report", "this is not JSON {") }, "is not a JSON object"),
            ({ try broker.publish("forecastd/pub/report", #"{"forecastd_share": 7, "model": {}}"#) }, "uses share schema 7"),
            (
                { try broker.publish("forecastd/pub/report", #"{"forecastd_share": 1, "published_at": "2026-11-29T00:00:00Z"}"#) },
                "is not a usable forecastd report"
            ),
            ({ try broker.publish("forecastd/pub/report", file: large) }, "more than the 1 MiB allowed"),
            ({ try broker.publish("forecastd/pub/status", "maybe") }, "is neither"),
        ]
        for (send, said) in refusals {
            try await onOwnThread { try send() }
            try await follower.wait(for: "the refusal \(said)", timeout: .seconds(10)) {
                follower.log.split(separator: "\n").contains {
                    $0.contains("A message on the followed topic was refused") && $0.contains("forecastd/pub/")
                        && $0.contains(said)
                }
            }
        }
        #expect(follower.isRunning)
        // A refresh asked on the socket fetches nothing, and says why.
        let refresh = try await Self.request(follower, #"{"request":"refresh"}"#)
        #expect(refresh.contains(#""outcome":"following""#) && refresh.contains("forecastd/pub"), "\(refresh)")
        var report = try await socketReport(follower.socketPath)
        #expect(report.current?.temperature == 18.5)
        #expect(report.stale)
        #expect(try await socketReportLine(follower.socketPath).count == kept.count)

        // The broker goes away and the follower restarts: the last good report comes from its saved state.
        #expect(await follower.stop() == 0)
        try await onOwnThread { broker.kill() }
        follower = try await Self.start(follower: settings, in: directory)
        try await follower.wait(for: "the report restored", timeout: .seconds(10)) {
            try await socketReport(follower.socketPath).current?.temperature == 18.5
        }
        report = try await socketReport(follower.socketPath)
        #expect(report.stale)
        #expect(report.place?.name != nil)
        #expect(followerServer.requests().isEmpty)
        #expect(await follower.stop() == 0)
    }
}
