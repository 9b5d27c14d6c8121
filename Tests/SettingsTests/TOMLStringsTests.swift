import Foundation
import TOMLKit
import Testing

@testable import Settings

/// Strings are read from the file's bytes rather than from TOMLKit (which leaks a copy of each): they
/// must read exactly as toml++ reads them.
@Suite("Reading strings from the document")
struct TOMLStringsTests {
    static let document = #"""
        basic = "tab\there, \"quoted\", back\\slash, \u00E9\U0001F600"
        literal = 'C:\Users\no escapes'
        empty = ""
        multi = """
        first line
          second "line" with \"escapes\"\t
        third"""
        joined = """\
            The quick \
            brown fox \
            jumps."""
        ending = """ends with a quote""""
        literal_multi = '''
        raw \n text
        '''
        names = [ "a", 'b', # a comment
            """c""", ]
        mixed = ["a", 1]
        day = 2026-11-22
        integers = [1_000, -17, +5, 0xDEAD_beef, 0o755, 0b1101, -9223372036854775808]
        floats = [3.14, -0.5e-3, 1_000.25, 5E+22, inf, -inf, +inf]
        nan = nan
        yes = true
        no = false
        """#

    @Test("every kind of string, and arrays of them, read as toml++ reads them")
    func sameAsTOMLKit() throws {
        let table = try TOMLTable(string: Self.document)
        let map = TOMLSourceMap(Self.document)
        func source(_ key: String) throws -> ArraySlice<UInt8> {
            let range = try #require(map.entry(for: [key])?.valueBytes)
            return map.bytes[range]
        }
        for key in ["basic", "literal", "empty", "multi", "joined", "ending", "literal_multi"] {
            let expected = try #require(table[key]?.string)
            #expect(TOMLStrings.string(try source(key)) == expected, "\(key)")
        }
        #expect(TOMLStrings.strings(try source("names")) == ["a", "b", "c"])
        // Numbers and booleans, element by element as toml++ reads them.
        for (key, kind) in [("integers", "int"), ("floats", "double")] {
            let array = try #require(table[key]?.array)
            let literals = String(decoding: try source(key).dropFirst().dropLast(), as: UTF8.self).split(separator: ",")
            #expect(literals.count == array.count)
            for (literal, value) in zip(literals, array) {
                let bytes = Array(literal.trimmingCharacters(in: .whitespaces).utf8)[...]
                if kind == "int" {
                    #expect(TOMLStrings.integer(bytes) == value.int, "\(literal)")
                } else {
                    #expect(TOMLStrings.double(bytes) == value.double, "\(literal)")
                }
            }
        }
        #expect(TOMLStrings.double(try source("nan"))?.isNaN == true)
        let yes = try source("yes")
        let no = try source("no")
        #expect(TOMLStrings.boolean(yes) == true && TOMLStrings.boolean(no) == false)
        #expect(TOMLStrings.strings(try source("mixed")) == nil)
        #expect(TOMLStrings.string(try source("day")) == nil)
    }

    @Test("settings decode to the same values from the bytes as from TOMLKit")
    func decodedFromBytes() throws {
        let text = """
            [providers.met_norway]
            contact = \"\"\"
            me@example.org\"\"\"
            [location.ip]
            services = [
              "ip-api",  # plain HTTP, on a test server
              'ifconfig',
            ]
            [[cities]]
            name = 'Saint-Ouen'
            latitude = 48.91
            longitude = 2.33
            added = 2026-11-22
            """
        let settings = try Settings.decode(text, path: settingsPath, defaults: userDefaults)
        #expect(settings.providers.metNorway.contact == "me@example.org")
        #expect(settings.location.ip.services == [.ipAPI, .ifconfig])
        #expect(settings.cities.first?.name == "Saint-Ouen")
        #expect(settings.cities.first?.added == CalendarDate(year: 2026, month: 11, day: 22))
    }
}
