import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// `[display] language` reaches the running daemon's bars at once, with no provider request and no change to
/// the JSON report; forecastctl speaks its own locale; a damaged catalogue is English and one log line.
@Suite("Languages, live", .serialized)
struct LiveLanguageTests {
    func request(_ daemon: DaemonProcess, _ line: String) async throws -> String {
        let path = daemon.socketPath
        return try await onOwnThread { try ControlClient(socketPath: path).request(line) }
    }

    func writeAndRename(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
    }

    func forecastctl(_ arguments: [String], _ daemon: DaemonProcess, environment: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), arguments + ["--config", daemon.configPath],
            environment: DaemonProcess.environment(for: daemon.directory).merging(environment) { $1 })
    }

    @Test("switching [display] language rewrites the bars at once, fetches nothing, and leaves the JSON alone")
    func liveSwitch() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let bar = daemon.directory.path + "/bars/bar.txt"
        let original = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        func settings(language: String) -> String {
            original + """

                [display]
                language = "\(language)"

                [[output.files]]
                path = "\(bar)"
                format = "text"

                """
        }
        try writeAndRename(settings(language: "en"), to: daemon.configPath)
        try await daemon.wait(for: "the text status file", timeout: .seconds(5)) { contents(bar).contains("°C") }
        let english = contents(bar)
        let englishJSON = contents(daemon.statusFilePath)
        let englishWaybar = try await request(daemon, #"{"request":"report","format":"waybar"}"#)
        #expect(englishWaybar.contains("Wind") || englishWaybar.contains("wind"), "\(englishWaybar)")
        let requests = server.requestCount(path: "/forecast")

        let switched = ContinuousClock.now
        try writeAndRename(settings(language: "es"), to: daemon.configPath)
        // At once, not at the next refresh: within milliseconds on an idle machine; the bound leaves room for a loaded one.
        try await daemon.wait(for: "the status file in Spanish", timeout: .seconds(5)) { contents(bar) != english }
        #expect(ContinuousClock.now - switched < .seconds(5))
        // 18.5 °C in Samara: a decimal comma in the text line.
        #expect(contents(bar).contains("18,5°C"), "\(contents(bar))")
        let spanish = try await request(daemon, #"{"request":"report","format":"waybar"}"#)
        #expect(spanish.contains("viento"), "the socket's formats speak Spanish: \(spanish)")
        #expect(spanish.contains("Previsión") || spanish.contains("Humedad") || spanish.contains("humedad"), "\(spanish)")
        #expect(server.requestCount(path: "/forecast") == requests, "a language switch must not fetch again")
        // The JSON report is the same, field for field, but for its timestamps of publication.
        var before = try ReportJSON.decode(englishJSON)
        var after = try ReportJSON.decode(contents(daemon.statusFilePath))
        (before.updatedAt, after.updatedAt) = ("", "")
        (before.ageSeconds, after.ageSeconds) = (nil, nil)
        #expect(ReportJSON.line(before) == ReportJSON.line(after))

        // forecastctl's own summary follows the same settings.
        let status = try await forecastctl(["status"], daemon)
        #expect(status.status == 0)
        #expect(status.stdout.contains("Previsión de open-meteo"), "\(status.stdout)")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("language = \"auto\" follows LANG: the daemon's bars in its own, forecastctl's summary and table in its own")
    func autoFollowsLocale() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server, environment: ["LANG": "es_ES.UTF-8"])
        defer { daemon.removeDirectory() }
        let text = try await request(daemon, #"{"request":"report","format":"text"}"#)
        #expect(text.contains("18,5°C"), "\(text)")
        let english = try await forecastctl(["forecast"], daemon, environment: ["LANG": "C.UTF-8"])
        #expect(english.stdout.contains("Today"), "\(english.stdout)")
        let spanish = try await forecastctl(["forecast"], daemon, environment: ["LANG": "es_ES.UTF-8"])
        #expect(spanish.stdout.contains("Hoy") && spanish.stdout.contains("Temperatura (°C)"), "\(spanish.stdout)")
        let unknown = try await forecastctl(["status"], daemon, environment: ["LANG": "xx_YY.UTF-8"])
        #expect(unknown.status == 0)
        #expect(unknown.stdout.contains("Forecast from open-meteo"), "English for a locale without a catalogue")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a LANG naming a language without a catalogue: English, one log line however often bars are drawn")
    func unknownLocale() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server, environment: ["LANG": "xx_YY.UTF-8"])
        defer { daemon.removeDirectory() }
        for _ in 0..<3 {
            let text = try await request(daemon, #"{"request":"report","format":"text"}"#)
            #expect(text.contains("18.5°C"), "English: \(text)")
        }
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("LANG=xx_YY.UTF-8 names a language") }
        #expect(lines.count == 1, "\(daemon.log)")
        #expect(try await socketReport(daemon.socketPath).errors.isEmpty, "never an error in the report")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("an unknown language code is a file:line:column error naming the languages there are")
    func unknownCode() async throws {
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(server: server)
        defer { daemon.removeDirectory() }
        let original = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try writeAndRename(original + "\n[display]\nlanguage = \"klingon\"\n", to: daemon.configPath)
        try await daemon.wait(for: "the error in the report", timeout: .seconds(5)) {
            try await socketReport(daemon.socketPath).errors.contains { $0.message.contains("klingon") }
        }
        let message = try #require(try await socketReport(daemon.socketPath).errors.first { $0.message.contains("klingon") })
        #expect(message.message.contains(":language = ") || message.message.contains("language"), "\(message.message)")
        #expect(message.message.contains(#""es""#) && message.message.contains(#""auto""#), "\(message.message)")
        #expect(message.message.range(of: #"\.toml:\d+:\d+"#, options: .regularExpression) != nil, "\(message.message)")
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("a damaged catalogue: English, one log line, and the daemon runs")
    func damagedCatalogue() async throws {
        let catalogues = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: catalogues) }
        try Data("msgid \"broken\nmsgstr \"\"\n".utf8).write(to: catalogues.appendingPathComponent("es.po"))
        let server = try await ReplayServer.start()
        let daemon = try await startPinnedAtSamara(
            server: server, extra: "\n[display]\nlanguage = \"es\"\n",
            environment: ["FORECASTD_LOCALEDIR": catalogues.path])
        defer { daemon.removeDirectory() }
        let text = try await request(daemon, #"{"request":"report","format":"text"}"#)
        #expect(text.contains("18.5°C"), "English: \(text)")
        _ = try await request(daemon, #"{"request":"report","format":"waybar"}"#)
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("es.po is damaged") }
        #expect(lines.count == 1, "\(daemon.log)")
        #expect(daemon.isRunning)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
