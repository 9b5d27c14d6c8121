import FuzzSupport
import Localization

/// The `.po` reader and the `Plural-Forms` parser against arbitrary text: each input is read as a whole
/// catalogue and, on its own, as a `Plural-Forms` value. What reads is used as the daemon uses it: every
/// plural form chosen for a spread of numbers (the evaluator walks the rule's tree) and each text looked up.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalogue(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let numbers = [0, 1, 2, 5, 11, 21, 101, 1_000_001, -1, Int.max, Int.min]
    if let catalogue = try? Catalogue(language: "xx", poText: text) {
        if let entries = try? POFile.parse(text) {
            for entry in entries.prefix(50) {
                _ = catalogue.message(entry.msgid, context: entry.context)
                for n in numbers { _ = catalogue.message(entry.msgid, context: entry.context, count: n) }
            }
        }
        for n in numbers {
            if let form = catalogue.pluralRule.form(for: n), !(0..<catalogue.pluralRule.count).contains(form) {
                fatalError("form \(form) of \(n) is outside 0..<\(catalogue.pluralRule.count)")
            }
        }
    }
    if let rule = try? PluralRule(header: text) {
        for n in numbers { _ = rule.form(for: n) }
    }
    return 0
}

@_cdecl("FuzzCatalogue_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzCatalogue)
}
