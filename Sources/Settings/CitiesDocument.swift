import Foundation

extension SettingsDocument {
    /// Appends a `[[cities]]` table for `city`, after the last one the file has, or at the end of the file.
    ///
    /// The table is set apart by a blank line, and ``removeCity(at:)`` takes that line along, so
    /// adding a city and removing it again gives back the same bytes.
    ///
    /// - Throws: ``SettingsEditError`` when the file writes its cities as an inline array
    ///   (`cities = [{ … }]`), which cannot be extended with a table.
    public mutating func appendCity(_ city: Settings.City) throws(SettingsEditError) {
        let map = TOMLSourceMap(text)
        try Self.refuseInlineCities(map)
        var bytes = map.bytes
        let lineEnding = Self.lineEnding(of: bytes)
        let table = ([""] + ["[[cities]]"] + city.tomlLines).map { $0 + lineEnding }.joined()
        if let last = Self.cityTables(map).last, last.lines.upperBound < map.lineStarts.count {
            bytes.insert(contentsOf: Array(table.utf8), at: map.lineStarts[last.lines.upperBound])
        } else {
            var addition = ""
            if !bytes.isEmpty && bytes.last != UInt8(ascii: "\n") { addition += lineEnding }
            addition += bytes.isEmpty ? String(table.dropFirst(lineEnding.count)) : table
            bytes.append(contentsOf: Array(addition.utf8))
        }
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// Removes the `index`-th `[[cities]]` table (0-based, as ``Settings/cities`` lists them): its
    /// header, its keys and anything written between them, and the blank line above it.
    ///
    /// Comments above the header stay, as they do when other tables are removed.
    public mutating func removeCity(at index: Int) throws(SettingsEditError) {
        let map = TOMLSourceMap(text)
        try Self.refuseInlineCities(map)
        let tables = Self.cityTables(map)
        guard tables.indices.contains(index) else {
            throw SettingsEditError(.invalidRequest, "there is no cities[\(index + 1)] in the file")
        }
        var lines = tables[index].lines
        if lines.lowerBound >= 2, let blank = map.byteRange(ofLine: lines.lowerBound - 1), blank.isEmpty {
            lines = (lines.lowerBound - 1)...lines.upperBound
        }
        var bytes = map.bytes
        let start = map.lineStarts[lines.lowerBound - 1]
        let end = lines.upperBound < map.lineStarts.count ? map.lineStarts[lines.upperBound] : bytes.count
        bytes.removeSubrange(start..<end)
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// Sets `favorite` in the `index`-th `[[cities]]` table: its value's bytes when the key is
    /// written, else a new line after the table's last key.
    public mutating func setFavorite(_ favorite: Bool, ofCityAt index: Int) throws(SettingsEditError) {
        let map = TOMLSourceMap(text)
        try Self.refuseInlineCities(map)
        let tables = Self.cityTables(map)
        guard tables.indices.contains(index) else {
            throw SettingsEditError(.invalidRequest, "there is no cities[\(index + 1)] in the file")
        }
        var bytes = map.bytes
        let value = favorite ? "true" : "false"
        if let entry = tables[index].entries.first(where: { $0.keyPath == ["cities", "favorite"] }),
            let range = entry.valueBytes
        {
            bytes.replaceSubrange(range, with: Array(value.utf8))
            text = String(decoding: bytes, as: UTF8.self)
            return
        }
        insertLine("favorite = " + value, afterLine: tables[index].lines.upperBound, map: map, bytes: &bytes)
    }

    /// One `[[cities]]` table as written: the lines from its header to its last statement.
    struct CityTable {
        var lines: ClosedRange<Int>
        var entries: [TOMLSourceMap.Entry]
    }

    /// Every `[[cities]]` table of the document, in order.
    static func cityTables(_ map: TOMLSourceMap) -> [CityTable] {
        map.entries.indices.filter {
            map.entries[$0].kind == .arrayOfTables && map.entries[$0].keyPath == ["cities"]
        }.map { start in
            let body = map.entries[(start + 1)...].prefix { $0.kind == .keyValue }
            let last = body.map(\.lines.upperBound).max() ?? map.entries[start].lines.upperBound
            return CityTable(lines: map.entries[start].lines.lowerBound...last, entries: Array(body))
        }
    }

    private static func refuseInlineCities(_ map: TOMLSourceMap) throws(SettingsEditError) {
        if map.entries.contains(where: { $0.kind == .keyValue && $0.keyPath == ["cities"] }) {
            throw SettingsEditError(
                .invalidRequest,
                "the settings file writes its cities as an inline array (cities = [...]); forecastctl edits "
                    + "[[cities]] tables only, so rewrite them as [[cities]] tables or edit the file by hand")
        }
    }
}
