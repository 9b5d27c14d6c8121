import Foundation
import Testing

@testable import Settings

@Suite("Mapping keys to lines and columns")
struct TOMLSourceMapTests {
    typealias Position = TOMLSourceMap.Position

    /// Comments, strings and arrays full of things that look like keys and headers but are not.
    static let commented = """
        # forecastd.toml, heavily commented
        #   [location]            <- a header in a comment is not a header
        #   units = "imperial"    <- nor is a key

        units = "metric" # trailing comment with = and [brackets]
        "quoted key" = 'literal # not a comment'
        motto = \"""
        [not.a.header]
        fake = "key"
        \"""
        ports = [ # a comment inside an array
          2947,   # with [brackets]
          "x]",
        ]

          [ location . gpsd ]   # spaces inside the header
        host     =     "gps.lan"
        "café" = 1
        pin = { latitude = 1.5, longitude = -2.25, name = "A, B" }
        a.b . c = true
        when = 1979-05-27 07:32:00 # a local date-time has a space in it

        [[sources]]
        name = "one"
        [providers.open_meteo]
        url = 'https://x'
        """

    let map = TOMLSourceMap(Self.commented)

    func text(_ range: Range<Int>?) -> String? {
        range.map { String(decoding: map.bytes[$0], as: UTF8.self) }
    }

    @Test("keys and values are found at their line and column, comments and strings skipped")
    func positions() throws {
        let units = try #require(map.entry(for: ["units"]))
        #expect(units.key == Position(line: 5, column: 1))
        #expect(units.value == Position(line: 5, column: 9))
        #expect(text(units.valueBytes) == "\"metric\"")
        #expect(units.section == [])

        let quoted = try #require(map.entry(for: ["quoted key"]))
        #expect(quoted.value == Position(line: 6, column: 16))
        #expect(text(quoted.valueBytes) == "'literal # not a comment'")

        let motto = try #require(map.entry(for: ["motto"]))
        #expect(motto.value == Position(line: 7, column: 9))
        #expect(motto.lines == 7...10)
        #expect(text(motto.valueBytes) == "\"\"\"\n[not.a.header]\nfake = \"key\"\n\"\"\"")

        let ports = try #require(map.entry(for: ["ports"]))
        #expect(ports.lines == 11...14)
        #expect(text(ports.valueBytes)?.hasPrefix("[ # a comment") == true)
        #expect(text(ports.valueBytes)?.hasSuffix("\"x]\",\n]") == true)
    }

    @Test("nothing inside comments, multi-line strings or arrays becomes an entry")
    func noFalseEntries() {
        let paths = map.entries.map(\.keyPath)
        #expect(!paths.contains(["location"]))
        #expect(!paths.contains(["not", "a", "header"]))
        #expect(!paths.contains(["fake"]))
        #expect(
            paths == [
                ["units"], ["quoted key"], ["motto"], ["ports"],
                ["location", "gpsd"], ["location", "gpsd", "host"], ["location", "gpsd", "café"],
                ["location", "gpsd", "pin"], ["location", "gpsd", "pin", "latitude"],
                ["location", "gpsd", "pin", "longitude"], ["location", "gpsd", "pin", "name"],
                ["location", "gpsd", "a", "b", "c"], ["location", "gpsd", "when"],
                ["sources"], ["sources", "name"],
                ["providers", "open_meteo"], ["providers", "open_meteo", "url"],
            ])
    }

    @Test("headers with spaces, padded assignments and dotted keys with spaces")
    func spacing() throws {
        let gpsd = try #require(map.entry(for: ["location", "gpsd"]))
        #expect(gpsd.kind == .table)
        #expect(gpsd.key == Position(line: 16, column: 3))
        #expect(gpsd.value == nil)
        #expect(text(gpsd.keyBytes) == "[ location . gpsd ]")

        let host = try #require(map.entry(for: ["location", "gpsd", "host"]))
        #expect(host.key == Position(line: 17, column: 1))
        #expect(host.value == Position(line: 17, column: 16))
        #expect(host.section == ["location", "gpsd"])

        let dotted = try #require(map.entry(for: ["location", "gpsd", "a", "b", "c"]))
        #expect(text(dotted.keyBytes) == "a.b . c")
        #expect(dotted.value == Position(line: 20, column: 11))

        let when = try #require(map.entry(for: ["location", "gpsd", "when"]))
        #expect(text(when.valueBytes) == "1979-05-27 07:32:00")
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() throws {
        let cafe = try #require(map.entry(for: ["location", "gpsd", "café"]))
        #expect(cafe.value == Position(line: 18, column: 10))
    }

    @Test("pairs inside an inline table are mapped one by one")
    func inlineTable() throws {
        let pin = try #require(map.entry(for: ["location", "gpsd", "pin"]))
        #expect(pin.value == Position(line: 19, column: 7))
        #expect(!pin.isInline)
        #expect(text(pin.valueBytes) == "{ latitude = 1.5, longitude = -2.25, name = \"A, B\" }")

        let latitude = try #require(map.entry(for: ["location", "gpsd", "pin", "latitude"]))
        #expect(latitude.isInline)
        #expect(latitude.key == Position(line: 19, column: 9))
        #expect(latitude.value == Position(line: 19, column: 20))
        let longitude = try #require(map.entry(for: ["location", "gpsd", "pin", "longitude"]))
        #expect(longitude.value == Position(line: 19, column: 37))
        #expect(text(longitude.valueBytes) == "-2.25")
        let name = try #require(map.entry(for: ["location", "gpsd", "pin", "name"]))
        #expect(name.value == Position(line: 19, column: 51))
        #expect(text(name.valueBytes) == "\"A, B\"")
    }

    @Test("arrays of tables and the sections after them")
    func arrayOfTables() throws {
        let sources = try #require(map.entry(for: ["sources"]))
        #expect(sources.kind == .arrayOfTables)
        #expect(map.entry(for: ["sources", "name"])?.section == ["sources"])
        #expect(map.valuePosition(of: ["providers", "open_meteo", "url"]) == Position(line: 26, column: 7))
    }

    @Test("a table without a header of its own is placed at its first statement")
    func implicitTables() {
        #expect(map.keyPosition(of: ["location"]) == Position(line: 16, column: 3))
        #expect(map.valuePosition(of: ["providers"]) == Position(line: 25, column: 1))
        #expect(map.keyPosition(of: ["location", "gpsd", "a"]) == Position(line: 20, column: 1))
        #expect(map.keyPosition(of: ["absent"]) == nil)
    }

    @Test("the last line of each section, where an editor would add a key")
    func sectionEnds() {
        #expect(map.lastLine(ofSection: []) == 14)
        #expect(map.lastLine(ofSection: ["location", "gpsd"]) == 21)
        #expect(map.lastLine(ofSection: ["providers", "open_meteo"]) == 26)
        #expect(map.lastLine(ofSection: ["output"]) == nil)
        #expect(TOMLSourceMap("[output]\n# nothing yet\n").lastLine(ofSection: ["output"]) == 1)
    }

    @Test("line ranges leave out the line break")
    func lineRanges() {
        #expect(text(map.byteRange(ofLine: 17)) == "host     =     \"gps.lan\"")
        #expect(text(map.byteRange(ofLine: 4)) == "")
        #expect(map.byteRange(ofLine: 0) == nil)
        #expect(map.byteRange(ofLine: 27) == nil)
    }

    @Test("replacing a value's bytes keeps every other byte of the file")
    func editInPlace() throws {
        let original = """
            # How often, in minutes.
            refresh_minutes = 15   # keep this comment

            [location]
            mode = "auto"
            """
        let map = TOMLSourceMap(original)
        let range = try #require(map.entry(for: ["refresh_minutes"])?.valueBytes)
        var bytes = map.bytes
        bytes.replaceSubrange(range, with: Array("30".utf8))
        let edited = String(decoding: bytes, as: UTF8.self)
        #expect(
            edited == """
                # How often, in minutes.
                refresh_minutes = 30   # keep this comment

                [location]
                mode = "auto"
                """)
        #expect(try Settings.decode(edited, path: "f.toml", defaults: userDefaults).refreshMinutes == 30)
    }

    @Test("Windows line endings and a byte order mark")
    func lineEndings() throws {
        let map = TOMLSourceMap("\u{FEFF}units = \"metric\"\r\n[location]\r\nmode = \"auto\" # c\r\n")
        #expect(map.valuePosition(of: ["units"]) == Position(line: 1, column: 9))
        let mode = try #require(map.entry(for: ["location", "mode"]))
        #expect(mode.value == Position(line: 3, column: 8))
        #expect(String(decoding: map.bytes[try #require(mode.valueBytes)], as: UTF8.self) == "\"auto\"")
        #expect(String(decoding: map.bytes[try #require(map.byteRange(ofLine: 2))], as: UTF8.self) == "[location]")
    }

    @Test("quoted keys are unescaped; multi-line strings may hold quotes and escapes")
    func escapes() {
        let map = TOMLSourceMap(
            #"""
            "a\"b" = 1
            "\u00e9t\u00E9" = 2
            'c.d' = 3
            s = """ends with a quote""""
            t = '''it's'''
            u = """escaped \""" inside"""
            after = 4
            """#)
        #expect(
            map.entries.map(\.keyPath) == [["a\"b"], ["été"], ["c.d"], ["s"], ["t"], ["u"], ["after"]])
        #expect(map.valuePosition(of: ["after"]) == Position(line: 7, column: 9))
    }

    @Test(
        "malformed documents are mapped as far as they go, without hanging",
        arguments: [
            "[[[\n= = =\n\"unterminated\nkey = [1, 2\n",
            "a = \"\"\"never closed\nb = 1\n",
            "x = {",
            "x = { y = [ { z = 1 ",
            "[a\nb = 1\n",
            "= 1\n'\n\"\n[",
        ])
    func malformed(text: String) {
        let map = TOMLSourceMap(text)
        for entry in map.entries {
            #expect(entry.key.line >= 1 && entry.key.line <= map.lineStarts.count)
        }
    }

    @Test("after a malformed line, later lines are still mapped")
    func recovery() {
        let map = TOMLSourceMap("units = \"metric\"\nthis line is = = broken [\n[location]\nmode = \"auto\"\n")
        #expect(map.valuePosition(of: ["location", "mode"]) == Position(line: 4, column: 8))
    }
}
