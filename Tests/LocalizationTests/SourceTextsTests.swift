import Foundation
import Testing

@testable import Localization

/// The texts the code looks up by a literal are in the template: a typo or a new text without its entry
/// would otherwise show in English in every language, and no catalogue test could see it.
@Suite("The code's texts against the template")
struct SourceTextsTests {
    static let sources = URL(fileURLWithPath: CatalogueLibrary.sourceTreeDirectory)
        .deletingLastPathComponent()  // Localization
        .deletingLastPathComponent()  // Sources

    /// `translation.text("…", context: "…")`, `translation.text("…")`, `translation.plural("…", "…", count: …,
    /// context: "…")` and Phrases' own `text("…", "context")`, with their context (nil when none is written).
    static func lookups(in code: String, phrases: Bool) -> [(context: String?, msgid: String)] {
        let literal = #""((?:[^"\\]|\\.)*)""#
        let call = phrases ? #"(?:translation\.|[^.\w])"# : #"translation\."#
        let patterns = [
            call + #"text\(\s*"# + literal + #"\s*,\s*context:\s*(?:nil|"# + literal + #")"#,
            call + #"text\(\s*"# + literal + #"\s*\)"#,
            (phrases ? #"[^.\w]"# : "translation\\.") + #"text\(\s*"# + literal + #"\s*,\s*"# + literal + #"\s*[,)]"#,
            #"translation\.plural\(\s*"# + literal + #"\s*,\s*"# + literal + #"\s*,\s*count:[^;]*?context:\s*"#
                + literal,
            #"translation\.plural\(\s*"# + literal + #"\s*,\s*"# + literal + #"\s*,\s*count:\s*\w+\s*,\s*\["#,
        ]
        var found: [(String?, String)] = []
        let range = NSRange(code.startIndex..., in: code)
        for (index, pattern) in patterns.enumerated() {
            let expression = try! NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: code, range: range) {
                func group(_ number: Int) -> String? {
                    Range(match.range(at: number), in: code).map { String(code[$0]) }
                }
                guard let msgid = group(1) else { continue }
                let context: String? =
                    switch index {
                    case 0, 2: group(2)
                    case 3: group(3)
                    default: nil
                    }
                found.append((context, msgid.replacingOccurrences(of: "\\\"", with: "\"")))
            }
        }
        return found
    }

    @Test("the patterns find the lookups as the code writes them")
    func patterns() {
        let code = #"""
            translation.text("no data", context: "bar")
            phrases.translation.text("Now: {conditions}", context: nil, ["conditions": x])
            translation.text("Looking for the position…")
            translation.plural("{count} day ago", "{count} days ago", count: n, context: "age", ["count": c])
            element.text("title")
            """#
        let found = Self.lookups(in: code, phrases: false).map { "\($0.context ?? "-") \($0.msgid)" }.sorted()
        #expect(found == ["- Looking for the position…", "- Now: {conditions}", "age {count} day ago", "bar no data"])
        let phrases = Self.lookups(in: #"return text("until {time}", "warning", ["time": time])"#, phrases: true)
        #expect(phrases.map(\.msgid) == ["until {time}"] && phrases.map(\.context) == ["warning"])
    }

    @Test("every literal the code looks up is a msgid of the template, in that context")
    func literalsAreInTheTemplate() throws {
        let template = Set(CatalogueTests.template.map(\.key))
        var checked = 0
        let files = FileManager.default.enumerator(atPath: Self.sources.path)?.compactMap { $0 as? String } ?? []
        var unknown: [String] = []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Localization/") {
            let code = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (context, msgid) in Self.lookups(in: code, phrases: file.hasSuffix("Phrases.swift")) {
                checked += 1
                if !template.contains(POEntry.key(context: context, msgid: msgid)) {
                    unknown.append("\(file): [\(context ?? "")] \(msgid)")
                }
            }
        }
        #expect(unknown == [], "looked up, but not in forecastd.pot")
        #expect(checked > 60, "the patterns no longer find the lookups (\(checked))")
    }
}
