import Foundation
import Testing

@testable import Localization

@Suite("Translations")
struct TranslationTests {
    static let po = #"""
        msgid ""
        msgstr ""
        "Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

        msgctxt "number"
        msgid "."
        msgstr ","

        msgid "{what} in {minutes} min"
        msgid_plural "{what} in {minutes} min"
        msgstr[0] "через {minutes} минуту: {what}"
        msgstr[1] "через {minutes} минуты: {what}"
        msgstr[2] "через {minutes} минут: {what}"

        msgid "untranslated"
        msgstr ""

        #, fuzzy
        msgid "fuzzy"
        msgstr "нечётко"
        """#

    let catalogue: Catalogue
    init() throws { catalogue = try Catalogue(language: "ru", poText: Self.po) }

    @Test("placeholders follow the translation's order and the plural form its rule")
    func placeholdersAndPlurals() {
        let russian = Translation(catalogue)
        func text(_ n: Int) -> String {
            russian.plural(
                "{what} in {minutes} min", "{what} in {minutes} min", count: n, ["what": "дождь", "minutes": String(n)])
        }
        #expect(text(1) == "через 1 минуту: дождь")
        #expect(text(3) == "через 3 минуты: дождь")
        #expect(text(25) == "через 25 минут: дождь")
        #expect(russian.number("-12.5") == "-12,5")
        #expect(Translation.english.number("-12.5") == "-12.5")
    }

    @Test("a missing, empty or fuzzy translation shows that one text in English, and is recorded")
    func fallback() {
        let missing = MissingTexts()
        let russian = Translation(catalogue, recordingMissingTextsIn: missing)
        #expect(russian.text("untranslated") == "untranslated")
        #expect(russian.text("fuzzy") == "fuzzy")
        #expect(russian.text("until {time}", context: "warning", ["time": "08:00"]) == "until 08:00")
        #expect(russian.plural("{count} day", "{count} days", count: 2, ["count": "2"]) == "2 days")
        #expect(missing.all == ["[warning] until {time}", "fuzzy", "untranslated", "{count} day"].sorted())
        #expect(russian.decimalSeparator == ",")
    }

    @Test("a value is not read again for placeholders, and unknown braces stay")
    func filling() {
        #expect(Translation.fill("{a} and {b}", ["a": "{b}", "b": "x"]) == "{b} and x")
        #expect(Translation.fill("{a} {unknown} {", ["a": "1"]) == "1 {unknown} {")
        #expect(Translation.placeholders("{what} in {minutes} min ({intensity})") == ["what", "minutes", "intensity"])
    }
}

@Suite("The language from the settings and the locale")
struct LanguageTests {
    let available: Set<String> = ["en", "es", "pt", "pt_BR", "it"]

    @Test("locale names reduce to a language with a catalogue", arguments: [
        ("es_ES.UTF-8", "es"), ("pt_BR.UTF-8", "pt_BR"), ("pt_PT.UTF-8", "pt"), ("it_IT@euro", "it"),
        ("es", "es"), ("ES_es.utf8", "es"), ("pt-br", "pt_BR"),
    ])
    func locales(_ locale: String, _ expected: String) {
        #expect(LanguageChoice.language(ofLocale: locale, available: available) == expected)
    }

    @Test("gettext's order: LC_ALL, LC_MESSAGES, LANG, then LANGUAGE")
    func environmentOrder() {
        func pick(_ environment: [String: String]) -> String {
            LanguageChoice.fromEnvironment(environment, available: available).language
        }
        #expect(pick(["LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "es_ES.UTF-8", "LANG": "pt_BR.UTF-8"]) == "it")
        #expect(pick(["LC_ALL": "", "LC_MESSAGES": "es_ES.UTF-8", "LANG": "pt_BR.UTF-8"]) == "es")
        #expect(pick(["LANG": "pt_BR.UTF-8"]) == "pt_BR")
        #expect(pick(["LANG": "de_DE.UTF-8", "LANGUAGE": "fr:it:es"]) == "it")
        #expect(pick(["LANG": "C.UTF-8", "LANGUAGE": "es"]) == "en")
        #expect(pick(["LC_ALL": "POSIX"]) == "en")
        #expect(pick([:]) == "en")
    }

    @Test("a locale naming a language with no catalogue is English and one sentence for the log, never an error")
    func unknownLocale() {
        let (language, note) = LanguageChoice.fromEnvironment(["LANG": "xx_YY.UTF-8"], available: available)
        #expect(language == "en")
        #expect(note?.contains("LANG=xx_YY.UTF-8") == true)
        #expect(note?.contains("using English") == true)
        #expect(LanguageChoice.fromEnvironment(["LANG": "C"], available: available).note == nil)
    }
}

@Suite("Catalogue files")
struct CatalogueLibraryTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "forecastd-po-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a damaged, missing or non-UTF-8 catalogue is a sentence naming the file, and no catalogue")
    func problems() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("msgid \"a\"\nmsgstr \"b".utf8).write(to: URL(fileURLWithPath: directory + "/es.po"))
        try Data([0x6d, 0xff, 0xfe]).write(to: URL(fileURLWithPath: directory + "/it.po"))
        func problem(_ language: String) -> String? {
            guard case .failure(let problem) = CatalogueLibrary.load(language, from: directory) else { return nil }
            return problem.description
        }
        #expect(problem("es")?.contains("es.po is damaged (line 2: ") == true)
        #expect(problem("it")?.contains("it.po is not UTF-8") == true)
        #expect(problem("pt")?.contains("pt.po cannot be read") == true)
        #expect(CatalogueLibrary.languages(in: directory) == ["en", "es", "it"])
    }

    @Test("$FORECASTD_LOCALEDIR is the only place looked at when set")
    func directoryVariable() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(CatalogueLibrary.directory(environment: ["FORECASTD_LOCALEDIR": directory]) == directory)
        #expect(CatalogueLibrary.directory(environment: ["FORECASTD_LOCALEDIR": directory + "/none"]) == nil)
        #expect(CatalogueLibrary.directory(environment: [:]) != nil)
    }
}
