import ForecastModel
import Foundation
import TOMLKit

/// Walks a parsed document against the settings table, collecting every problem with its place.
///
/// The table's rows check each key (its TOML type, then its range or spelling) and store what they
/// accept; the rules of `SettingsRules.swift` then check what involves several keys and decode the
/// `[[tables]]`.
struct SettingsDecoder {
    let text: String
    let path: String
    let map: TOMLSourceMap
    private(set) var problems: [SettingsProblem] = []
    /// The steps decoding took: the source map's, and every statement or value looked at since. Tests
    /// bound it to keep decoding linear in the size of the file.
    var cost = 0
    /// The checked values of the keys the file sets, by path, as the rows gave them back.
    private(set) var values: [[String]: SettingsValue] = [:]
    /// Every key and table the file writes, valid or not, by path.
    private(set) var written: Set<[String]> = []
    /// The tables decoded: written, and written as tables.
    private(set) var decodedTables: Set<[String]> = []
    /// The `[[table]]` being decoded and its index: problems inside it are placed in that table.
    var arrayElement: (path: [String], index: Int)?
    /// The statements of each `[[table]]` header, by its path: found once, used for every problem.
    private var elementHeaders: [[String]: [Int]] = [:]
    /// Each `[[table]]` whose problems were placed, by path and index.
    private var elementTables: [[String]: [Int: ElementTable]] = [:]

    init(text: String, path: String) {
        self.text = text
        self.path = path
        self.map = TOMLSourceMap(text)
        self.cost = map.scanCost
    }

    /// The problems by line and column; problems at the same place keep the order they were found in.
    var sortedProblems: [SettingsProblem] {
        problems.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.line ?? .max, lhs.element.column ?? .max, lhs.offset)
            let right = (rhs.element.line ?? .max, rhs.element.column ?? .max, rhs.offset)
            return left < right
        }.map(\.element)
    }

    mutating func decode(over defaults: Settings) -> Settings {
        // toml++ reads a C string: a NUL would silently end the document there.
        if let nul = map.bytes.firstIndex(of: 0) {
            let position = map.position(ofByte: nul)
            problems.append(
                SettingsProblem(
                    path: path, line: position.line, column: position.column,
                    message: "contains a NUL character, which TOML does not allow"))
            return defaults
        }
        if let position = map.firstMalformedKey {
            problems.append(
                SettingsProblem(
                    path: path, line: position.line, column: position.column,
                    message: "invalid TOML: a key is letters, digits, \"_\" and \"-\", or a quoted string"))
            return defaults
        }
        if let position = map.firstStrayBrace {
            problems.append(
                SettingsProblem(
                    path: path, line: position.line, column: position.column,
                    message: "invalid TOML: \"}\" where an array's value or its closing \"]\" belongs"))
            return defaults
        }
        guard checkUnitsWrittenOnce() else { return defaults }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            problems.append(
                SettingsProblem(
                    path: path, line: error.source.begin.line, column: error.source.begin.column,
                    message: "invalid TOML: " + Self.lowercasingFirstLetter(error.description)))
            return defaults
        } catch {
            problems.append(SettingsProblem(path: path, message: "invalid TOML: \(error)"))
            return defaults
        }
        // TOMLKit 0.6 never frees a parsed document: clearing it frees its nodes, all but the empty
        // root table, so a reload does not leak the file's size each time (28 MB for 1 MiB of keys).
        defer { root.clear() }
        var settings = defaults
        decodeTable(root, Settings.rootTable, into: &settings)
        applyRules(to: &settings, root: root)
        return settings
    }

    /// Checks the names in `toml`, the table `table` as written, then decodes each of its keys and
    /// tables; `[[tables]]` are left to their rules.
    private mutating func decodeTable(_ toml: TOMLTable, _ table: SettingsTable.Table, into settings: inout Settings) {
        decodedTables.insert(table.path)
        checkKeys(of: toml, at: table.path)
        for key in table.keys {
            guard let raw = toml[key.name] else { continue }
            // A name that is a key and a table too (`units = "uk"` or `[units]`): a table is decoded as one.
            if raw.type == .table, SettingsTable.table(at: key.path) != nil { continue }
            guard let value = checked(raw, key) else { continue }
            values[key.path] = value
            key.store?(&settings, value)
        }
        for subtable in SettingsTable.subtables(of: table.path) where subtable.kind != .array {
            let name = subtable.path[subtable.path.count - 1]
            guard let raw = toml[name] else { continue }
            if raw.type != .table, table.keys.contains(where: { $0.name == name }) { continue }
            written.insert(subtable.path)
            guard raw.type == .table, let child = raw.table else {
                report(subtable.path, at: .value, "expected a table, found \(Self.describe(raw.type))")
                continue
            }
            decodeTable(child, subtable, into: &settings)
        }
    }

    /// The value of `key` as written, checked: its TOML type, then its range or spelling. A problem is
    /// reported and nil returned when it is not allowed.
    mutating func checked(_ raw: any TOMLValueConvertible, _ key: SettingsKey) -> SettingsValue? {
        cost += 1
        written.insert(key.path)
        let result = Self.settingsValue(raw, as: key.type, allowed: key.allowed, source: valueBytes(of: key.path))
            .flatMap(key.check)
        switch result {
        case .success(let value):
            return value
        case .failure(let refusal):
            report(key.path, at: .value, refusal.message, allowed: refusal.allowed)
            return nil
        }
    }

    /// Reports the names in `table` that the table at `tablePath` does not have.
    ///
    /// `written` names what the table holds, from the source map: TOMLKit leaks every name it lists
    /// (`keys`), so it is asked only for tables the map does not see into (inline tables in arrays).
    mutating func checkKeys(of table: TOMLTable, at tablePath: [String], written names: [String]? = nil) {
        guard let allowed = SettingsTable.allowedNames(in: tablePath) else { return }
        cost += allowed.count
        guard table.count > allowed.count(where: { table[$0] != nil }) else { return }
        var unknown = (names ?? map.names(in: tablePath)).filter { !allowed.contains($0) && table[$0] != nil }
        if unknown.isEmpty { unknown = table.keys.filter { !allowed.contains($0) } }
        for key in unknown {
            cost += 1
            report(tablePath + [key], at: .key, "unknown key", allowed: allowed.joined(separator: ", "))
        }
    }

    /// The names written in the `[[table]]` being decoded, from the source map; nil for an array written
    /// inline, whose tables the map does not see into.
    mutating func elementNames() -> [String]? {
        guard let element = arrayElement, let table = elementTable(element) else { return nil }
        var names: [String] = []
        var seen: Set<String> = []
        for path in table.keyPaths where path.count > element.path.count {
            let name = path[element.path.count]
            if seen.insert(name).inserted { names.append(name) }
        }
        cost += table.keyPaths.count
        return names
    }

    /// The bytes of the value of `keyPath` as written, in the `[[table]]` being decoded if there is one;
    /// nil where the source map does not see (pairs of inline tables in arrays).
    private mutating func valueBytes(of keyPath: [String]) -> ArraySlice<UInt8>? {
        let entry: TOMLSourceMap.Entry?
        if let element = arrayElement {
            entry = elementTable(element)?.entries[keyPath]
        } else {
            entry = map.entry(for: keyPath)
        }
        return entry?.valueBytes.map { map.bytes[$0] }
    }

    /// A TOML value as a ``SettingsValue`` of `type`, or why it is not one.
    ///
    /// Values are read from `source`, the value as written, where it is known: TOMLKit leaks a copy of
    /// each value it hands out (``TOMLStrings``).
    static func settingsValue(
        _ raw: any TOMLValueConvertible, as type: SettingsValueType, allowed: String?, source: ArraySlice<UInt8>? = nil
    ) -> Result<SettingsValue, SettingsRefusal> {
        let found = describe(raw.type)
        switch type {
        case .string:
            if raw.type == .string, let string = source.flatMap(TOMLStrings.string) ?? raw.string {
                return .success(.string(string))
            }
            return .failure(SettingsRefusal("expected a string, found \(found)"))
        case .integer:
            if raw.type == .int, let integer = source.flatMap(TOMLStrings.integer) ?? raw.int {
                return .success(.integer(integer))
            }
            return .failure(SettingsRefusal("expected an integer, found \(found)"))
        case .number:
            if raw.type == .double, let double = source.flatMap(TOMLStrings.double) ?? raw.double {
                return .success(.number(double))
            }
            if raw.type == .int, let integer = source.flatMap(TOMLStrings.integer) ?? raw.int {
                return .success(.integer(integer))
            }
            return .failure(SettingsRefusal("expected a number, found \(found)"))
        case .boolean:
            if raw.type == .bool, let boolean = source.flatMap(TOMLStrings.boolean) ?? raw.bool {
                return .success(.boolean(boolean))
            }
            return .failure(SettingsRefusal("expected a boolean, found \(found)"))
        case .strings:
            guard raw.type == .array, let array = raw.array else {
                return .failure(SettingsRefusal("expected an array of names, found \(found)", allowed: allowed))
            }
            if let strings = source.flatMap(TOMLStrings.strings) { return .success(.strings(strings)) }
            var strings: [String] = []
            for element in array {
                guard element.type == .string, let string = element.string else {
                    return .failure(
                        SettingsRefusal("expected names in quotes, found \(describe(element.type))", allowed: allowed))
                }
                strings.append(string)
            }
            return .success(.strings(strings))
        case .date:
            let allowed = SettingsValueType.dateAllowed
            if raw.type == .date, let date = source.flatMap({ CalendarDate(String(decoding: $0, as: UTF8.self)) }) {
                return .success(.date(date))
            }
            guard raw.type == .date, let date = raw.date else {
                // From the file's bytes: TOMLKit's `string` leaks a copy of the text each time it is read.
                let isQuotedDate =
                    raw.type == .string && source.flatMap(TOMLStrings.string).flatMap(CalendarDate.init) != nil
                return .failure(
                    SettingsRefusal("expected a date, found \(isQuotedDate ? "a string" : found)", allowed: allowed))
            }
            guard let day = CalendarDate(year: date.year, month: date.month, day: date.day) else {
                return .failure(SettingsRefusal("is not a day of the calendar", allowed: allowed))
            }
            return .success(.date(day))
        }
    }

    // MARK: Reporting

    enum Anchor {
        /// Where the key is written: for keys that should not be there.
        case key
        /// Where the value starts: for values that are wrong.
        case value
    }

    /// Records a problem at `keyPath`, placed at the key or value of `anchor` (by default `keyPath` itself).
    mutating func report(
        _ keyPath: [String], at place: Anchor, _ message: String, allowed: String? = nil, anchor: [String]? = nil
    ) {
        let anchorPath = anchor ?? keyPath
        cost += 1
        var position = place == .key ? map.keyPosition(of: anchorPath) : map.valuePosition(of: anchorPath)
        var renderedKey = TOMLText.key(keyPath)
        if let element = arrayElement, anchorPath.starts(with: element.path) {
            position = elementPosition(anchorPath, at: place, in: element)
            renderedKey =
                TOMLText.key(element.path) + "[\(element.index + 1)]"
                + (keyPath.count > element.path.count
                    ? "." + TOMLText.key(Array(keyPath.dropFirst(element.path.count))) : "")
        }
        problems.append(
            SettingsProblem(
                path: path, line: position?.line, column: position?.column, keyPath: renderedKey,
                message: message, allowed: allowed))
    }

    /// Where `keyPath` is written inside the `index`-th `[[table]]` of `element.path`.
    ///
    /// The source map records the pairs of every `[[table]]` under the same path, so the right one is
    /// found between that table's header and the next header. An array written inline
    /// (`files = [{ … }]`) has no headers; its problems are placed at the array.
    private mutating func elementPosition(
        _ keyPath: [String], at place: Anchor, in element: (path: [String], index: Int)
    ) -> TOMLSourceMap.Position? {
        guard let table = elementTable(element) else { return map.valuePosition(of: element.path) }
        guard keyPath != element.path, let entry = table.entries[keyPath] else {
            return table.header
        }
        return place == .key ? entry.key : (entry.value ?? entry.key)
    }

    /// The header and pairs of one `[[table]]` as written, indexed once for all its problems.
    struct ElementTable {
        var header: TOMLSourceMap.Position
        var entries: [[String]: TOMLSourceMap.Entry]
        /// The pairs' key paths in document order.
        var keyPaths: [[String]]
    }

    private mutating func elementTable(_ element: (path: [String], index: Int)) -> ElementTable? {
        if let cached = elementTables[element.path]?[element.index] { return cached }
        if elementHeaders[element.path] == nil {
            elementHeaders[element.path] = map.entries.indices.filter {
                map.entries[$0].kind == .arrayOfTables && map.entries[$0].keyPath == element.path
            }
            cost += map.entries.count
        }
        let headers = elementHeaders[element.path] ?? []
        guard element.index < headers.count else { return nil }
        let start = headers[element.index]
        let end = map.entries[(start + 1)...].firstIndex { $0.kind != .keyValue } ?? map.entries.endIndex
        var entries: [[String]: TOMLSourceMap.Entry] = [:]
        for entry in map.entries[(start + 1)..<end] where entries[entry.keyPath] == nil {
            entries[entry.keyPath] = entry
        }
        cost += end - start
        let table = ElementTable(
            header: map.entries[start].key, entries: entries, keyPaths: map.entries[(start + 1)..<end].map(\.keyPath))
        elementTables[element.path, default: [:]][element.index] = table
        return table
    }

    // MARK: Text

    /// A TOML type with its article: `an integer`, `a string`.
    static func describe(_ type: TOMLType) -> String {
        switch type {
        case .table: "a table"
        case .array: "an array"
        case .string: "a string"
        case .int: "an integer"
        case .double: "a floating-point number"
        case .bool: "a boolean"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }

    static func lowercasingFirstLetter(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
