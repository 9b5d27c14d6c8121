import Foundation

/// The form in which place names are compared: no accents, no case, no punctuation.
///
/// scripts/build-gazetteer.py folds every place name the same way when it writes the name index
/// (its docstring spells the steps out); a test checks that every place in the shipped file is
/// found by its own name, so the two cannot drift apart unnoticed.
enum NameFolding {
    /// Letters that compatibility decomposition leaves alone, spelled the way English-language maps
    /// write them.
    private static let spelledOut: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th",
        "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng", "ĸ": "k",
    ]

    /// Dropped rather than turned into a space, so that "St. John's" folds like "St Johns".
    private static let dropped: Set<Unicode.Scalar> = [
        "'", "\u{2018}", "\u{2019}", "\u{02BB}", "\u{02BC}", "\u{02BE}", "\u{02BF}", "`", "\u{00B4}", "\u{00B7}",
    ]

    /// Folds `text`: "São Paulo" → "sao paulo", "Saint-Ouen" → "saint ouen", "Straße" → "strasse".
    static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        func append(_ scalar: Unicode.Scalar) {
            if pendingSpace, !folded.isEmpty { folded.append(" ") }
            pendingSpace = false
            folded.append(scalar)
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            // One scalar at a time, as the script does: no context-dependent final sigma.
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                if dropped.contains(lower) { continue }
                if let spelling = spelledOut[lower] {
                    spelling.unicodeScalars.forEach(append)
                } else if isKept(lower) {
                    append(lower)
                } else {
                    pendingSpace = true
                }
            }
        }
        return String(folded)
    }

    /// Letters, digits and marks are kept; everything else separates words.
    private static func isKept(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark:
            true
        default:
            false
        }
    }
}

/// Byte-wise comparison of folded names, the order of the file's name index.
enum NameKey {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Whether `name` starts with `prefix`.
    static func hasPrefix(_ name: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        guard name.count >= prefix.count else { return false }
        return prefix.isEmpty || memcmp(name.baseAddress!, prefix.baseAddress!, prefix.count) == 0
    }
}
