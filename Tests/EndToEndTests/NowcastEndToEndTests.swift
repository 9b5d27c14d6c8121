import ForecastModel
import Foundation
import TestSupport
import Testing

/// Rain soon seen from outside: the real daemon pinned in Berlin, Open-Meteo's answer with 15-minute
/// precipitation (a modified recording, `Tests/Fixtures/README.md`) moved to now, and the nowcast in the
/// report and in the bars forecastctl prints.
@Suite("Rain soon end to end", .serialized)
struct NowcastEndToEndTests {
    static let fixture = "open-meteo/forecast-berlin-minutely15-precipitation-modified.json"
    /// The recorded answer's current quarter hour: its rain falls in the two quarter hours after the next.
    static let recordedCurrent = Timestamps.parseUTC("2023-11-13T10:45:00Z")!

    /// The modified Berlin answer with every time moved by whole quarter hours (dates by whole days), so
    /// that its current quarter hour is the one holding `now`: dry until 15 minutes after it, then
    /// 0.8 mm in each of two quarter hours (3.2 mm/h, moderate), then dry again.
    static func berlinRainSoon(now: Date) throws -> (response: String, rainStarts: Date, rainStops: Date) {
        let quarters = ((now.timeIntervalSince(recordedCurrent)) / 900).rounded(.down)
        let shift = quarters * 900
        let days = (shift / 86_400).rounded(.down)
        guard var object = try JSONSerialization.jsonObject(with: Fixtures.data(fixture)) as? [String: Any] else {
            throw TestFailure("\(fixture) is not a JSON object")
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let minuteFormat = DateFormatter()
        minuteFormat.locale = Locale(identifier: "en_US_POSIX")
        minuteFormat.timeZone = utc.timeZone
        minuteFormat.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let dayFormat = DateFormatter()
        dayFormat.locale = minuteFormat.locale
        dayFormat.timeZone = utc.timeZone
        dayFormat.dateFormat = "yyyy-MM-dd"
        func moved(_ text: String) throws -> String {
            if let date = minuteFormat.date(from: text) { return minuteFormat.string(from: date.addingTimeInterval(shift)) }
            if let date = dayFormat.date(from: text) { return dayFormat.string(from: date.addingTimeInterval(days * 86_400)) }
            throw TestFailure("\(fixture): \(text) is not a time")
        }
        for section in ["minutely_15", "hourly", "daily"] {
            guard var values = object[section] as? [String: Any], let times = values["time"] as? [String] else {
                throw TestFailure("\(fixture) has no \(section) times")
            }
            values["time"] = try times.map(moved)
            object[section] = values
        }
        guard var current = object["current"] as? [String: Any], let time = current["time"] as? String else {
            throw TestFailure("\(fixture) has no current time")
        }
        current["time"] = try moved(time)
        object["current"] = current
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        // Open-Meteo's quarter-hour values are the sums of the 15 minutes before their time: the wet values at
        // 11:15 and 11:30 are rain from 11:00 to 11:30.
        let start = recordedCurrent.addingTimeInterval(shift + 900)
        return (String(decoding: body, as: UTF8.self), start, start.addingTimeInterval(1800))
    }

    @Test("Berlin: rain in the next quarter hours shows as the nowcast in the report, Waybar and i3blocks")
    func rainSoonThroughTheDaemon() async throws {
        let server = try await ReplayServer.start()
        let now = Date()
        // Not within a minute of a quarter hour, so the answer's quarter is still the current one when read.
        if now.timeIntervalSince1970.truncatingRemainder(dividingBy: 900) > 840 {
            try await Task.sleep(for: .seconds(61))
        }
        let answer = try Self.berlinRainSoon(now: Date())
        server.setRoute(path: AlertsEndToEndTests.forecastPath, .json(answer.response))
        let text = settingsText(
            gpsdPort: nil, openMeteoURL: server.url(AlertsEndToEndTests.forecastPath), pin: AlertsEndToEndTests.berlin,
            mode: "pinned")
        let daemon = try DaemonProcess.start(config: text)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the nowcast") { try await socketReport(daemon.socketPath).nowcast != nil }

        let report = try await socketReport(daemon.socketPath)
        let nowcast = try #require(report.nowcast)
        #expect(nowcast.kind == "rain")
        #expect(nowcast.rainingNow == false)
        #expect(nowcast.intensity == "moderate")
        // Berlin lies in DWD ICON-D2's 15-minute domain: the data is not interpolated.
        #expect(nowcast.interpolated == false)
        #expect(Timestamps.parseUTC(nowcast.startsAt) == answer.rainStarts)
        #expect(nowcast.stopsAt.flatMap(Timestamps.parseUTC) == answer.rainStops)
        #expect((0...15).contains(nowcast.minutesUntil))
        let stopClock = String(Timestamps.rfc3339(answer.rainStops).dropFirst(11).prefix(5))
        #expect(nowcast.text.hasPrefix("Rain "))
        #expect(nowcast.text.hasSuffix("(moderate), until about \(stopClock)"), "\(nowcast.text)")
        #expect(server.requests().first?.query["minutely_15"] == "precipitation")
        let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
        #expect(schema.valid, "\(schema.output)")

        let environment = DaemonProcess.environment(for: daemon.directory)
        let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        let waybar = try await runTool(
            forecastctl, ["status", "--format", "waybar", "--config", daemon.configPath], environment: environment)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any], "\(waybar.stdout)")
        #expect((object["class"] as? [String])?.contains("rain-soon") == true)
        #expect((object["tooltip"] as? String)?.contains("(moderate), until about \(stopClock)") == true)
        let i3blocks = try await runTool(
            forecastctl, ["status", "--format", "i3blocks", "--config", daemon.configPath], environment: environment)
        let full = try #require(i3blocks.stdout.split(separator: "\n").first)
        #expect(full.contains(" · Rain "), "\(full)")
        #expect(full.contains("(moderate), until about \(stopClock)"), "\(full)")

        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
