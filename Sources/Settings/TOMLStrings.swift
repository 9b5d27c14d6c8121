import Foundation

/// Reads the values of a TOML document from its bytes, as the source map finds them.
///
/// TOMLKit 0.6 copies every value it hands out (a string with `strdup`, a number or a boolean with
/// `malloc`) and never frees the copy, so a daemon that reads its settings file again and again would
/// grow by every value in it each time. toml++ has checked the document already; these functions only
/// read what it accepted, and say nil for anything else (the decoder then asks TOMLKit).
enum TOMLStrings {
    private static let quote = UInt8(ascii: "\"")
    private static let apostrophe = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")
    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The string a TOML string literal says: basic or literal, on one line or several.
    static func string(_ literal: ArraySlice<UInt8>) -> String? {
        let bytes = Array(literal)
        guard let first = bytes.first, first == quote || first == apostrophe else { return nil }
        let delimiter = [UInt8](repeating: first, count: 3)
        if bytes.count >= 6, bytes.starts(with: delimiter), bytes.suffix(3).elementsEqual(delimiter) {
            var content = bytes[3..<(bytes.count - 3)]
            // A newline right after the opening delimiter is not part of the string.
            if content.first == carriageReturn, content.dropFirst().first == newline { content = content.dropFirst(2) }
            if content.first == newline { content = content.dropFirst() }
            let text = String(decoding: content, as: UTF8.self)
            return first == quote ? TOMLScanner.unescape(joiningEscapedLines(text)) : text
        }
        guard bytes.count >= 2, bytes.last == first else { return nil }
        let text = String(decoding: bytes[1..<(bytes.count - 1)], as: UTF8.self)
        return first == quote ? TOMLScanner.unescape(text) : text
    }

    /// A TOML integer: decimal with `_` between digits, or `0x`, `0o`, `0b`.
    static func integer(_ literal: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: literal, as: UTF8.self).replacingOccurrences(of: "_", with: "")
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            return Int(text.dropFirst(2), radix: radix)
        }
        return Int(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    /// A TOML float: with a fraction or an exponent, `_` between digits, or `inf` and `nan` with a sign.
    static func double(_ literal: ArraySlice<UInt8>) -> Double? {
        let text = String(decoding: literal, as: UTF8.self).replacingOccurrences(of: "_", with: "")
        switch text {
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        case "nan", "+nan", "-nan": return .nan
        default: return Double(text)
        }
    }

    /// `true` or `false`.
    static func boolean(_ literal: ArraySlice<UInt8>) -> Bool? {
        switch String(decoding: literal, as: UTF8.self) {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// The strings of a TOML array of string literals (`["a", 'b',]`, over several lines, with
    /// comments); nil when anything else is in it.
    static func strings(_ array: ArraySlice<UInt8>) -> [String]? {
        var scanner = TOMLScanner(bytes: Array(array))
        guard scanner.peek() == UInt8(ascii: "[") else { return nil }
        scanner.index += 1
        var strings: [String] = []
        while true {
            scanner.skipWhitespaceNewlinesAndComments()
            guard let byte = scanner.peek() else { return nil }
            switch byte {
            case UInt8(ascii: "]"):
                return strings
            case UInt8(ascii: ","):
                scanner.index += 1
            case quote, apostrophe:
                let start = scanner.index
                scanner.scanValue(path: nil)
                guard let string = string(scanner.bytes[start..<scanner.index]) else { return nil }
                strings.append(string)
            default:
                return nil
            }
        }
    }

    /// A multi-line basic string's text with each line-ending backslash removed, together with the
    /// newline and the white space that follow it.
    private static func joiningEscapedLines(_ text: String) -> String {
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            guard scalar == "\\" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            // An escape: a line ending one if only spaces come before the newline.
            let rest = scalars.prefix { $0 == " " || $0 == "\t" }
            let after = scalars.dropFirst(rest.count)
            if after.first == "\n" || (after.first == "\r" && after.dropFirst().first == "\n") {
                scalars = after.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                continue
            }
            result.unicodeScalars.append(scalar)
            if let escaped = scalars.first {
                result.unicodeScalars.append(escaped)
                scalars = scalars.dropFirst()
            }
        }
        return result
    }
}
