import Foundation
import Testing

@testable import Localization

@Suite("Reading .po files")
struct POFileTests {
    @Test("contexts, plurals, strings over several lines, escapes and comments are read; obsolete entries are not")
    func entries() throws {
        let text = #"""
            # A translator's comment.
            msgid ""
            msgstr ""
            "Language: xx\n"
            "Plural-Forms: nplurals=2; plural=(n != 1);\n"

            #. Where it appears.
            #: Sources/Somewhere.swift
            msgctxt "bar"
            msgid "no data"
            msgstr "sin datos"

            msgid ""
            "two "
            "lines"
            msgstr "dos\tlíneas \"entre comillas\" \\ \101\x42"

            msgid "{count} day"
            msgid_plural "{count} days"
            msgstr[0] "{count} día"
            msgstr[1] "{count} días"

            #, fuzzy
            msgid "guess"
            msgstr "adivinanza"

            #~ msgid "old"
            #~ msgstr "viejo"
            """#
        let entries = try POFile.parse(text)
        #expect(entries.count == 5)
        #expect(entries[1].context == "bar")
        #expect(entries[1].msgstr == ["sin datos"])
        #expect(entries[1].extractedComment == "Where it appears.")
        #expect(entries[1].line == 9)
        #expect(entries[2].msgid == "two lines")
        #expect(entries[2].msgstr == ["dos\tlíneas \"entre comillas\" \\ AB"])
        #expect(entries[3].msgidPlural == "{count} days")
        #expect(entries[3].msgstr == ["{count} día", "{count} días"])
        #expect(entries[4].isFuzzy)
        #expect(!entries[3].isFuzzy)
    }

    @Test("a broken file names the line and what is wrong", arguments: [
        ("msgid \"a\"\nmsgstr \"b", 2, "double quotes"),
        ("msgid \"a\"\nmsgstr[1] \"b\"", 2, "out of order"),
        ("msgid \"a\"\n\"b\" x", 2, "double quote"),
        ("msgid \"a\"\nmsgtxt \"b\"", 2, "unknown keyword"),
        ("msgid \"a\\q\"\nmsgstr \"\"", 1, "unknown escape"),
        ("\"dangling\"", 1, "continues nothing"),
        ("msgid \"a\"\n\nmsgid \"b\"\nmsgstr \"\"", 1, "no msgstr"),
    ])
    func errors(_ text: String, _ line: Int, _ words: String) {
        let error = #expect(throws: POError.self) { try POFile.parse(text) }
        #expect(error?.line == line)
        #expect(error?.message.contains(words) == true, "\(String(describing: error))")
    }
}

@Suite("Plural rules")
struct PluralRuleTests {
    @Test("the rules of gettext's manual pick the right form")
    func rules() throws {
        let russian = try PluralRule(
            header: "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);")
        #expect([1, 2, 5, 11, 21, 22, 25, 111, 0].map { russian.form(for: $0) } == [0, 1, 2, 2, 0, 1, 2, 2, 2])
        let polish = try PluralRule(
            header: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2);")
        #expect([1, 2, 5, 12, 22, 25].map { polish.form(for: $0) } == [0, 1, 2, 2, 1, 2])
        let french = try PluralRule(header: " nplurals=2; plural=(n > 1);")
        #expect([0, 1, 2].map { french.form(for: $0) } == [0, 0, 1])
        let japanese = try PluralRule(header: "nplurals=1; plural=0;")
        #expect([0, 1, 7].map { japanese.form(for: $0) } == [0, 0, 0])
        let arabic = try PluralRule(
            header: "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;")
        #expect([0, 1, 2, 5, 11, 100].map { arabic.form(for: $0) } == [0, 1, 2, 3, 4, 5])
        #expect(PluralRule.english.form(for: 1) == 0 && PluralRule.english.form(for: 3) == 1)
    }

    @Test("an expression giving a form the language does not have gives none")
    func outOfRange() throws {
        #expect(try PluralRule(header: "nplurals=2; plural=n;").form(for: 5) == nil)
    }

    @Test("a header that cannot be read says why", arguments: [
        "nplurals=2;", "plural=(n != 1);", "nplurals=x; plural=0;", "nplurals=2; plural=(n != 1;",
        "nplurals=2; plural=n ? 1;", "nplurals=2; plural=n $ 1;",
    ])
    func errors(_ header: String) {
        #expect(throws: PluralRuleError.self) { try PluralRule(header: header) }
    }
}
