import ForecastModel
import Foundation
import TestSupport
import Testing

/// `forecastctl warnings` in a terminal, with NWS's recorded Iowa tornado warning (issue 23, items 6 and 9):
/// it fits 80 and 60 columns, wraps at words, keeps the source's paragraphs and labels the instruction; a
/// severity NWS gives as "Unknown" is shown as unknown.
@Suite("forecastctl warnings in a terminal", .serialized)
struct WarningsCommandTests {
    /// A daemon pinned inside the recorded tornado polygon, its warnings from the replayed NWS answer
    /// (`severity` replaced when asked), and forecastctl's output at each width.
    func warnings(severity: String? = nil, widths: [Int]) async throws -> [Int: String] {
        let server = try await ReplayServer.start()
        server.setRoute(path: AlertsEndToEndTests.forecastPath, .json(try samaraResponse()))
        var nws = try AlertsEndToEndTests.iowa()
        if let severity {
            let text = String(decoding: nws.body, as: UTF8.self)
                .replacingOccurrences(of: #""severity": "Extreme""#, with: "\"severity\": \"\(severity)\"")
            nws = .json(text)
        }
        server.setRoute(path: "/nws", nws)
        server.setRoute(path: AlertsEndToEndTests.airPath, try ReplayResponse.recorded(AlertsEndToEndTests.airFixture))
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: nil, openMeteoURL: server.url(AlertsEndToEndTests.forecastPath),
                pin: (41.01173, -95.16172, nil), mode: "pinned", alerts: AlertsEndToEndTests.alertSettings(server)))
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the tornado warning") { try await socketReport(daemon.socketPath).warnings?.isEmpty == false }
        var outputs: [Int: String] = [:]
        for width in widths {
            let result = try await runTool(
                DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), ["warnings", "--config", daemon.configPath],
                environment: DaemonProcess.environment(for: daemon.directory).merging(["COLUMNS": "\(width)"]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            outputs[width] = result.stdout
        }
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
        return outputs
    }

    @Test("80 and 60 columns: every line fits, words whole, paragraphs kept, the instruction labelled")
    func fitsTheTerminal() async throws {
        let outputs = try await warnings(widths: [80, 60])
        for (width, output) in outputs {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in lines where line.count > width {
                // Only a word longer than a line (an address) may be longer.
                #expect(!line.trimmingCharacters(in: .whitespaces).contains(" "), "\(width) columns: \(line)")
            }
            // The table still names the warning, its severity and its times.
            #expect(lines.contains { $0.hasPrefix("extreme") && $0.contains("Tornado Warning") }, "\(output)")
            // NWS's paragraphs stay paragraphs (a blank line before each), its line breaks inside one do not.
            let hazard = try #require(lines.firstIndex { $0.hasPrefix("  HAZARD...Tornado and half dollar size hail.") })
            #expect(lines[hazard - 1].isEmpty, "\(output)")
            let words = output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("a severe thunderstorm capable of producing a tornado was located"), "\(output)")
            #expect(words.contains("on the lowest floor of a sturdy building"), "\(output)")
            // What to do is said as such, after a blank line, not run on from the description.
            let instruction = try #require(lines.firstIndex { $0.hasPrefix("  What to do: TAKE COVER NOW!") }, "\(output)")
            #expect(lines[instruction - 1].isEmpty)
            #expect(output.contains("  https://api.weather.gov/"))
        }
        // Words are never cut at the narrower width either.
        #expect(!(outputs[60] ?? "").contains("torna\n"))
    }

    @Test("a severity NWS gives as Unknown is shown as unknown, never as minor")
    func unknownSeverity() async throws {
        let output = try #require(try await warnings(severity: "Unknown", widths: [80])[80])
        #expect(output.contains("Tornado Warning (unknown)"), "\(output)")
        #expect(output.split(separator: "\n").contains { $0.hasPrefix("unknown") && $0.contains("Tornado Warning") })
        #expect(!output.contains("(minor)"))
    }
}
