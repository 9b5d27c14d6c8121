import ForecastModel
import Foundation
import Testing

@testable import Settings

/// `config/forecastd.toml` is the documentation of every key; these tests keep it true.
@Suite("The shipped config/forecastd.toml")
struct ShippedConfigTests {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SettingsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("config/forecastd.toml").path

    static func shippedText() throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The file with its commented-out examples (`# key = value`, `# [table]`, `# [[table]]`) switched on.
    static func uncommented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let example = #/^# (\[[a-z_.]+\]|\[\[[a-z_.]+\]\]|[a-z_][a-z0-9_]* = \S.*)$/#
            if let match = line.wholeMatch(of: example) { return String(match.1) }
            return String(line)
        }.joined(separator: "\n")
    }

    @Test(
        "as shipped it decodes to exactly the defaults",
        arguments: [
            (userEnvironment, false, UInt32(1000)),
            (["HOME": "/root", "INVOCATION_ID": "1"], true, UInt32(0)),
            (["HOME": "/home/v"], false, UInt32(1001)),
        ])
    func decodesToDefaults(environment: [String: String], isSystemService: Bool, userID: UInt32) throws {
        let defaults = Settings.defaults(environment: environment, isSystemService: isSystemService, userID: userID)
        let settings = try Settings.decode(Self.shippedText(), path: Self.path, defaults: defaults)
        #expect(settings == defaults)
    }

    @Test("loading it through its path gives the defaults too")
    func loadsToDefaults() throws {
        let settings = try Settings.load(from: Self.path, environment: userEnvironment, isSystemService: false)
        #expect(settings == Settings.defaults(environment: userEnvironment, isSystemService: false))
    }

    @Test("its commented-out examples are valid settings")
    func examplesAreValid() throws {
        // The [units] example replaces the one-line `units`, as its comment says: TOML allows one of them.
        let text = Self.uncommented(try Self.shippedText()).replacingOccurrences(
            of: "\nunits = \"metric\"\n", with: "\n")
        let settings = try Settings.decode(text, path: Self.path, defaults: userDefaults)
        #expect(
            settings.units
                == UnitPreferences(
                    preset: .uk, temperature: .celsius, wind: .kn, pressure: .hpa, precipitation: .mm, distance: .mi,
                    visibility: .km, time: .h24))
        #expect(
            settings.location.pin
                == Pin(coordinate: Coordinate(latitude: -34.9011, longitude: -56.1645), name: "Montevideo"))
        // The examples show the user defaults for uid 1000 with XDG_RUNTIME_DIR set.
        #expect(settings.output.statusFile == userDefaults.output.statusFile)
        #expect(settings.output.socket == userDefaults.output.socket)
        #expect(
            settings.output.files == [
                Settings.StatusFile(path: "/run/user/1000/forecastd/waybar.json", format: .waybar, icons: .emoji)
            ])
        #expect(
            settings.cities == [
                Settings.City(
                    name: "São Paulo", admin1: "São Paulo", countryCode: "BR",
                    coordinate: Coordinate(latitude: -23.5475, longitude: -46.63611), favorite: true,
                    added: CalendarDate(year: 2026, month: 11, day: 22), explicitID: "sao-paulo-br")
            ])
        #expect(settings.cities.first?.id == CityID.derived(name: "São Paulo", countryCode: "BR"))
    }

    @Test("every key is documented, live or as an example")
    func everyKeyDocumented() throws {
        let map = TOMLSourceMap(Self.uncommented(try Self.shippedText()))
        let documented = map.entries.filter { $0.kind == .keyValue }.map(\.keyPath)
        #expect(documented == SettingsTable.keys.map(\.path))
    }

    @Test("every live key has a comment of its own above it")
    func everyKeyCommented() throws {
        let text = try Self.shippedText()
        let map = TOMLSourceMap(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var previousStatementLine = 0
        for entry in map.entries {
            let between = lines[previousStatementLine..<(entry.key.line - 1)]
            if entry.kind == .keyValue {
                #expect(
                    between.contains { $0.hasPrefix("# ") },
                    "\(entry.keyPath.joined(separator: ".")) on line \(entry.key.line) has no comment")
            }
            previousStatementLine = entry.lines.upperBound
        }
    }

    @Test("the text forecastctl writes into a new file is config/forecastd.toml, byte for byte")
    func embeddedTextMatchesFile() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        #expect(Array(Settings.documentedFileText.utf8) == Array(file))
    }
}
