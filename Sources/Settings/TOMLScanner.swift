import Foundation

// The lexer behind ``TOMLSourceMap``: it finds every statement of a TOML document and where it is
// written, without interpreting values.

enum ASCII {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let hash = UInt8(ascii: "#")
    static let equals = UInt8(ascii: "=")
    static let dot = UInt8(ascii: ".")
    static let comma = UInt8(ascii: ",")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let colon = UInt8(ascii: ":")
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

struct TOMLScanner {
    let bytes: [UInt8]
    let lineStarts: [Int]
    var index = 0
    var entries: [TOMLSourceMap.Entry] = []
    /// The offset of the first key written with a character TOML does not allow in a bare key (see
    /// ``scanKeyComponent()``).
    var firstMalformedKey: Int?
    /// The offset of the first `}` where an array's value or its `]` belongs (see ``skipArray()``).
    var firstStrayBrace: Int?
    var section: [String] = []
    /// Bytes walked to find columns.
    var cost = 0
    /// The last position found: positions are asked for in increasing order, so each column is
    /// counted on from the one before rather than from the start of its line (a file of one long
    /// line would otherwise cost the square of its length).
    var cursor = (offset: 0, line: 0, column: 1)

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var offset = 0
        while let newline = Self.firstIndex(of: ASCII.newline, in: bytes, from: offset) {
            starts.append(newline + 1)
            offset = newline + 1
        }
        self.lineStarts = starts
        if bytes.starts(with: ASCII.byteOrderMark) {
            index = 3
            cursor.offset = 3
        }
    }

    var isAtEnd: Bool { index >= bytes.count }

    func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    mutating func position(_ offset: Int) -> TOMLSourceMap.Position {
        let line = TOMLSourceMap.lineIndex(ofByte: offset, lineStarts: lineStarts)
        guard line == cursor.line, offset >= cursor.offset else {
            let position = TOMLSourceMap.position(ofByte: offset, in: bytes, lineStarts: lineStarts)
            cost += position.column
            cursor = (offset, line, position.column)
            return position
        }
        let column = cursor.column + TOMLSourceMap.columnsBetween(cursor.offset, offset, in: bytes, cost: &cost)
        cursor = (offset, line, column)
        return TOMLSourceMap.Position(line: line + 1, column: column)
    }

    /// The 1-based line of byte `offset`.
    func line(_ offset: Int) -> Int {
        TOMLSourceMap.lineIndex(ofByte: offset, lineStarts: lineStarts) + 1
    }

    // MARK: Statements

    mutating func scanDocument() {
        while true {
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            let statementStart = index
            if byte == ASCII.openBracket {
                scanHeader()
            } else {
                scanKeyValue(prefix: section, isInline: false)
            }
            skipToNextLine()
            // Whatever happened, move on: a malformed line must not stop the scan or loop forever.
            if index == statementStart { index += 1 }
        }
    }

    mutating func scanHeader() {
        let start = index
        let isArray = peek(1) == ASCII.openBracket
        index += isArray ? 2 : 1
        skipSpaces()
        guard let key = scanKey() else { return }
        skipSpaces()
        guard peek() == ASCII.closeBracket else { return }
        index += 1
        if isArray {
            guard peek() == ASCII.closeBracket else { return }
            index += 1
        }
        let line = self.line(start)
        entries.append(
            .init(
                kind: isArray ? .arrayOfTables : .table, keyPath: key.path, key: position(start), value: nil,
                keyBytes: start..<index, valueBytes: nil, lines: line...line, section: key.path, isInline: false
            )
        )
        section = key.path
    }

    /// Scans `key = value` at the current index, recording it (and any inline table's pairs).
    mutating func scanKeyValue(prefix: [String], isInline: Bool) {
        let keyStart = index
        guard let key = scanKey() else { return }
        skipSpaces()
        guard peek() == ASCII.equals else { return }
        index += 1
        skipSpaces()
        let valueStart = index
        let path = prefix + key.path
        // Record the pair before its value so that pairs of an inline table follow their parent.
        let entryIndex = entries.count
        entries.append(
            .init(
                kind: .keyValue, keyPath: path, key: position(keyStart), value: position(valueStart),
                keyBytes: keyStart..<key.end, valueBytes: valueStart..<valueStart, lines: 1...1, section: section,
                isInline: isInline
            )
        )
        scanValue(path: path)
        let valueEnd = index
        entries[entryIndex].valueBytes = valueStart..<valueEnd
        entries[entryIndex].lines = line(keyStart)...line(max(valueStart, valueEnd - 1))
    }

    // MARK: Keys

    /// A dotted key: its unescaped components and the offset just past it.
    mutating func scanKey() -> (path: [String], end: Int)? {
        var path: [String] = []
        while true {
            guard let component = scanKeyComponent() else { return nil }
            path.append(component)
            let end = index
            skipSpaces()
            if peek() == ASCII.dot {
                index += 1
                skipSpaces()
                continue
            }
            index = end
            return (path, end)
        }
    }

    mutating func scanKeyComponent() -> String? {
        guard let byte = peek() else { return nil }
        switch byte {
        case ASCII.quote:
            return scanSingleLineString(quote: ASCII.quote, escapes: true)
        case ASCII.apostrophe:
            return scanSingleLineString(quote: ASCII.apostrophe, escapes: false)
        default:
            let start = index
            // This scan is lenient so that a line with a typo is still placed; but toml++ (TOMLKit 0.6)
            // aborts the process on an assertion when a table header's key starts with a character
            // that is neither a quote nor allowed in a bare key (`[;providers]`), so such a key is
            // recorded and the document refused before toml++ reads it.
            if !Self.isStrictBareKeyByte(byte), firstMalformedKey == nil { firstMalformedKey = start }
            while let byte = peek(), isBareKeyByte(byte) { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    /// The characters TOML allows in a bare key: ASCII letters and digits, `_` and `-`.
    static func isStrictBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.newline, ASCII.carriageReturn, ASCII.equals, ASCII.dot, ASCII.hash,
            ASCII.openBracket, ASCII.closeBracket, ASCII.openBrace, ASCII.closeBrace, ASCII.comma, ASCII.quote,
            ASCII.apostrophe:
            return false
        default:
            return true
        }
    }

    /// A `"…"` or `'…'` string on one line, decoded; the index ends after the closing quote.
    mutating func scanSingleLineString(quote: UInt8, escapes: Bool) -> String? {
        index += 1
        var content: [UInt8] = []
        while let byte = peek() {
            if byte == ASCII.newline { return nil }
            if byte == quote {
                index += 1
                let text = String(decoding: content, as: UTF8.self)
                return escapes ? Self.unescape(text) : text
            }
            content.append(byte)
            if escapes && byte == ASCII.backslash, let next = peek(1), next != ASCII.newline {
                content.append(next)
                index += 1
            }
            index += 1
        }
        return nil
    }

    /// Resolves the escapes of a basic string; unknown escapes are kept as written (toml++ rejects them).
    static func unescape(_ text: String) -> String {
        var result = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\", let escaped = scalars.next() else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch escaped {
            case "b": result += "\u{08}"
            case "t": result += "\t"
            case "n": result += "\n"
            case "f": result += "\u{0C}"
            case "r": result += "\r"
            case "e": result += "\u{1B}"
            case "\"": result += "\""
            case "\\": result += "\\"
            case "u", "U":
                let length = escaped == "u" ? 4 : 8
                var hex = ""
                for _ in 0..<length {
                    guard let digit = scalars.next() else { break }
                    hex.unicodeScalars.append(digit)
                }
                if let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code) {
                    result.unicodeScalars.append(decoded)
                } else {
                    result += "\\\(escaped)\(hex)"
                }
            default:
                result += "\\\(escaped)"
            }
        }
        return result
    }

    // MARK: Whitespace

    mutating func skipSpaces() {
        while let byte = peek(), byte == ASCII.space || byte == ASCII.tab { index += 1 }
    }

    mutating func skipComment() {
        guard peek() == ASCII.hash else { return }
        index = Self.firstIndex(of: ASCII.newline, in: bytes, from: index) ?? bytes.count
    }

    /// The first `byte` at or after `start`, found with `memchr`: files padded with long comments
    /// are scanned at memory speed, even in debug builds.
    static func firstIndex(of byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress,
                let found = memchr(base + start, Int32(byte), buffer.count - start)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
    }

    mutating func skipWhitespaceNewlinesAndComments() {
        while let byte = peek() {
            switch byte {
            case ASCII.space, ASCII.tab, ASCII.newline, ASCII.carriageReturn: index += 1
            case ASCII.hash: skipComment()
            default: return
            }
        }
    }

    /// Moves past the end of the current line (a trailing comment or garbage included).
    mutating func skipToNextLine() {
        while let byte = peek() {
            index += 1
            if byte == ASCII.newline { return }
        }
    }
}
