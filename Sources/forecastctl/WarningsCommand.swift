import ArgumentParser
import Control
import ForecastModel
import Foundation
import Rendering

/// `forecastctl warnings`: the official warnings in force, from the daemon's report (or the status file
/// it last wrote, as `status` does).
struct WarningsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warnings",
        abstract: "List the official weather warnings in force where you are (or in a listed city).",
        discussion: """
            A table (severity, event, from, until, area, source; local times of the position), then each \
            warning's headline, description, instruction ("What to do: …") and page, wrapped to the terminal's \
            width (COLUMNS, else 80) with their paragraphs kept. --json prints the report's `warnings` array \
            exactly as the daemon publishes it ([] when there is none, or no warnings at all). When forecastd is \
            not running, the last status file it wrote is read instead, with a note on stderr; warnings that \
            have expired since are left out.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the warnings as one line of JSON, as the report carries them.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("One of the listed cities (its id or name) instead of here.", valueName: "CITY"))
    var city: String?

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let line = try fetchReport(
                socketPath: global.socketPath(settings), statusFile: global.statusFile(settings),
                phrases: settings.phrases
            ).line
            var report: Report
            do {
                report = try ReportJSON.decode(line)
            } catch {
                throw CommandFailure(message: "the report is not valid JSON: \(error)", exitCode: .requestFailed)
            }
            if let city {
                guard let cityReport = report.city(city) else {
                    let listed = (report.cities ?? []).map(\.id).joined(separator: ", ")
                    throw CommandFailure(
                        message: "unknown city \"\(city)\" (listed: \(listed.isEmpty ? "none" : listed))",
                        exitCode: .usage)
                }
                report = cityReport.report
            }
            let now = Date()
            guard json else {
                print(WarningsTable.render(report, now: now, phrases: settings.phrases, width: terminalWidth()))
                return
            }
            let inForce = (report.warnings ?? []).filter { $0.isInForce(at: now) }
            let data = (try? Report.makeEncoder().encode(inForce)) ?? Data("[]".utf8)
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
