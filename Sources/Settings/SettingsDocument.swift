import ForecastModel

/// The text of a settings file, edited in place: only the bytes of what changes are touched.
///
/// Setting a key that is written rewrites the bytes of its value and nothing else: its trailing
/// comment, the key's spelling, quotes of other values, comments, blank lines and key order all stay.
/// A key that is not written is added on a line of its own after the last statement of its table
/// (with that statement's indentation and the file's line endings), inside its inline table, next to
/// the dotted keys that define its table, or in a new `[table]` at the end of the file. Commented-out
/// examples (`# latitude = …`) are comments and stay comments.
///
/// The document does not validate: ``SettingsFileEditor`` decodes the result before writing it.
public struct SettingsDocument: Sendable, Hashable {
    /// The current text.
    public internal(set) var text: String

    public init(_ text: String) {
        self.text = text
    }

    /// Gives `key` the value `value`.
    public mutating func set(_ key: SettingsKey, to value: SettingsValue) {
        set(path: key.path, toml: value.toml)
    }

    /// Removes the key or table at `keyPath` wherever it is written: as a `[table]` with everything
    /// in it up to its last statement, as `key = value` lines, as dotted keys, or inside an inline
    /// table. Nothing happens when it is not written.
    public mutating func remove(_ keyPath: [String]) {
        let map = TOMLSourceMap(text)
        var bytes = map.bytes
        var lineRanges: [ClosedRange<Int>] = []
        var inlineRanges: [Range<Int>] = []
        for (index, entry) in map.entries.enumerated() where entry.keyPath.starts(with: keyPath) {
            switch entry.kind {
            case .table, .arrayOfTables:
                let sectionEnd =
                    map.entries[(index + 1)...].prefix { $0.kind == .keyValue }
                    .map(\.lines.upperBound).max() ?? entry.lines.upperBound
                lineRanges.append(entry.lines.lowerBound...max(entry.lines.upperBound, sectionEnd))
            case .keyValue where !entry.isInline:
                lineRanges.append(entry.lines)
            case .keyValue:
                // A pair inside an inline table that stays: cut the pair and one comma. (Pairs nested
                // deeper go with it; a pair whose whole line goes is covered by the line removal.)
                guard entry.keyPath == keyPath, let range = Self.inlinePairRange(entry, in: map.bytes) else {
                    continue
                }
                inlineRanges.append(range)
            }
        }
        var removals: [Range<Int>] = []
        for lines in Self.merged(lineRanges) {
            var start = map.lineStarts[lines.lowerBound - 1]
            let end = lines.upperBound < map.lineStarts.count ? map.lineStarts[lines.upperBound] : bytes.count
            // A table that ended the file takes along the blank line that set it apart, so that adding
            // a table and removing it again gives back the same bytes.
            if end == bytes.count, lines.lowerBound >= 2, let blank = map.byteRange(ofLine: lines.lowerBound - 1),
                blank.isEmpty
            {
                start = map.lineStarts[lines.lowerBound - 2]
            }
            removals.append(start..<end)
        }
        for range in inlineRanges where !removals.contains(where: { $0.overlaps(range) }) {
            removals.append(range)
        }
        for range in removals.sorted(by: { $0.lowerBound > $1.lowerBound }) {
            bytes.removeSubrange(range)
        }
        text = String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Setting

    mutating func set(path: [String], toml: String) {
        if path.first == "units", editUnits(path: path, toml: toml) { return }
        let map = TOMLSourceMap(text)
        var bytes = map.bytes
        let value = Array(toml.utf8)
        let parent = Array(path.dropLast())
        let name = TOMLText.key([path[path.count - 1]])

        // The key is written: replace its value's bytes only.
        if let entry = map.entries.first(where: { $0.kind == .keyValue && $0.keyPath == path }),
            let range = entry.valueBytes
        {
            bytes.replaceSubrange(range, with: value)
            text = String(decoding: bytes, as: UTF8.self)
            return
        }

        // Its table is an inline table: add the pair before the closing brace.
        if !parent.isEmpty,
            let inline = map.entries.first(where: { $0.kind == .keyValue && $0.keyPath == parent }),
            let range = inline.valueBytes, range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "{"),
            bytes[range.upperBound - 1] == UInt8(ascii: "}")
        {
            var insertAt = range.upperBound - 1
            while insertAt > range.lowerBound + 1, bytes[insertAt - 1] == UInt8(ascii: " ") { insertAt -= 1 }
            let isEmpty = insertAt == range.lowerBound + 1
            let pair = (isEmpty ? " " : ", ") + name + " = " + toml + (isEmpty ? " " : "")
            bytes.insert(contentsOf: Array(pair.utf8), at: insertAt)
            text = String(decoding: bytes, as: UTF8.self)
            return
        }

        // Its table has a header (or is the root table and has statements): add a line after the last one.
        let hasHeader = map.entries.contains { $0.kind == .table && $0.keyPath == parent }
        if hasHeader || (parent.isEmpty && map.entries.contains { $0.section.isEmpty && $0.kind == .keyValue }) {
            let line = map.lastLine(ofSection: parent) ?? 0
            insertLine(name + " = " + toml, afterLine: line, map: map, bytes: &bytes)
            return
        }

        // Its table exists through dotted keys (`location.mode = …`): add another dotted key beside them.
        if !parent.isEmpty,
            let sibling = map.entries.filter({
                $0.kind == .keyValue && !$0.isInline && $0.keyPath.count > parent.count
                    && $0.keyPath.starts(with: parent) && parent.starts(with: $0.section)
            }).max(by: { $0.lines.upperBound < $1.lines.upperBound })
        {
            let relative = TOMLText.key(Array(path.dropFirst(sibling.section.count)))
            insertLine(relative + " = " + toml, afterLine: sibling.lines.upperBound, map: map, bytes: &bytes)
            return
        }

        let lineEnding = Self.lineEnding(of: bytes)
        if parent.isEmpty {
            // A root key in a file whose root table is empty: before the first table, above the comments
            // that introduce it, or at the end of a file without tables.
            if let firstHeader = map.entries.first(where: { $0.kind != .keyValue }) {
                var line = firstHeader.key.line
                while line > 1, let range = map.byteRange(ofLine: line - 1), Self.isComment(bytes[range]) {
                    line -= 1
                }
                let offset = map.lineStarts[line - 1]
                bytes.insert(contentsOf: Array((name + " = " + toml + lineEnding + lineEnding).utf8), at: offset)
                text = String(decoding: bytes, as: UTF8.self)
                return
            }
            insertLine(name + " = " + toml, afterLine: map.lineStarts.count, map: map, bytes: &bytes)
            return
        }

        // No trace of the table: a new one at the end of the file.
        var addition = ""
        if !bytes.isEmpty && bytes.last != UInt8(ascii: "\n") { addition += lineEnding }
        if !bytes.isEmpty { addition += lineEnding }
        addition += "[" + TOMLText.key(parent) + "]" + lineEnding + name + " = " + toml + lineEnding
        bytes.append(contentsOf: Array(addition.utf8))
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// Inserts `line` after line `number` (0: at the start), indented like that line.
    mutating func insertLine(_ line: String, afterLine number: Int, map: TOMLSourceMap, bytes: inout [UInt8]) {
        let lineEnding = Self.lineEnding(of: bytes)
        var indentation: [UInt8] = []
        if number >= 1, let range = map.byteRange(ofLine: number) {
            indentation = Array(bytes[range].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        }
        var insertion: [UInt8] = []
        let offset: Int
        if number < map.lineStarts.count {
            offset = map.lineStarts[number]
        } else {
            offset = bytes.count
            if !bytes.isEmpty && bytes.last != UInt8(ascii: "\n") { insertion += Array(lineEnding.utf8) }
        }
        insertion += indentation + Array((line + lineEnding).utf8)
        bytes.insert(contentsOf: insertion, at: offset)
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// `"\r\n"` when the file's first line ends so, else `"\n"`.
    static func lineEnding(of bytes: [UInt8]) -> String {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return "\n" }
        return newline > 0 && bytes[newline - 1] == UInt8(ascii: "\r") ? "\r\n" : "\n"
    }

    static func isComment(_ line: ArraySlice<UInt8>) -> Bool {
        line.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } == UInt8(ascii: "#")
    }

    /// The bytes of an inline table's pair with one neighbouring comma and the spaces that go with it.
    static func inlinePairRange(_ entry: TOMLSourceMap.Entry, in bytes: [UInt8]) -> Range<Int>? {
        guard let value = entry.valueBytes else { return nil }
        var start = entry.keyBytes.lowerBound
        var end = value.upperBound
        var after = end
        while after < bytes.count, bytes[after] == UInt8(ascii: " ") { after += 1 }
        if after < bytes.count, bytes[after] == UInt8(ascii: ",") {
            end = after + 1
            while end < bytes.count, bytes[end] == UInt8(ascii: " ") { end += 1 }
            return start..<end
        }
        var before = start
        while before > 0, bytes[before - 1] == UInt8(ascii: " ") { before -= 1 }
        if before > 0, bytes[before - 1] == UInt8(ascii: ",") {
            start = before - 1
        }
        return start..<end
    }

    /// Overlapping or adjacent line ranges joined.
    static func merged(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

extension SettingsDocument {
    /// Sets `[location.pin]` to `coordinate`, named `name` (a blank or missing name removes the old
    /// one, so a name never sticks to a new place). Degrees are kept to 6 decimals (about 10 cm), so a
    /// pin taken from a map link does not write noise digits into the file.
    ///
    /// Shared by `forecastctl pin` and the socket's `pin` request, so both write the same bytes.
    public mutating func setPin(_ coordinate: Coordinate, name: String?) throws(SettingsEditError) {
        func rounded(_ degrees: Double) -> Double { (degrees * 1_000_000).rounded() / 1_000_000 }
        set(try SettingsKey("location.pin.latitude"), to: .number(rounded(coordinate.latitude)))
        set(try SettingsKey("location.pin.longitude"), to: .number(rounded(coordinate.longitude)))
        if let name, !name.trimmingCharacters(in: .whitespaces).isEmpty {
            set(try SettingsKey("location.pin.name"), to: .string(name))
        } else {
            remove(["location", "pin", "name"])
        }
    }
}
