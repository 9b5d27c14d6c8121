import ForecastModel
import Foundation
import Testing

@testable import Settings

@Suite("units: a preset on one line, or the [units] table")
struct UnitsSettingsTests {
    func decode(_ text: String, environment: [String: String] = userEnvironment) throws -> Settings {
        let defaults = Settings.defaults(environment: environment, isSystemService: false, userID: 1000)
        return try Settings.decode(text, path: settingsPath, defaults: defaults)
    }

    @Test("the one-line form takes the four presets")
    func oneLine() throws {
        for preset in UnitSystem.allCases {
            let settings = try decode("units = \"\(preset.rawValue)\"\n")
            #expect(settings.units == UnitPreferences(preset: preset))
        }
    }

    @Test("the table form: a preset (metric when left out) and quantities set apart from it")
    func table() throws {
        let settings = try decode(
            """
            refresh_minutes = 10

            [units]
            preset = "uk"
            wind = "kn"
            pressure = "mmhg"
            visibility = "km"
            time = "12h"
            """)
        #expect(
            settings.units
                == UnitPreferences(preset: .uk, wind: .kn, pressure: .mmhg, visibility: .km, time: .h12))
        #expect(settings.units.distance == .mi)
        #expect(settings.refreshMinutes == 10)
        #expect(try decode("[units]\nwind = \"bft\"\n").units == UnitPreferences(preset: .metric, wind: .bft))
        // Dotted keys and an inline table are the same table.
        #expect(try decode("units.wind = \"ms\"\n").units.wind == .ms)
        #expect(try decode("units = { preset = \"si\", temperature = \"fahrenheit\" }\n").units.temperature == .fahrenheit)
    }

    @Test("the clock follows the locale of the environment unless [units] time says")
    func clock() throws {
        #expect(try decode("", environment: ["LANG": "en_US.UTF-8", "HOME": "/home/u"]).units.time == .h12)
        #expect(try decode("", environment: ["LANG": "de_DE.UTF-8", "HOME": "/home/u"]).units.time == .h24)
        #expect(
            try decode("[units]\ntime = \"24h\"\n", environment: ["LANG": "en_US.UTF-8", "HOME": "/home/u"]).units.time
                == .h24)
    }

    @Test("an unknown unit, quantity or preset is an error at its line and column naming what is allowed")
    func errors() {
        let p = settingsPath
        #expect(
            problems(in: "[units]\npreset = \"metric\"\nwind = \"knots\"\ngusts = \"kn\"\n") == [
                #"\#(p):3:8: units.wind: "knots" is not a wind speed unit (allowed: "kmh", "ms", "mph", "kn", "bft")"#,
                "\(p):4:1: units.gusts: unknown key (allowed: preset, temperature, wind, pressure, precipitation, "
                    + "distance, visibility, time)",
            ])
        #expect(
            problems(in: "[units]\npreset = \"british\"\n") == [
                #"\#(p):2:10: units.preset: "british" is not a unit system (allowed: "metric", "imperial", "uk", "si")"#
            ])
        #expect(
            problems(in: "units = \"kelvin\"\n") == [
                #"\#(p):1:9: units: "kelvin" is not a unit system (allowed: "metric", "imperial", "uk", "si")"#
            ])
        #expect(
            problems(in: "[units]\npressure = 1013\n") == ["\(p):2:12: units.pressure: expected a string, found an integer"])
    }

    @Test("units written both on one line and as a table is one clear error, not the parser's")
    func bothForms() {
        #expect(
            problems(in: "units = \"metric\"\n\n[units]\nwind = \"kn\"\n") == [
                "\(settingsPath):1:1: units: is written twice, as `units = …` (line 1) and as the [units] table "
                    + "(line 3); TOML allows only one (allowed: either `units = \"metric\"` alone, or a [units] table "
                    + "with preset = \"metric\" in it)"
            ])
        #expect(problems(in: "units = \"uk\"\nunits.wind = \"kn\"\n").count == 1)
    }

    @Test("units with no value at the end of the file is an error naming the place, not a crash")
    func unitsWithoutValueAtEnd() {
        // Found by the fuzzer (FuzzSettings): the check for both forms read the byte after `=`, past the end.
        for text in ["units =", "refresh_minutes = 15\n\"units\" =", "[[ct = 2947 } }\nunits ="] {
            let found = problems(in: text)
            #expect(!found.isEmpty, "\(text.debugDescription) was accepted")
            #expect(found.allSatisfy { $0.hasPrefix("\(settingsPath):") }, "\(found)")
        }
    }

    @Test("config show and a file made from the settings write the table form, which reads back the same")
    func written() throws {
        var settings = userDefaults
        settings.units = UnitPreferences(preset: .si, wind: .bft, time: .h12)
        let shown = settings.toml(origin: "a test")
        #expect(shown.contains("\n[units]\npreset = \"si\"\nwind = \"bft\"\ntime = \"12h\"\n"))
        #expect(!shown.contains("\nunits = "))
        let documented = Settings.documentedText(settings: settings, defaults: userDefaults)
        #expect(!documented.contains("\nunits = "))
        #expect(try decode(documented).units == settings.units)
        #expect(try decode(shown).units == settings.units)
        // Without overrides, the one line.
        settings.units = .uk
        #expect(Settings.documentedText(settings: settings, defaults: userDefaults).contains("\nunits = \"uk\"\n"))
    }
}

@Suite("Editing units: the one line becomes the [units] table, byte for byte")
struct UnitsEditingTests {
    func target(_ path: String) -> SettingsEditTarget { SettingsEditTarget(path: path, whenMissing: .refuse) }

    func apply(_ words: String, _ path: String) throws(SettingsEditError) -> [String] {
        try SettingsFileEditor.apply(.units(words), to: target(path), places: nil, environment: userEnvironment).lines
    }

    @Test("a units edit of a file ending in `units =` is refused, the file unchanged, not a crash")
    func editFileEndingWithoutValue() throws {
        let directory = try TemporaryDirectory()
        let text = "refresh_minutes = 15\nunits ="
        let path = try directory.write(text, to: "forecastd.toml")
        #expect(throws: SettingsEditError.self) { try apply("wind kn", path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test("a quantity moves units into a [units] table after the root keys, keeping spacing and comments")
    func oneLineToTable() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        #expect(try apply("wind kn", path) == ["units.wind: (none) → kn (\(path))"])
        let table = """
            # My forecastd settings — edited by hand.
            #
            # units = "imperial"   (tried it, went back)
            refresh_minutes = 15

            [units]
            preset   =   "metric"      # metric, please
            wind = "kn"

            [location]
            """
        let expected = commentedFile.replacingOccurrences(
            of: """
                # My forecastd settings — edited by hand.
                #
                # units = "imperial"   (tried it, went back)
                units   =   "metric"      # metric, please
                refresh_minutes = 15

                [location]
                """, with: table)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)

        // A second quantity goes into the table; a unit already set is rewritten in place.
        #expect(try apply("pressure inhg", path) == ["units.pressure: (none) → inhg (\(path))"])
        #expect(try apply("wind bft", path) == ["units.wind: kn → bft (\(path))"])
        let withPressure = expected.replacingOccurrences(
            of: "wind = \"kn\"\n", with: "wind = \"bft\"\npressure = \"inhg\"\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == withPressure)

        // A preset sets the table's preset and removes the units set apart from it.
        #expect(
            try apply("uk", path) == [
                "units: metric → uk (\(path))", "units.wind: bft → (none) (\(path))",
                "units.pressure: inhg → (none) (\(path))",
            ])
        let presetOnly = expected.replacingOccurrences(
            of: "preset   =   \"metric\"      # metric, please\nwind = \"kn\"\n",
            with: "preset   =   \"uk\"      # metric, please\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == presetOnly)
        #expect(try Settings.decode(presetOnly, path: path, defaults: userDefaults).units == .uk)
    }

    @Test("the documented file: the key's own comment goes with it into the table")
    func documentedFile() throws {
        let directory = try TemporaryDirectory()
        let shipped = Settings.documentedText(settings: userDefaults, defaults: userDefaults)
        let path = try directory.write(shipped, to: "forecastd.toml")
        _ = try apply("wind ms", path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // The comment lines just above `units = "metric"` in the documented file.
        let lines = shipped.split(separator: "\n", omittingEmptySubsequences: false)
        let keyLine = try #require(lines.firstIndex(of: "units = \"metric\""))
        let firstComment = try #require(lines[..<keyLine].lastIndex(of: "")) + 1
        let keyComment = lines[firstComment..<keyLine].joined(separator: "\n")
        #expect(keyComment.hasPrefix("# Units for temperatures"))
        #expect(!text.contains(keyComment + "\nunits = \"metric\"\n"))
        #expect(text.contains("\n\n" + keyComment + "\n[units]\npreset = \"metric\"\nwind = \"ms\"\n\n[location]\n"))
        // Nothing else changed: the file less the block is the shipped file less the line and its comment.
        #expect(
            text.replacingOccurrences(of: "\n" + keyComment + "\n[units]\npreset = \"metric\"\nwind = \"ms\"\n", with: "")
                == shipped.replacingOccurrences(of: keyComment + "\nunits = \"metric\"\n\n", with: ""))
        #expect(try Settings.decode(text, path: path, defaults: userDefaults).units.wind == .ms)
    }

    @Test("a file without tables gets the table at its end; a file without units gets a new table")
    func otherShapes() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("units = \"si\"  # SI\nrefresh_minutes = 20\n", to: "a.toml")
        _ = try apply("temperature fahrenheit", path)
        #expect(
            try String(contentsOfFile: path, encoding: .utf8)
                == "refresh_minutes = 20\n\n[units]\npreset = \"si\"  # SI\ntemperature = \"fahrenheit\"\n")
        let bare = try directory.write("refresh_minutes = 20\n", to: "b.toml")
        _ = try apply("time 12h", bare)
        #expect(try String(contentsOfFile: bare, encoding: .utf8) == "refresh_minutes = 20\n\n[units]\ntime = \"12h\"\n")
    }

    @Test("bad words are refused before anything is written, naming what is allowed")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        #expect {
            try apply("gust kn", path)
        } throws: { error in
            (error as? SettingsEditError)?.description.contains(
                "\"gust\" is not a quantity (allowed: temperature, wind, pressure, precipitation, distance, "
                    + "visibility, time)") == true
        }
        #expect {
            try apply("wind knots", path)
        } throws: { error in
            (error as? SettingsEditError)?.description.contains(
                #"units.wind: "knots" is not a wind speed unit (allowed: "kmh", "ms", "mph", "kn", "bft")"#) == true
        }
        #expect(throws: SettingsEditError.self) { try apply("kelvin", path) }
        #expect(throws: SettingsEditError.self) { try apply("wind kn now", path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == commentedFile)
    }
}
