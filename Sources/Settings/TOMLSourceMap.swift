import Foundation

/// Where each key, table header and value of a TOML document is written: line, column and bytes.
///
/// TOMLKit (toml++) parses values but keeps no source positions, and a settings error is only useful
/// when it names the line to fix. This is a small, forgiving, line-aware lexer that finds every
/// statement without interpreting values: strings (all four kinds, multi-line included), arrays
/// and inline tables are skipped over correctly, so a `[` inside a string or a multi-line array never
/// looks like a table header. It never fails: on text TOMLKit rejects it maps what it can, and the
/// parser's own error is what the user sees.
///
/// It is also the base for editing the file in place: ``Entry/valueBytes`` is the exact byte range
/// of a value as written (before any trailing comment), so a value can be replaced while every other
/// byte of the file, comments and layout included, stays as it was.
///
/// Lines and columns are 1-based; columns count Unicode scalars, as toml++ does in its errors.
package struct TOMLSourceMap: Sendable {
    /// A 1-based line and column.
    package struct Position: Sendable, Hashable, Comparable, CustomStringConvertible {
        package var line: Int
        package var column: Int

        package init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        package static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.line, lhs.column) < (rhs.line, rhs.column)
        }

        package var description: String { "\(line):\(column)" }
    }

    /// One statement of the document: a `key = value` pair or a `[table]` / `[[array]]` header.
    package struct Entry: Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// `key = value`, possibly dotted, possibly inside an inline table.
            case keyValue
            /// A `[table]` header.
            case table
            /// An `[[array of tables]]` header; keys under it are mapped without an index.
            case arrayOfTables
        }

        package var kind: Kind
        /// The full, unescaped key path: the enclosing header's path, then the (dotted) key.
        package var keyPath: [String]
        /// The first character of the key, or the `[` of a header.
        package var key: Position
        /// The first character of the value; `nil` for headers.
        package var value: Position?
        /// The bytes of the key as written (a header's from `[` to its last `]`).
        package var keyBytes: Range<Int>
        /// The bytes of the value as written, without trailing whitespace or comment; `nil` for headers.
        package var valueBytes: Range<Int>?
        /// The lines the statement spans (more than one for multi-line strings and arrays).
        package var lines: ClosedRange<Int>
        /// The path of the `[header]` the statement is under (`[]` for the root table).
        package var section: [String]
        /// Whether the pair is written inside an inline table (`pin = { latitude = 1, … }`).
        package var isInline: Bool
    }

    /// The document's UTF-8 bytes, as scanned.
    package let bytes: [UInt8]
    /// Every statement, in document order.
    package let entries: [Entry]
    /// The byte offset at which each line starts; `lineStarts[0]` is line 1.
    package let lineStarts: [Int]
    /// The steps building the map took (bytes walked to find columns, statements recorded): with
    /// the steps of lookups, what tests bound to keep the work linear in the file's size.
    package let scanCost: Int
    /// Where the first key written with a character a bare key cannot have is (`[;providers]`,
    /// `name;x = 1`), if any: the document is not TOML.
    package let firstMalformedKey: Position?
    /// Where the first `}` written in an array where a value or `]` belongs is (`u = [}`), if any.
    package let firstStrayBrace: Position?
    /// The first statement of each key path, by index into ``entries``.
    private let firstByPath: [[String]: Int]
    /// The first statement inside each table (of a longer key path), by index into ``entries``.
    private let firstInside: [[String]: Int]
    /// The names written directly in each table, in document order, each once.
    private let namesInside: [[String]: [String]]

    package init(_ text: String) {
        var scanner = TOMLScanner(bytes: Array(text.utf8))
        scanner.scanDocument()
        self.bytes = scanner.bytes
        self.entries = scanner.entries
        self.lineStarts = scanner.lineStarts
        self.firstMalformedKey = scanner.firstMalformedKey.map { scanner.position($0) }
        self.firstStrayBrace = scanner.firstStrayBrace.map { scanner.position($0) }
        // Lookups by path are what placing each problem costs: indexed, a file of many problems is
        // placed in linear time (a search per problem made 10k unknown keys take minutes).
        var firstByPath: [[String]: Int] = [:]
        var firstInside: [[String]: Int] = [:]
        var namesInside: [[String]: [String]] = [:]
        var named: Set<[String]> = []
        var cost = scanner.cost
        for (index, entry) in scanner.entries.enumerated() {
            if firstByPath[entry.keyPath] == nil { firstByPath[entry.keyPath] = index }
            for length in 0..<entry.keyPath.count {
                let prefix = Array(entry.keyPath.prefix(length))
                if length > 0, firstInside[prefix] == nil { firstInside[prefix] = index }
                if named.insert(Array(entry.keyPath.prefix(length + 1))).inserted {
                    namesInside[prefix, default: []].append(entry.keyPath[length])
                }
            }
            cost += entry.keyPath.count
        }
        self.firstByPath = firstByPath
        self.firstInside = firstInside
        self.namesInside = namesInside
        self.scanCost = cost
    }

    /// The first statement whose key path is exactly `keyPath` (a pair or a header).
    package func entry(for keyPath: [String]) -> Entry? {
        firstByPath[keyPath].map { entries[$0] }
    }

    /// The names written directly in the table at `table` (keys, and tables written inside it), in
    /// document order. The keys of all `[[table]]`s of one path are listed together, and pairs inside
    /// an array's inline tables are not listed.
    package func names(in table: [String]) -> [String] {
        namesInside[table] ?? []
    }

    /// Where the key `keyPath` is written.
    ///
    /// A table that has no header of its own (it only exists through dotted keys such as
    /// `location.mode = …` or `[location.gpsd]`) is placed at the first statement inside it.
    package func keyPosition(of keyPath: [String]) -> Position? {
        if let entry = entry(for: keyPath) { return entry.key }
        return firstEntry(under: keyPath)?.key
    }

    /// Where the value of `keyPath` starts; for a table, where its header (or first key) is.
    package func valuePosition(of keyPath: [String]) -> Position? {
        if let entry = entry(for: keyPath) { return entry.value ?? entry.key }
        return firstEntry(under: keyPath)?.key
    }

    /// The bytes of line `line` (1-based), without its line break.
    package func byteRange(ofLine line: Int) -> Range<Int>? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] : bytes.count
        if end > start, bytes[end - 1] == ASCII.newline { end -= 1 }
        if end > start, bytes[end - 1] == ASCII.carriageReturn { end -= 1 }
        return start..<end
    }

    /// The last line that belongs to the section under `[header]` (`[]` for the root table).
    ///
    /// That is the last line of the last statement in the section, or the header's own line when
    /// the section is empty; `nil` when the document has no such header. New keys for a table go
    /// right after this line.
    package func lastLine(ofSection header: [String]) -> Int? {
        let inSection = entries.filter { $0.section == header }
        if let last = inSection.max(by: { $0.lines.upperBound < $1.lines.upperBound }) {
            return last.lines.upperBound
        }
        return header.isEmpty ? 0 : nil
    }

    /// The line and column of a byte offset.
    package func position(ofByte offset: Int) -> Position {
        Self.position(ofByte: offset, in: bytes, lineStarts: lineStarts)
    }

    private func firstEntry(under prefix: [String]) -> Entry? {
        guard !prefix.isEmpty else { return entries.first }
        return firstInside[prefix].map { entries[$0] }
    }

    /// The index into `lineStarts` of the line holding byte `offset`.
    static func lineIndex(ofByte offset: Int, lineStarts: [Int]) -> Int {
        // The last line starting at or before `offset`.
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    static func position(ofByte offset: Int, in bytes: [UInt8], lineStarts: [Int]) -> Position {
        let line = lineIndex(ofByte: offset, lineStarts: lineStarts)
        var start = lineStarts[line]
        if line == 0, bytes.starts(with: ASCII.byteOrderMark) { start = min(offset, 3) }
        var cost = 0
        let column = columnsBetween(start, offset, in: bytes, cost: &cost)
        return Position(line: line + 1, column: 1 + column)
    }

    /// The characters from `start` up to `end` on one line: every byte that is not a UTF-8
    /// continuation byte starts one (columns count scalars, as toml++ does).
    static func columnsBetween(_ start: Int, _ end: Int, in bytes: [UInt8], cost: inout Int) -> Int {
        var columns = 0
        var index = start
        while index < end && index < bytes.count {
            if bytes[index] & 0b1100_0000 != 0b1000_0000 { columns += 1 }
            index += 1
        }
        cost += max(0, index - start)
        return columns
    }
}
