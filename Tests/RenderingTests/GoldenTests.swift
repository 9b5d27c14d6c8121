import ForecastModel
import Foundation
import Rendering
import Testing

/// Every format of every recorded report, compared byte for byte with a reviewed golden file.
@Suite("Golden outputs")
struct GoldenTests {
    static let cases: [(String, OutputFormat)] = ReportFixtures.names.flatMap { name in
        OutputFormat.allCases.map { (name, $0) }
    }

    @Test("format output matches its golden file", arguments: cases)
    func format(_ name: String, _ format: OutputFormat) throws {
        let report = try ReportFixtures.report(name)
        let output = Renderer.render(report, as: format, options: ReportFixtures.options(for: report))
        try compare(output, with: "\(name).\(format.rawValue).txt")
    }

    @Test("forecast table matches its golden file", arguments: ReportFixtures.names)
    func table(_ name: String) throws {
        let report = try ReportFixtures.report(name)
        try compare(ForecastTable.render(report, width: 80), with: "\(name).table.txt")
    }

    @Test("a narrow terminal drops the condition column and keeps the chart")
    func narrowTable() throws {
        let report = try ReportFixtures.report("day")
        try compare(ForecastTable.render(report, width: 50), with: "day.table-50.txt")
    }

    @Test("the Nerd Font and text icon sets on the day and night reports", arguments: ["day", "night"])
    func iconSets(_ name: String) throws {
        let report = try ReportFixtures.report(name)
        for icons in [IconSet.nerd, .text, .emojiSafe] {
            let output = Renderer.render(
                report, as: .waybar, options: ReportFixtures.options(for: report, icons: icons))
            try compare(output, with: "\(name).waybar-\(icons.rawValue).txt")
        }
    }

    @Test("the golden directory holds exactly the files the tests compare")
    func noOrphans() throws {
        var expected = Set(Self.cases.map { "\($0.0).\($0.1.rawValue).txt" })
        expected.formUnion(ReportFixtures.names.map { "\($0).table.txt" })
        expected.insert("day.table-50.txt")
        for name in ["day", "night"] {
            for icons in ["nerd", "text", "emoji-safe"] { expected.insert("\(name).waybar-\(icons).txt") }
        }
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: ReportFixtures.goldenDirectory.path))
        #expect(present == expected)
    }

    private func compare(_ output: String, with file: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let url = ReportFixtures.golden(file)
        if ReportFixtures.updating {
            try Data(output.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(output == expected, "\(file) differs from its golden file", sourceLocation: sourceLocation)
    }
}
