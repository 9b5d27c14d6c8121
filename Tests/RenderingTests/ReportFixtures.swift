import ForecastModel
import Foundation
import Rendering

/// The recorded reports under `Tests/Fixtures/reports` and their golden outputs.
///
/// Set `FORECASTD_UPDATE_GOLDEN=1` to rewrite the golden files from the current renderers, then
/// review the difference with `git diff Tests/Fixtures/reports/golden` before committing it.
enum ReportFixtures {
    /// Every recorded report, by file name without `.json`.
    static let names = ["day", "night", "imperial", "stale", "error", "no_location", "locating"]

    static let directory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // RenderingTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/reports")

    static let goldenDirectory = directory.appendingPathComponent("golden")

    static var updating: Bool { ProcessInfo.processInfo.environment["FORECASTD_UPDATE_GOLDEN"] == "1" }

    static func report(_ name: String) throws -> Report {
        let text = try String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)
        return try ReportJSON.decode(text)
    }

    /// The moment a recorded report was rendered, so ages ("5 min") are the same on every run.
    static func now(of report: Report) -> Date {
        Timestamps.parseUTC(report.updatedAt) ?? Date(timeIntervalSince1970: 0)
    }

    static func options(for report: Report, icons: IconSet? = nil, template: Template? = nil) -> RenderOptions {
        RenderOptions(icons: icons, template: template, now: now(of: report))
    }

    static func golden(_ file: String) -> URL { goldenDirectory.appendingPathComponent(file) }
}
