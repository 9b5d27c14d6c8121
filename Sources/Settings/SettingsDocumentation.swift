import ForecastModel
import Foundation

// What the settings table writes: the documented `config/forecastd.toml`, the same document holding
// other values (a new settings file made from the settings in effect), `forecastctl config show`,
// and the list of keys an edit or a reload changed.

extension Settings {
    /// The documented settings file, `config/forecastd.toml`: every key at its default, with its
    /// documentation. `forecastctl config default` prints it; a test checks the shipped file against it.
    public static var documentedFileText: String {
        documentedText(settings: documentationDefaults)
    }

    /// The defaults the documentation shows: a user session of uid 1000, for the keys whose defaults
    /// depend on the environment (they are shown commented out).
    static var documentationDefaults: Settings {
        defaults(
            environment: ["HOME": "/home/user", "XDG_RUNTIME_DIR": "/run/user/1000"], isSystemService: false,
            userID: 1000)
    }

    /// The documented file holding `settings` instead of the defaults: what a settings file created
    /// from the settings in effect says.
    ///
    /// Keys whose default depends on the environment (the runtime paths) are written only when
    /// `settings` differs from `defaults`, the defaults of the environment the file is made in; the
    /// pin, status files and cities are written when `settings` has them, else shown as examples.
    /// A secret is never written: `api_key` is `""`.
    public static func documentedText(settings: Settings, defaults: Settings? = nil) -> String {
        let defaults = defaults ?? documentationDefaults
        var lines: [String] = []
        for table in SettingsTable.tables {
            // The file's comment, then each table, set apart by a blank line.
            if !lines.isEmpty { lines.append("") }
            lines += comment(table.documentation, table: table)
            if table.path.isEmpty { lines.append("") }
            switch table.kind {
            case .table:
                if !table.path.isEmpty { lines.append("[\(TOMLText.key(table.path))]") }
                for (index, key) in table.keys.enumerated() {
                    // A key that is also a table (`units`) is written as the table when the settings need it.
                    if let form = SettingsTable.table(at: key.path), !form.elements(settings).isEmpty { continue }
                    if index > 0 { lines.append("") }
                    lines += comment(key.documentation, key: key) + [documentedLine(key, settings, defaults)]
                }
            case .optional, .array:
                lines += documentedElements(table, settings)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A key's line in the documented file.
    private static func documentedLine(_ key: SettingsKey, _ settings: Settings, _ defaults: Settings) -> String {
        let value = key.isSecret ? SettingsValue.string("") : key.read(settings)
        let line = "\(TOMLText.key([key.name])) = \((value ?? .string("")).toml)"
        if case .environment = key.documented, value == key.read(defaults) {
            return "# " + TOMLText.key([key.name]) + " = " + (key.read(documentationDefaults) ?? .string("")).toml
        }
        return line
    }

    /// An optional table or an array of tables: each one `settings` has, or the commented example.
    private static func documentedElements(_ table: SettingsTable.Table, _ settings: Settings) -> [String] {
        let header = table.kind == .array ? "[[\(TOMLText.key(table.path))]]" : "[\(TOMLText.key(table.path))]"
        let elements = table.elements(settings)
        guard !elements.isEmpty else {
            return ["# For example:", "# " + header]
                + table.keys.compactMap { key in
                    guard case .example(let example) = key.documented else { return nil }
                    return "# \(TOMLText.key([key.name])) = \(example.toml)"
                }
        }
        return elements.enumerated().flatMap { index, values in
            (index > 0 ? [""] : []) + [header]
                + zip(table.keys, values).compactMap { key, value in
                    value.map { "\(TOMLText.key([key.name])) = \($0.toml)" }
                }
        }
    }

    /// Documentation text as comment lines, `{allowed}` (and, for a table, `{allowed:KEY}`) replaced
    /// by what the key allows; a key read only at start says so.
    private static func comment(
        _ text: String, key: SettingsKey? = nil, table: SettingsTable.Table? = nil
    ) -> [String] {
        var text = text
        if let key {
            text = text.replacingOccurrences(of: "{allowed}", with: key.documentedAllowed ?? "")
        }
        for key in table?.keys ?? [] {
            text = text.replacingOccurrences(of: "{allowed:\(key.name)}", with: key.documentedAllowed ?? "")
        }
        var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if key?.application == .restart || (table?.kind == .array && table?.application == .restart) {
            lines.append("Read at start: a change takes effect when forecastd restarts.")
        }
        return lines.map { $0.isEmpty ? "#" : "# " + $0 }
    }

    // MARK: The values in effect

    /// The effective value of the documented key at `keyPath`, as the file would write it.
    ///
    /// Secrets come back as what may be shown (``Secret/shownAs``), never as themselves; keys that
    /// are off by an empty string (`static_file`, `socket_group`, `api_key_file`) come back as `""`.
    /// `nil` when the key has no value: the pin's keys without a pin, its name without a name, and
    /// paths that are not keys.
    public func value(at keyPath: [String]) -> SettingsValue? {
        SettingsTable.keys.first { $0.path == keyPath && !$0.isElementKey }?.read(self)
    }

    /// The settings as a TOML document with every key, for `forecastctl config show`.
    ///
    /// It reads back to the same settings, except for the API key: a secret is written as
    /// `"(set)"`, `"(from file PATH)"` or `"(from $VARIABLE)"`, never as itself.
    ///
    /// - Parameter origin: what the settings came from, for the opening comment (a path, or
    ///   "the built-in defaults").
    public func toml(origin: String) -> String {
        var lines = ["# The settings in effect, from \(origin)."]
        let tables = SettingsTable.tables
        // The tables of fixed keys first, then the arrays of tables, as TOML requires nothing of the
        // order and people read the keys first.
        for table in tables.filter({ $0.kind != .array }) {
            var values = table.keys.compactMap { key in key.read(self).map { (key, $0) } }
            if table.kind == .optional {
                // As the file writes it (the `[units]` table with its preset, which its row does not read).
                values = zip(table.keys, table.elements(self).first ?? []).compactMap { key, value in
                    value.map { (key, $0) }
                }
            }
            // A key that is also a table (`units`) is written as the table when the settings need it.
            values.removeAll { key, _ in
                SettingsTable.table(at: key.path).map { !$0.elements(self).isEmpty } ?? false
            }
            if table.kind == .optional && values.isEmpty {
                lines += ["", "# No [\(TOMLText.key(table.path))]."]
                continue
            }
            if !table.path.isEmpty { lines += ["", "[\(TOMLText.key(table.path))]"] }
            lines += values.map { key, value in "\(TOMLText.key([key.name])) = \(value.toml)" }
        }
        for table in tables where table.kind == .array {
            for values in table.elements(self) {
                lines += ["", "[[\(TOMLText.key(table.path))]]"]
                lines += zip(table.keys, values).compactMap { key, value in
                    value.map { "\(TOMLText.key([key.name])) = \($0.toml)" }
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Settings.City {
    /// The keys of the city's `[[cities]]` table, one `key = value` a line, in documentation order;
    /// keys without a value (no region, no date) are left out, and `id` is written only when it is
    /// not the derived one.
    public var tomlLines: [String] {
        Self.keys.compactMap { key in key.read(self).map { "\(TOMLText.key([key.name])) = \($0.toml)" } }
    }
}

extension SettingsTable {
    /// The keys whose effective values differ, in documentation order, with their old and new values;
    /// the arrays of tables as a whole (`output.files` by count, `cities` and their favourites by id).
    package static func changes(from before: Settings, to after: Settings) -> [SettingsChange] {
        var changes = SettingsKey.all.compactMap { key -> SettingsChange? in
            let old = key.read(before)
            let new = key.read(after)
            return old == new
                ? nil : SettingsChange(key: key.description, old: old, new: new, application: key.application)
        }
        // The secret is shown only as where it comes from, which may not change when the key does.
        let apiKey = ["providers", "openweathermap", "api_key"]
        if before.providers.openWeatherMap.apiKey != after.providers.openWeatherMap.apiKey,
            !changes.contains(where: { $0.key == TOMLText.key(apiKey) })
        {
            let shown = after.value(at: apiKey)
            changes.append(SettingsChange(key: TOMLText.key(apiKey), old: shown, new: shown, application: .live))
        }
        if before.output.files != after.output.files {
            changes.append(
                SettingsChange(
                    key: "output.files", old: .integer(before.output.files.count),
                    new: .integer(after.output.files.count), application: Settings.statusFilesTable.application))
        }
        let ids = { (settings: Settings) in settings.cities.map(\.id) }
        if ids(before) != ids(after) {
            changes.append(
                SettingsChange(
                    key: "cities", old: .strings(ids(before)), new: .strings(ids(after)),
                    application: Settings.citiesTable.application))
        }
        let favorites = { (settings: Settings) in settings.favoriteCities.map(\.id) }
        if favorites(before) != favorites(after) {
            changes.append(
                SettingsChange(
                    key: "cities (favorites)", old: .strings(favorites(before)), new: .strings(favorites(after)),
                    application: Settings.citiesTable.application))
        }
        return changes
    }

    /// `after`, with the value of every key read only at start (``SettingsApplication/restart``) taken
    /// from `running`: what a running daemon can apply of `after`.
    package static func applicable(_ after: Settings, running: Settings) -> Settings {
        var applicable = after
        for key in keys where key.application == .restart {
            key.keep?(&applicable, running)
        }
        for table in tables where table.kind == .array && table.application == .restart {
            table.keep(&applicable, running)
        }
        return applicable
    }
}
