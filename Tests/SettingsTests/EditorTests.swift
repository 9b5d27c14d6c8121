import ForecastModel
import Foundation
import Testing

@testable import Settings

/// A file as people keep it: comments everywhere, a commented-out pin, odd spacing, trailing comments.
let commentedFile = """
    # My forecastd settings — edited by hand.
    #
    # units = "imperial"   (tried it, went back)
    units   =   "metric"      # metric, please
    refresh_minutes = 15

    [location]
    # gps first
    mode = "auto"  # or "pinned"
    # latitude = 48.85

    # The pin I use at the cottage:
    # [location.pin]
    # latitude = 61.5
    # longitude = 23.7

    [location.gpsd]
    host = "127.0.0.1"   # local gpsd
    # port = 2947

    # The end.

    """

@Suite("Editing the text of a settings file")
struct SettingsDocumentTests {
    func key(_ name: String) throws -> SettingsKey { try SettingsKey(name) }

    @Test("setting a written key rewrites its value's bytes and nothing else")
    func setExistingKey() throws {
        var document = SettingsDocument(commentedFile)
        document.set(try key("units"), to: .string("imperial"))
        #expect(
            document.text
                == commentedFile.replacingOccurrences(
                    of: #"units   =   "metric"      # metric"#, with: #"units   =   "imperial"      # metric"#))
        // Only the value's bytes differ; the commented-out `# units = "imperial"` stays a comment.
        #expect(document.text.contains(#"# units = "imperial"   (tried it, went back)"#))
    }

    @Test("a key missing from an existing table goes after the table's last statement")
    func addKeyToExistingTable() throws {
        var document = SettingsDocument(commentedFile)
        document.set(try key("location.gpsd.port"), to: .integer(2948))
        let expected = commentedFile.replacingOccurrences(
            of: "host = \"127.0.0.1\"   # local gpsd\n",
            with: "host = \"127.0.0.1\"   # local gpsd\nport = 2948\n")
        #expect(document.text == expected)
        // The commented `# port = 2947` is still a comment, and the new port is what counts.
        #expect(document.text.contains("# port = 2947"))
        let settings = try Settings.decode(document.text, path: settingsPath, defaults: userDefaults)
        #expect(settings.location.gpsd.port == 2948)
    }

    @Test("a key of a table the file lacks comes in a new table at the end")
    func addMissingTable() throws {
        var document = SettingsDocument(commentedFile)
        document.set(try key("providers.order"), to: .strings(["met-norway", "open-meteo"]))
        #expect(document.text == commentedFile + "\n[providers]\norder = [\"met-norway\", \"open-meteo\"]\n")
    }

    @Test("the pin goes in a new [location.pin] table; the commented-out example stays a comment")
    func pinLeavesCommentedExample() throws {
        var document = SettingsDocument(commentedFile)
        document.set(try key("location.pin.latitude"), to: .number(48.8566))
        document.set(try key("location.pin.longitude"), to: .number(2.3522))
        document.set(try key("location.pin.name"), to: .string("Paris"))
        #expect(
            document.text
                == commentedFile + "\n[location.pin]\nlatitude = 48.8566\nlongitude = 2.3522\nname = \"Paris\"\n")
        #expect(document.text.contains("# [location.pin]\n# latitude = 61.5\n"))
    }

    @Test("removing a table takes exactly its lines, and pin then unpin gives the same bytes back")
    func removeTable() throws {
        let withPin = """
            units = "metric"

            [location]
            mode = "auto"

            # where I live
            [location.pin]
            latitude = 48.8566  # Paris
            # a comment inside the table
            longitude = 2.3522
            name = "Paris"

            # gpsd on the boat
            [location.gpsd]
            host = "10.0.0.5"

            """
        var document = SettingsDocument(withPin)
        document.remove(["location", "pin"])
        #expect(
            document.text
                == """
                units = "metric"

                [location]
                mode = "auto"

                # where I live

                # gpsd on the boat
                [location.gpsd]
                host = "10.0.0.5"

                """)

        var roundTrip = SettingsDocument(commentedFile)
        roundTrip.set(try key("location.pin.latitude"), to: .number(1.5))
        roundTrip.set(try key("location.pin.longitude"), to: .number(2.5))
        roundTrip.remove(["location", "pin"])
        #expect(roundTrip.text == commentedFile)
    }

    @Test("a pin written as dotted keys or as an inline table is removed too")
    func removeDottedAndInline() {
        var dotted = SettingsDocument(
            "units = \"metric\"\nlocation.pin.latitude = 1.0\nlocation.pin.longitude = 2.0\nlocation.mode = \"auto\"\n")
        dotted.remove(["location", "pin"])
        #expect(dotted.text == "units = \"metric\"\nlocation.mode = \"auto\"\n")

        var inline = SettingsDocument(
            "[location]\npin = { latitude = 1.0, longitude = 2.0 }  # home\nmode = \"auto\"\n")
        inline.remove(["location", "pin"])
        #expect(inline.text == "[location]\nmode = \"auto\"\n")

        var nested = SettingsDocument("location = { mode = \"auto\", pin = { latitude = 1.0, longitude = 2.0 } }\n")
        nested.remove(["location", "pin"])
        #expect(nested.text == "location = { mode = \"auto\" }\n")
    }

    @Test("keys join inline tables and dotted keys where their table is written so")
    func addToInlineAndDotted() throws {
        var inline = SettingsDocument("[location]\npin = { latitude = 1.0, longitude = 2.0 }\n")
        inline.set(try key("location.pin.name"), to: .string("Home"))
        #expect(inline.text == "[location]\npin = { latitude = 1.0, longitude = 2.0, name = \"Home\" }\n")

        var dotted = SettingsDocument("units = \"metric\"\nlocation.mode = \"auto\"\n\n[output]\nmax_clients = 3\n")
        dotted.set(try key("location.naming"), to: .string("nearest"))
        #expect(
            dotted.text
                == "units = \"metric\"\nlocation.mode = \"auto\"\nlocation.naming = \"nearest\"\n\n[output]\nmax_clients = 3\n"
        )
    }

    @Test("a root key in a file without root keys goes above the first table and its comments")
    func rootKeyBeforeTables() throws {
        let text = "# settings\n\n# where\n[location]\nmode = \"auto\"\n"
        var document = SettingsDocument(text)
        document.set(try key("units"), to: .string("imperial"))
        #expect(document.text == "# settings\n\nunits = \"imperial\"\n\n# where\n[location]\nmode = \"auto\"\n")

        var empty = SettingsDocument("")
        empty.set(try key("units"), to: .string("imperial"))
        #expect(empty.text == "units = \"imperial\"\n")

        var noNewline = SettingsDocument("units = \"metric\"")
        noNewline.set(try key("refresh_minutes"), to: .integer(30))
        #expect(noNewline.text == "units = \"metric\"\nrefresh_minutes = 30\n")
    }

    @Test("Windows line endings are kept, and new lines get them too")
    func crlf() throws {
        let text = "# mine\r\nunits = \"metric\" # here\r\n\r\n[location.gpsd]\r\nhost = \"a\"\r\n"
        var document = SettingsDocument(text)
        document.set(try key("units"), to: .string("imperial"))
        document.set(try key("location.gpsd.port"), to: .integer(3000))
        document.set(try key("display.icons"), to: .string("nerd"))
        #expect(
            document.text
                == "# mine\r\nunits = \"imperial\" # here\r\n\r\n[location.gpsd]\r\nhost = \"a\"\r\nport = 3000\r\n"
                + "\r\n[display]\r\nicons = \"nerd\"\r\n")
        let settings = try Settings.decode(document.text, path: settingsPath, defaults: userDefaults)
        #expect(settings.location.gpsd.port == 3000)
        #expect(settings.display.icons == .nerd)
    }

    @Test("indented tables get indented keys")
    func indentation() throws {
        var document = SettingsDocument("[location.gpsd]\n    host = \"a\"\n")
        document.set(try key("location.gpsd.port"), to: .integer(3000))
        #expect(document.text == "[location.gpsd]\n    host = \"a\"\n    port = 3000\n")
    }

    @Test("values are written as TOML: quoted and escaped strings, floats with a fraction, arrays")
    func valueSpelling() throws {
        var document = SettingsDocument("")
        document.set(try key("location.pin.name"), to: .string("Quote \" and \\ back"))
        document.set(try key("location.max_speed_kmh"), to: .number(900))
        #expect(
            document.text
                == "[location.pin]\nname = \"Quote \\\" and \\\\ back\"\n\n[location]\nmax_speed_kmh = 900.0\n")
    }
}

@Suite("Editing settings files on disk")
struct SettingsFileEditorTests {
    @Test("an edit writes the file and lists what changed")
    func editWrites() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        let edit = try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
            document throws(SettingsEditError) in
            document.set(try SettingsKey("units"), to: .string("imperial"))
        }
        #expect(edit.written)
        #expect(!edit.created)
        #expect(edit.changes.map(\.description) == ["units: metric → imperial"])
        #expect(edit.settings.units == .imperial)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == commentedFile.replacingOccurrences(of: "\"metric\"      #", with: "\"imperial\"      #"))
    }

    @Test("a value the decoder rejects is refused with the key and what is allowed; the file is unchanged")
    func invalidResultRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
                document throws(SettingsEditError) in
                document.set(try SettingsKey("units"), to: .string("kelvin"))
            }
        }
        #expect(error?.kind == .invalidRequest)
        #expect(
            error?.message
                == "the change would make the settings invalid, so \(path) was not changed:\n"
                + #"  units: "kelvin" is not a unit system (allowed: "metric", "imperial", "uk", "si")"#)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("a file that has errors is not edited; the errors are shown with their place")
    func invalidFileRefused() throws {
        let directory = try TemporaryDirectory()
        let broken = "units = \"metric\"\nrefresh_minutes = 0  # oops\n"
        let path = try directory.write(broken, to: "forecastd.toml")
        let error = #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
                document throws(SettingsEditError) in
                document.set(try SettingsKey("units"), to: .string("imperial"))
            }
        }
        #expect(error?.kind == .invalidFile)
        #expect(
            error?.message
                == "\(path) has errors, so it was left as it is; fix them first:\n"
                + "\(path):2:19: refresh_minutes: 0 is out of range (allowed: 1...1440)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == broken)

        let syntax = try directory.write("units = \"metric\n", to: "syntax.toml")
        let syntaxError = #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.edit(SettingsEditTarget(path: syntax, whenMissing: .refuse), environment: userEnvironment) {
                _ throws(SettingsEditError) in
            }
        }
        #expect(syntaxError?.message.contains("\(syntax):1:") == true)
    }

    @Test("a missing file is created from the documented defaults, private, in a private directory")
    func createsFromDefaults() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/config/forecastd/forecastd.toml"
        let edit = try SettingsFileEditor.edit(
            SettingsEditTarget(path: path, whenMissing: .create(from: userDefaults, defaults: userDefaults)), environment: userEnvironment) {
            document throws(SettingsEditError) in
            document.set(try SettingsKey("units"), to: .string("imperial"))
        }
        #expect(edit.created)
        #expect(edit.changes.map(\.description) == ["units: metric → imperial"])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            text
                == Settings.documentedFileText.replacingOccurrences(
                    of: "\nunits = \"metric\"\n", with: "\nunits = \"imperial\"\n"))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(directory.path + "/config/forecastd", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(directory.path + "/config", &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("without create, a missing file is an error and nothing is made")
    func missingWithoutCreate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/none/forecastd.toml"
        #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
                _ throws(SettingsEditError) in
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/none"))
    }

    @Test("an existing file keeps its mode; a symbolic link stays a link to the edited file")
    func keepsModeAndLink() throws {
        let directory = try TemporaryDirectory()
        let real = try directory.write("units = \"metric\"\n", to: "dotfiles/forecastd.toml")
        chmod(real, 0o640)
        let link = directory.path + "/forecastd.toml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let edit = try SettingsFileEditor.edit(SettingsEditTarget(path: link, whenMissing: .refuse), environment: userEnvironment) {
            document throws(SettingsEditError) in
            document.set(try SettingsKey("refresh_minutes"), to: .integer(30))
        }
        #expect(edit.path == real)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "units = \"metric\"\nrefresh_minutes = 30\n")
        var info = stat()
        #expect(stat(real, &info) == 0 && info.st_mode & 0o777 == 0o640)
    }

    @Test("setting a key to the value it has changes no effective value and writes nothing new")
    func unchangedValue() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("units = \"metric\"\n", to: "forecastd.toml")
        let edit = try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
            document throws(SettingsEditError) in
            document.set(try SettingsKey("units"), to: .string("metric"))
        }
        #expect(!edit.written)
        #expect(edit.changes.isEmpty)
    }

    @Test("removing the pin while pinned is refused: pinned mode needs a pin")
    func unpinWhilePinned() throws {
        let directory = try TemporaryDirectory()
        let text = "[location]\nmode = \"pinned\"\n[location.pin]\nlatitude = 1.0\nlongitude = 2.0\n"
        let path = try directory.write(text, to: "forecastd.toml")
        let error = #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
                document throws(SettingsEditError) in
                document.remove(["location", "pin"])
            }
        }
        #expect(error?.message.contains("location.mode: \"pinned\" needs a [location.pin] table") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
}

@Suite("Setting the pin")
struct SetPinTests {
    @Test("a new pin keeps the table's comments, rounds to 6 decimals, and drops the old name unless a new one is given")
    func setPin() throws {
        let original = """
            [location.pin]   # home
            latitude = 1.0
            longitude = 2.0
            name = "Old place"   # kept only with the old pin

            """
        var document = SettingsDocument(original)
        try document.setPin(Coordinate(latitude: 48.85661234567, longitude: 2.35221987654), name: nil)
        #expect(document.text == "[location.pin]   # home\nlatitude = 48.856612\nlongitude = 2.35222\n")

        var named = SettingsDocument(original)
        try named.setPin(Coordinate(latitude: -34.9011, longitude: -56.1645), name: "Montevideo")
        #expect(
            named.text
                == "[location.pin]   # home\nlatitude = -34.9011\nlongitude = -56.1645\nname = \"Montevideo\"   # kept only with the old pin\n")
    }
}
