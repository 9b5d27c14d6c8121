import ForecastModel

extension SettingsDocument {
    /// The edits of `units` that move between its two forms; false for those the plain edit makes.
    ///
    /// - `units` (`forecastctl units uk`) where the file has the `[units]` table: the table's `preset`
    ///   is set and every quantity set apart from it is removed, so the preset means what it says.
    /// - `units.QUANTITY` where the file has the one-line `units = "…"`: the line becomes a `[units]`
    ///   table with `preset` (keeping the line's spacing, quotes, trailing comment and the comments just
    ///   above it, unless those open the file), placed after the file's root keys, where TOML allows a
    ///   table; the quantity is then added to the table.
    mutating func editUnits(path: [String], toml: String) -> Bool {
        let map = TOMLSourceMap(text)
        let tableWritten = map.entries.contains {
            $0.keyPath.first == "units" && ($0.keyPath.count > 1 || $0.kind == .table)
        }
        if path == ["units"] {
            guard tableWritten else { return false }
            set(path: ["units", "preset"], toml: toml)
            for quantity in UnitQuantity.allCases { remove(["units", quantity.rawValue]) }
            return true
        }
        guard path.count == 2, !tableWritten,
            let line = map.entries.first(where: { $0.kind == .keyValue && $0.keyPath == ["units"] && !$0.isInline }),
            let value = line.valueBytes, map.bytes[value].first != UInt8(ascii: "{")
        else { return false }
        var bytes = map.bytes
        let lineEnding = Array(Self.lineEnding(of: bytes).utf8)

        // The line and the comments just above it, which go with it.
        var firstLine = line.lines.lowerBound
        while firstLine > 1, let above = map.byteRange(ofLine: firstLine - 1), Self.isComment(bytes[above]) {
            firstLine -= 1
        }
        // Comments from the first line on open the file; they stay where they are.
        if firstLine == 1 { firstLine = line.lines.lowerBound }
        let start = map.lineStarts[firstLine - 1]
        let keyLineStart = map.lineStarts[line.lines.lowerBound - 1]
        let upper = line.lines.upperBound
        var end = upper < map.lineStarts.count ? map.lineStarts[upper] : bytes.count
        var block = Array(bytes[start..<keyLineStart]) + Array("[units]".utf8) + lineEnding
        block += bytes[keyLineStart..<line.keyBytes.lowerBound] + Array("preset".utf8)
            + bytes[line.keyBytes.upperBound..<end]
        if block.last != UInt8(ascii: "\n") { block += lineEnding }
        // A blank line after the block goes too when one is left before it, so no two blanks remain.
        let blankBefore = firstLine == 1 || map.byteRange(ofLine: firstLine - 1)?.isEmpty == true
        if blankBefore, upper < map.lineStarts.count, map.byteRange(ofLine: upper + 1)?.isEmpty == true {
            end = upper + 1 < map.lineStarts.count ? map.lineStarts[upper + 1] : bytes.count
        }

        // The table goes before the first table of the file, above the comments that introduce it, or at
        // the end of a file without tables.
        if let header = map.entries.first(where: { $0.kind != .keyValue }) {
            var headerLine = header.key.line
            while headerLine > 1, let above = map.byteRange(ofLine: headerLine - 1), Self.isComment(bytes[above]) {
                headerLine -= 1
            }
            bytes.insert(contentsOf: block + lineEnding, at: max(map.lineStarts[headerLine - 1], end))
        } else {
            var tail: [UInt8] = bytes.last == UInt8(ascii: "\n") || bytes.isEmpty ? [] : lineEnding
            tail += lineEnding + block
            bytes.insert(contentsOf: tail, at: bytes.count)
        }
        bytes.removeSubrange(start..<end)
        text = String(decoding: bytes, as: UTF8.self)
        set(path: path, toml: toml)
        return true
    }
}

extension SettingsEditRequest {
    /// What `forecastctl units WORDS` and the socket's `units WORDS` ask for: a preset (`uk`), or a
    /// quantity and its unit (`wind kn`), as the key to set and the value typed.
    static func unitsEdit(_ words: String) throws(SettingsEditError) -> (key: String, value: String) {
        let parts = words.split(whereSeparator: \.isWhitespace).map(String.init)
        let quantities = UnitQuantity.allCases.map(\.rawValue)
        switch parts.count {
        case 1:
            return ("units", parts[0])
        case 2:
            guard let quantity = UnitQuantity(rawValue: parts[0].lowercased()) else {
                throw SettingsEditError(
                    .invalidRequest,
                    "units: \(TOMLText.quote(parts[0])) is not a quantity (allowed: \(quantities.joined(separator: ", ")))")
            }
            return ("units.\(quantity.rawValue)", parts[1])
        default:
            let presets = UnitSystem.allCases.map(\.rawValue).joined(separator: ", ")
            throw SettingsEditError(
                .invalidRequest,
                "units takes a preset (\(presets)) or a quantity and its unit, such as \"wind kn\"; "
                    + "\(TOMLText.quote(words)) is neither")
        }
    }
}
