import Foundation
import Testing

@testable import Localization

/// A damaged or hostile catalogue is refused with a sentence, never the end of the process: the `Plural-Forms`
/// expression is bounded in length and nesting (the parser and the evaluator recurse), and a catalogue in size,
/// entries, string length and plural forms. Each case here ended the test process or was loaded whole before.
@Suite("Catalogue limits", .timeLimit(.minutes(3)))
struct CatalogueBoundsTests {
    /// A catalogue with `pluralForms` as its header's `Plural-Forms` and one plural entry.
    static func catalogue(pluralForms: String) -> String {
        """
        msgid ""
        msgstr ""
        "Language: xx\\n"
        "Plural-Forms: \(pluralForms)\\n"

        msgid "{count} day"
        msgid_plural "{count} days"
        msgstr[0] "{count} día"
        msgstr[1] "{count} días"

        """
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "forecastd-po-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Plural rules past the limits, as a hostile or broken catalogue may carry them.
    enum HostileRule: String, CaseIterable, CustomTestStringConvertible {
        case parentheses2000 = "(((…n != 1…))) 2,000 deep"
        case not10000 = "10,000 !"
        case minus10000 = "10,000 unary -"
        case conditional2000 = "n ? n ? … 2,000 deep"
        case chain20000 = "n+n+… 20,000 operators"

        var testDescription: String { rawValue }

        var header: String {
            let plural =
                switch self {
                case .parentheses2000:
                    String(repeating: "(", count: 2_000) + "n != 1" + String(repeating: ")", count: 2_000)
                case .not10000: String(repeating: "!", count: 10_000) + "n"
                case .minus10000: String(repeating: "-", count: 10_000) + "n"
                case .conditional2000: String(repeating: "n ? ", count: 2_000) + "1" + String(repeating: " : 0", count: 2_000)
                case .chain20000: "n" + String(repeating: "+n", count: 20_000)
                }
            return "nplurals=2; plural=" + plural + ";"
        }
    }

    @Test("a Plural-Forms nested 2,000 deep, 10,000 `!` or a chain of 20,000 operators is refused, not a crash",
        arguments: HostileRule.allCases)
    func deepPluralForms(_ rule: HostileRule) {
        // The rule alone: refused by its own limits.
        #expect(throws: PluralRuleError.self) { _ = try PluralRule(header: rule.header).form(for: 5) }
        // In a catalogue: a damaged catalogue (by the rule's limits, or first by the string's 4 KiB).
        #expect(throws: POError.self) {
            let catalogue = try Catalogue(language: "xx", poText: Self.catalogue(pluralForms: rule.header))
            // Were it read, using it would walk the tree as deep as it goes.
            _ = catalogue.message("{count} day", context: nil, count: 5)
        }
    }

    @Test("a \\x escape with many digits is a damaged string, not an overflow that ends the process")
    func longHexEscape() throws {
        let text = "msgid \"a\"\nmsgstr \"\\x4" + String(repeating: "d", count: 40) + "\"\n"
        let error = #expect(throws: POError.self) { try POFile.parse(text) }
        #expect(error?.line == 2)
        #expect(error?.message.hasSuffix("not a character") == true, "\(String(describing: error))")
        #expect(try POFile.parse("msgid \"a\"\nmsgstr \"\\x10FFFF\\x41\"\n")[0].msgstr == ["\u{10FFFF}A"])
    }

    @Test("an escape whose digit carries a combining mark is no escape, not a crash")
    func combiningDigit() throws {
        // `\0` followed by U+0323: one Character, "0̣", which sorts among "0"…"7" but is no digit.
        let error = #expect(throws: POError.self) { try POFile.parse("msgid \"a\"\nmsgstr \"\\0\u{323}\"\n") }
        #expect(error?.message.hasPrefix("unknown escape") == true, "\(String(describing: error))")
        #expect(try POFile.parse("msgid \"a\"\nmsgstr \"\\101\\060\"\n")[0].msgstr == ["A0"])
    }

    @Test("a rule dividing by -1 gives a form for every count, Int.min too, instead of ending the process")
    func divisionOverflow() throws {
        for header in ["nplurals=2; plural=!(n / - 1 <= 4) || n;", "nplurals=2; plural=n % -1;"] {
            let rule = try PluralRule(header: header)
            for n in [Int.min, -1, 0, 1, Int.max] { _ = rule.form(for: n) }
        }
        #expect(try PluralRule(header: "nplurals=2; plural=n / -1 > 0;").form(for: Int.min) == 0)
    }

    @Test("the limits leave room: gettext's longest rules, nested 32 deep, are read")
    func withinLimits() throws {
        let arabic = "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);"
        #expect(try PluralRule(header: arabic).form(for: 11) == 4)
        let nested = "nplurals=2; plural=" + String(repeating: "(", count: 31) + "n != 1" + String(repeating: ")", count: 31)
            + ";"
        #expect(try PluralRule(header: nested).form(for: 2) == 1)
        let tooDeep = "nplurals=2; plural=" + String(repeating: "(", count: 33) + "n != 1"
            + String(repeating: ")", count: 33) + ";"
        let error = #expect(throws: PluralRuleError.self) { try PluralRule(header: tooDeep) }
        #expect(error?.message.contains("nested more than 32 levels deep") == true, "\(String(describing: error))")
        let long = "nplurals=2; plural=n" + String(repeating: " ", count: 600) + "!= 1;"
        let longError = #expect(throws: PluralRuleError.self) { try PluralRule(header: long) }
        #expect(longError?.message.contains("longer than the 512") == true, "\(String(describing: longError))")
    }

    @Test("a string longer than 4 KiB, a seventh plural form or 5,001 entries make a catalogue damaged")
    func oversizedParts() throws {
        let long = "msgid \"a\"\nmsgstr \"" + String(repeating: "x", count: 4097) + "\"\n"
        let longError = #expect(throws: POError.self) { try POFile.parse(long) }
        #expect(longError?.line == 2)
        #expect(longError?.message == "a string is longer than 4 KiB", "\(String(describing: longError))")

        // Joined from continuation lines, each short.
        let joined = "msgid \"a\"\nmsgstr \"\"\n" + String(repeating: "\"" + String(repeating: "y", count: 100) + "\"\n", count: 41)
        #expect(throws: POError.self) { try POFile.parse(joined) }

        let forms = "msgid \"a\"\nmsgid_plural \"as\"\n" + (0...6).map { "msgstr[\($0)] \"b\"\n" }.joined()
        let formsError = #expect(throws: POError.self) { try POFile.parse(forms) }
        #expect(formsError?.message == "more than 6 plural forms", "\(String(describing: formsError))")

        let many = (0...5_000).map { "msgid \"m\($0)\"\nmsgstr \"n\"\n" }.joined(separator: "\n")
        let manyError = #expect(throws: POError.self) { try POFile.parse(many) }
        #expect(manyError?.message == "more than 5000 entries", "\(String(describing: manyError))")
        let enough = (0..<5_000).map { "msgid \"m\($0)\"\nmsgstr \"n\"\n" }.joined(separator: "\n")
        #expect(try POFile.parse(enough).count == 5_000)
    }

    @Test("a catalogue with a 50 MB msgstr is refused before it is read, at once, with one sentence naming it")
    func hugeCatalogue() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/es.po"
        var text = Data(Self.catalogue(pluralForms: "nplurals=2; plural=(n != 1);").utf8)
        text.append(Data("msgid \"huge\"\nmsgstr \"".utf8))
        text.append(Data(repeating: UInt8(ascii: "x"), count: 50_000_000))
        text.append(Data("\"\n".utf8))
        try text.write(to: URL(fileURLWithPath: path))

        let started = ContinuousClock.now
        guard case .failure(let problem) = CatalogueLibrary.load("es", from: directory) else {
            Issue.record("a 50 MB catalogue was loaded")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(problem.description == "The catalogue \(path) is larger than 1 MiB; using English.")
    }

    @Test("a FIFO in a catalogue's place is refused at once, not waited on")
    func fifoCatalogue() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkfifo(directory + "/es.po", 0o600) == 0)
        guard case .failure(let problem) = CatalogueLibrary.load("es", from: directory) else {
            Issue.record("a FIFO was read as a catalogue")
            return
        }
        #expect(problem.description.hasSuffix("es.po is a FIFO; using English."), "\(problem)")
    }
}
