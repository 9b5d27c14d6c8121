import Foundation

/// Values: skipped over, except inline tables, whose keys are recorded like any other.
extension TOMLScanner {
    /// Skips over one value; records the pairs of inline tables under `path` (`nil` inside arrays).
    mutating func scanValue(path: [String]?) {
        guard let byte = peek() else { return }
        switch byte {
        case ASCII.quote, ASCII.apostrophe:
            if peek(1) == byte && peek(2) == byte {
                skipMultiLineString(quote: byte)
            } else {
                _ = scanSingleLineString(quote: byte, escapes: byte == ASCII.quote)
            }
        case ASCII.openBracket:
            skipArray()
        case ASCII.openBrace:
            scanInlineTable(path: path)
        default:
            skipBareValue()
        }
    }
    mutating func skipMultiLineString(quote: UInt8) {
        index += 3
        while let byte = peek() {
            if quote == ASCII.quote && byte == ASCII.backslash {
                index += 2
                continue
            }
            if byte == quote && peek(1) == quote && peek(2) == quote {
                index += 3
                // Up to two more quotes belong to the content: `""""` ends with a quote in the string.
                var extra = 0
                while extra < 2 && peek() == quote {
                    index += 1
                    extra += 1
                }
                return
            }
            index += 1
        }
    }

    mutating func skipArray() {
        index += 1
        while true {
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            switch byte {
            case ASCII.closeBracket:
                index += 1
                return
            case ASCII.comma:
                index += 1
            default:
                // toml++ (TOMLKit 0.6) aborts the process on an assertion when an array's value starts
                // with `}` (`u = [}`, `u = [1, }`) instead of reporting it, so the document is refused
                // before toml++ reads it.
                if byte == ASCII.closeBrace, firstStrayBrace == nil { firstStrayBrace = index }
                let before = index
                scanValue(path: nil)
                if index == before { index += 1 }
            }
        }
    }
    mutating func scanInlineTable(path: [String]?) {
        index += 1
        while true {
            // TOML 1.0 keeps inline tables on one line; newlines are tolerated so the map survives 1.1 files.
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            switch byte {
            case ASCII.closeBrace:
                index += 1
                return
            case ASCII.comma:
                index += 1
            default:
                let before = index
                if let path {
                    scanKeyValue(prefix: path, isInline: true)
                } else {
                    // Inside an array: positions of pairs in array elements are not mapped.
                    if scanKey() != nil {
                        skipSpaces()
                        if peek() == ASCII.equals {
                            index += 1
                            skipSpaces()
                            scanValue(path: nil)
                        }
                    }
                }
                if index == before { index += 1 }
            }
        }
    }
    /// Numbers, booleans, dates and times: up to a delimiter. A local date-time may contain one space
    /// (`1979-05-27 07:32:00`), which is kept as part of the value.
    mutating func skipBareValue() {
        let start = index
        while let byte = peek() {
            switch byte {
            case ASCII.comma, ASCII.closeBracket, ASCII.closeBrace, ASCII.hash, ASCII.newline, ASCII.carriageReturn,
                ASCII.tab:
                return
            case ASCII.space:
                let isDate =
                    index - start == 10 && bytes[start + 4] == UInt8(ascii: "-")
                    && bytes[start + 7] == UInt8(ascii: "-")
                if isDate, let h1 = peek(1), let h2 = peek(2), peek(3) == ASCII.colon, ASCII.isDigit(h1),
                    ASCII.isDigit(h2)
                {
                    index += 1
                    continue
                }
                return
            default:
                index += 1
            }
        }
    }
}
