import Control
import DBus
import ForecastModel
import Foundation
import TestSupport
import Testing

extension AlertsEndToEndTests {
    /// The recorded Air Quality answer (a cell near Enschede, 2026-10-03 12:00 at UTC+2) moved to the grid cell
    /// of `latitude`, `longitude` and to the hour of `time`, as the Bright Sky warning is moved in time: the daemon
    /// refuses an answer for another place or another day (`AnswerCheck`).
    static func airAnswer(latitude: Double, longitude: Double, time: Date = Date()) throws -> ReplayResponse {
        let data = try Fixtures.data(airFixture)
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var current = object["current"] as? [String: Any], let offset = object["utc_offset_seconds"] as? Int
        else { throw TestFailure("\(airFixture) is not an air quality answer with current values") }
        object["latitude"] = latitude
        object["longitude"] = longitude
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: offset)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:00"
        current["time"] = formatter.string(from: time)
        object["current"] = current
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return .json(String(decoding: body, as: UTF8.self))
    }

    /// The air answer for Berlin's cell now.
    static func berlinAir() throws -> ReplayResponse { try airAnswer(latitude: 52.5, longitude: 13.4) }
}

/// The bounds seen from outside, on the built daemon and forecastctl: a damaged catalogue, air answers for
/// another place or time, a flood of warnings at the notification server, a damaged record of notifications.
@Suite("Bounds, end to end", .serialized)
struct BoundsEndToEndTests {
    typealias E2E = AlertsEndToEndTests

    /// es.po with its Plural-Forms nested 2,000 deep: once, the parser's recursion overflowed the stack.
    static func nestedCatalogue() throws -> Data {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Localization/po/es.po")
        let text = try String(contentsOf: shipped, encoding: .utf8)
        let nested = String(repeating: "(", count: 2_000) + "n != 1" + String(repeating: ")", count: 2_000)
        let damaged = text.replacingOccurrences(
            of: "\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\"",
            with: "\"Plural-Forms: nplurals=2; plural=\(nested);\\n\"")
        guard damaged != text else { throw TestFailure("es.po has no Plural-Forms line to damage") }
        return Data(damaged.utf8)
    }

    @Test("a catalogue nested 2,000 deep: set display.language es keeps the daemon up in English, one log line; it restarts; forecastctl under LANG=es_ES.UTF-8 too")
    func damagedCatalogue() async throws {
        let catalogues = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: catalogues) }
        try Self.nestedCatalogue().write(to: catalogues.appendingPathComponent("es.po"))
        let server = try await ReplayServer.start()
        server.setRoute(path: "/forecast", .json(try samaraResponse()))
        let settings = settingsText(
            gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), pin: (53.2, 50.15, nil),
            mode: "pinned")
        let environment = ["FORECASTD_LOCALEDIR": catalogues.path]
        let daemon = try DaemonProcess.start(config: settings, environment: environment)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }

        let path = daemon.socketPath
        let answer = try await onOwnThread { try ControlClient(socketPath: path).request("set display.language es") }
        #expect(answer.contains("\"ok\":true"), "\(answer)")
        try await daemon.wait(for: "the settings in force") {
            try String(contentsOfFile: daemon.configPath, encoding: .utf8).contains("language = \"es\"")
        }
        let text = try await onOwnThread { try ControlClient(socketPath: path).request(#"{"request":"report","format":"text"}"#) }
        #expect(daemon.isRunning)
        #expect(text.contains("18.5°C"), "English: \(text)")
        #expect(!text.contains("Despejado") && !text.contains("Nubes"), "\(text)")
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("es.po is damaged") }
        #expect(lines.count == 1, "\(daemon.log)")
        // Refused by the string's 4 KiB (the header is 4.4 KB) before the rule's own limits are reached.
        #expect(lines.first?.contains("longer than 4 KiB") == true, "\(lines)")
        #expect(await daemon.stop() == 0)

        // The settings now say es: the next start must not die on it (it did, at every restart).
        let again = try DaemonProcess.start(
            config: try String(contentsOfFile: daemon.configPath, encoding: .utf8), in: daemon.directory,
            environment: environment)
        try await again.waitForSocket()
        try await again.wait(for: "the saved report") { try await socketReport(again.socketPath).current != nil }
        #expect(again.isRunning)

        // forecastctl, in a Spanish locale, reading the same catalogue: English and one line on stderr.
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        var ctlEnvironment = DaemonProcess.environment(for: daemon.directory).merging(environment) { $1 }
        ctlEnvironment["LANG"] = "es_ES.UTF-8"
        let status = try await runTool(forecastctl, ["status", "--config", again.configPath], environment: ctlEnvironment)
        #expect(status.status == 0, "exit \(status.status): \(status.stderr)")
        #expect(status.stdout.contains("18.5"), "\(status.stdout)")
        #expect(status.stderr.split(separator: "\n").filter { $0.contains("es.po is damaged") }.count == 1, "\(status.stderr)")
        #expect(await again.stop() == 0)
        try await server.shutdown()
    }

    @Test("air answers for Sydney, 40 days old and 400 days ahead are refused: the Berlin reading stays, the errors say why")
    func airAnswersChecked() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: E2E.forecastPath, .json(try samaraResponse()))
        server.setRoute(path: E2E.alertsPath, try E2E.brightSky(expires: Date().addingTimeInterval(30 * 86_400)))
        let sydney = try E2E.airAnswer(latitude: -33.9, longitude: 151.2)
        let old = try E2E.airAnswer(latitude: 52.5, longitude: 13.4, time: Date().addingTimeInterval(-40 * 86_400))
        let ahead = try E2E.airAnswer(latitude: 52.5, longitude: 13.4, time: Date().addingTimeInterval(400 * 86_400))
        server.setRoute(path: E2E.airPath, sequence: [try E2E.berlinAir(), sydney, old, ahead])
        // 300 times real time: the air's hour is 12 s, the grace 0.4 s.
        let daemon = try await E2E.startDaemon(server, environment: ["FORECASTD_TEST_CLOCK_SPEED": "300"])
        defer { daemon.removeDirectory() }

        try await daemon.wait(for: "the Berlin reading") { try await socketReport(daemon.socketPath).air != nil }
        let good = try #require(try await socketReport(daemon.socketPath).air)
        // The daemon's clock runs 300 times as fast: "400 days ahead" reads 399 by the time it is asked.
        for words in ["km from the place asked (52.52, 13.4", "40 days old", "days ahead of this machine's clock"] {
            try await daemon.wait(for: "the air error saying \(words)", timeout: .seconds(40)) {
                let report = try await socketReport(daemon.socketPath)
                return report.errors.contains { $0.kind == "air" && $0.message.contains(words) }
            }
            let report = try await socketReport(daemon.socketPath)
            #expect(report.air?.aqi == good.aqi && report.air?.time == good.time, "the refused answer was shown")
            #expect(report.air?.stale == true)
        }
        #expect(daemon.isRunning)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    /// The recorded Bright Sky frost warning `count` times, each with its own ids, in force now.
    static func brightSkyFlood(_ count: Int) throws -> ReplayResponse {
        let data = try Fixtures.data(E2E.brightSkyFixture)
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let alerts = object["alerts"] as? [[String: Any]], let first = alerts.first
        else { throw TestFailure("\(E2E.brightSkyFixture) is not a Bright Sky alerts answer") }
        let formatter = ISO8601DateFormatter()
        object["alerts"] = (0..<count).map { index -> [String: Any] in
            var alert = first
            alert["id"] = 900_000 + index
            alert["alert_id"] = "flood-\(index)"
            alert["effective"] = formatter.string(from: Date().addingTimeInterval(-7200))
            alert["onset"] = formatter.string(from: Date().addingTimeInterval(-3600))
            alert["expires"] = formatter.string(from: Date().addingTimeInterval(6 * 3600))
            // Short texts, so that many fit in Bright Sky's 2 MiB.
            for key in ["description_de", "description_en", "instruction_de", "instruction_en"] { alert[key] = nil }
            return alert
        }
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return .json(String(decoding: body, as: UTF8.self))
    }

    @Test("1,000 warnings in the feed: four notifications (three alone, one counting the rest); a damaged record then sends none again")
    func floodAndDamagedRecord() async throws {
        try await withPrivateBus { bus in
            let notifications = try await DBusMock.start(
                on: bus, template: "notification_daemon", name: "org.freedesktop.Notifications",
                path: "/org/freedesktop/Notifications")
            defer { notifications.stop() }
            let server = try await ReplayServer.start()
            server.setRoute(path: E2E.forecastPath, .json(try samaraResponse()))
            server.setRoute(path: E2E.alertsPath, try Self.brightSkyFlood(1_000))
            server.setRoute(path: E2E.airPath, try E2E.berlinAir())
            let settings = """
                [notifications]
                enabled = true
                minimum_severity = "minor"
                """
            let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            let daemon = try await E2E.startDaemon(server, notifications: settings, environment: environment)
            defer { daemon.removeDirectory() }

            try await daemon.wait(for: "four notifications") {
                try await notifications.calls(of: "Notify").count >= 4
            }
            // The notifier has the report and its decisions are all sent by now; give a late fifth a moment.
            try await Task.sleep(for: .seconds(2))
            let calls = try await notifications.calls(of: "Notify")
            #expect(calls.count == 4)
            let rest = calls.last?[3].string ?? ""
            #expect(rest.range(of: #"^\d+ more warnings$"#, options: .regularExpression) != nil, "\(rest)")
            #expect(await daemon.stop() == 0)

            // The record damaged between two runs: the warnings in force are not notified again.
            let ledger = daemon.directory.path + "/state/forecastd/notifications.json"
            #expect(FileManager.default.fileExists(atPath: ledger))
            try Data("{\"version\":1,\"warnings\":{\"flood".utf8).write(to: URL(fileURLWithPath: ledger))
            let restarted = try await E2E.startDaemon(
                server, notifications: settings, in: daemon.directory, environment: environment)
            try await restarted.wait(for: "the warnings after the restart") {
                try await socketReport(restarted.socketPath).warnings?.isEmpty == false
            }
            try await restarted.wait(for: "the warnings taken as notified") {
                restarted.log.contains("Taken as already notified")
            }
            #expect(try await notifications.calls(of: "Notify").count == 4)
            let names = try FileManager.default.contentsOfDirectory(atPath: daemon.directory.path + "/state/forecastd")
            #expect(names.contains { $0.hasPrefix("notifications.json.corrupt-") }, "\(names)")
            #expect(await restarted.stop() == 0)
            try await server.shutdown()
        }
    }
}
