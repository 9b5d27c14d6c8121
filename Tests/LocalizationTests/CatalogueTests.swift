import Foundation
import Testing

@testable import Localization

/// Every catalogue in Sources/Localization/po against the template: whatever languages exist when the tests run.
@Suite("Every catalogue against the template")
struct CatalogueTests {
    static let directory = CatalogueLibrary.sourceTreeDirectory

    static let template: [POEntry] = {
        let text = (try? String(contentsOfFile: directory + "/forecastd.pot", encoding: .utf8)) ?? ""
        return ((try? POFile.parse(text)) ?? []).filter { !($0.context == nil && $0.msgid.isEmpty) }
    }()

    /// The languages with a `.po` file, by code.
    static let languages: [String] = CatalogueLibrary.languages(in: directory).subtracting(["en"]).sorted()

    static func entries(_ language: String) throws -> [POEntry] {
        try POFile.parse(try String(contentsOfFile: "\(directory)/\(language).po", encoding: .utf8))
    }

    @Test("the template reads, and every msgid has a translator's comment")
    func templateReads() {
        #expect(Self.template.count > 200)
        for entry in Self.template {
            #expect(!entry.extractedComment.isEmpty, "\(entry.key) has no #. comment")
        }
        #expect(!Self.languages.isEmpty, "no catalogue besides the template")
    }

    @Test("a catalogue has every msgid of the template and nothing else", arguments: languages)
    func complete(_ language: String) throws {
        let keys = Set(try Self.entries(language).filter { !($0.context == nil && $0.msgid.isEmpty) }.map(\.key))
        let wanted = Set(Self.template.map(\.key))
        #expect(wanted.subtracting(keys).sorted() == [], "\(language).po lacks these")
        #expect(keys.subtracting(wanted).sorted() == [], "\(language).po has these the template does not")
    }

    @Test("no translation is empty or fuzzy, plural forms match the header, placeholders match the English",
          arguments: languages)
    func translations(_ language: String) throws {
        let entries = try Self.entries(language)
        let header = try #require(entries.first { $0.context == nil && $0.msgid.isEmpty }, "\(language).po has no header")
        let parsed = try Catalogue.pluralRule(header: header.msgstr.first ?? "", line: header.line)
        let rule = try #require(parsed, "\(language).po has no Plural-Forms")
        #expect(header.msgstr.first?.contains("Language: \(language)\n") == true, "the header's Language is not \(language)")
        for entry in entries where !(entry.context == nil && entry.msgid.isEmpty) {
            let name = "\(language).po:\(entry.line) \(entry.key.replacingOccurrences(of: "\u{4}", with: " | "))"
            #expect(!entry.isFuzzy, "\(name) is fuzzy")
            let empty = entry.msgstr.contains { $0.isEmpty }
            #expect(!empty, "\(name) is empty")
            let english = Translation.placeholders(entry.msgid)
            if entry.msgidPlural == nil {
                #expect(Translation.placeholders(entry.msgstr[0]) == english, "\(name): placeholders differ from the English")
            } else {
                #expect(entry.msgstr.count == rule.count, "\(name) has \(entry.msgstr.count) forms; Plural-Forms says \(rule.count)")
                for form in entry.msgstr {
                    // A form may leave the number out when its word says it ("una hora"); nothing else.
                    let placeholders = Translation.placeholders(form)
                    #expect(placeholders.isSubset(of: english), "\(name): \(form) has placeholders the English has not")
                    #expect(
                        english.subtracting(placeholders).isSubset(of: ["count", "minutes"]),
                        "\(name): \(form) leaves out placeholders")
                }
            }
        }
    }

    @Test("a catalogue loads through the library as the daemon loads it", arguments: languages)
    func loads(_ language: String) throws {
        let catalogue = try CatalogueLibrary.load(language, from: Self.directory).get()
        #expect(catalogue.count == Self.template.count)
    }
}
