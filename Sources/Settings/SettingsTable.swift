import Foundation

/// The settings table: every table of `forecastd.toml` and its keys, in the order the documentation
/// lists them.
///
/// Each table is declared next to the struct that holds its values (`Settings.swift` for the root
/// keys, `LocationSettings.swift`, `ProviderSettings.swift`, `OutputSettings.swift`, `AlertSettings.swift`,
/// `NotificationSettings.swift`, `Cities.swift`);
/// this file lists them and answers questions about them. A key is one ``SettingsKey`` row; the rules
/// that involve several keys (the pin, the API key's sources, hot above cold, the `[[tables]]`) are
/// the functions of `SettingsRules.swift`.
package enum SettingsTable {
    /// One table of the file.
    package struct Table: Sendable {
        package enum Kind: Sendable, Hashable {
            /// `[path]`, always documented with its keys at their defaults.
            case table
            /// `[path]` that the defaults do not have (the pin): documented as a commented example.
            case optional
            /// `[[path]]`, any number of times: documented as a commented example.
            case array
        }

        package let path: [String]
        package let kind: Kind
        /// When a change takes effect, for the tables of an array as a whole (each key says so otherwise).
        package let application: SettingsApplication
        /// The comment above the table's header, without `# `; empty for none.
        let documentation: String
        let keys: [SettingsKey]
        /// For optional tables and arrays: each table the settings have, as its keys' values in
        /// ``keys``' order (nil: the key is left out).
        let elements: @Sendable (Settings) -> [[SettingsValue?]]
        /// For arrays: copies the tables from other settings (a reload does for ``application`` `.restart`).
        var keep: @Sendable (inout Settings, Settings) -> Void = { _, _ in }
    }

    /// Every table, in documentation order: the root table first.
    package static let tables: [Table] = [
        Settings.rootTable, Settings.unitsTable,
        Settings.locationTable, Settings.pinTable, Settings.gpsdTable, Settings.wifiTable, Settings.geoclueTable, Settings.ipTable,
        Settings.providersTable, Settings.openMeteoTable, Settings.metNorwayTable, Settings.openWeatherMapTable,
        Settings.outputTable, Settings.statusFilesTable, Settings.displayTable, Settings.historyTable,
        Settings.warningsTable, Settings.nwsTable, Settings.metNorwayWarningsTable, Settings.brightSkyTable,
        Settings.meteoalarmTable, Settings.ecccTable, Settings.nowcastTable, Settings.airTable,
        Settings.notificationsTable, Settings.mqttTable, Settings.mapTable,
        Settings.citiesTable,
    ]

    /// Every key of every table, in documentation order.
    package static let keys: [SettingsKey] = tables.flatMap(\.keys)

    /// The tables by path.
    private static let tablesByPath: [[String]: Table] = Dictionary(
        uniqueKeysWithValues: tables.map { ($0.path, $0) })

    /// The table at `path`, if there is one.
    package static func table(at path: [String]) -> Table? {
        tablesByPath[path]
    }

    /// The tables written directly inside the table at `path`, in documentation order.
    package static func subtables(of path: [String]) -> [Table] {
        tables.filter { $0.path.count == path.count + 1 && $0.path.starts(with: path) }
    }

    /// The names allowed in the table at `path`: its keys, then its tables; nil when it is no table.
    package static func allowedNames(in path: [String]) -> [String]? {
        guard let table = table(at: path) else { return nil }
        let keys = table.keys.map(\.name)
        // A name may be a key and a table too (`units`): it is allowed once.
        return keys + subtables(of: path).map { $0.path[$0.path.count - 1] }.filter { !keys.contains($0) }
    }
}

/// A key of the table whose values are a `Section` (a struct of ``Settings``, or an element of a
/// `[[table]]`), before the table places it: the pieces of ``SettingsKey`` that know the section's type.
struct SectionKey<Section>: Sendable {
    let name: String
    let type: SettingsValueType
    let allowed: String?
    let documentedAllowed: String?
    let application: SettingsApplication
    let isSecret: Bool
    let documentation: String
    let documented: SettingsKey.Documented
    let check: @Sendable (SettingsValue) -> Result<SettingsValue, SettingsRefusal>
    let read: @Sendable (Section) -> SettingsValue?
    let store: (@Sendable (inout Section, SettingsValue) -> Void)?
    /// Copies the field from another section.
    let keep: (@Sendable (inout Section, Section) -> Void)?

    /// A key whose value is the field `field`: stored there when decoded, read from it when shown.
    static func key<Value>(
        _ name: String, _ field: any WritableKeyPath<Section, Value> & Sendable, _ type: SettingType<Value>,
        _ application: SettingsApplication, secret: Bool = false, documented: SettingsKey.Documented = .value,
        _ documentation: String
    ) -> SectionKey {
        let accept = type.accept
        return SectionKey(
            name: name, type: type.valueType, allowed: type.allowed, documentedAllowed: type.documented,
            application: application, isSecret: secret, documentation: documentation, documented: documented,
            check: Self.check(type), read: { type.represent($0[keyPath: field]) },
            store: { section, value in
                if case .success(let accepted) = accept(value) { section[keyPath: field] = accepted }
            },
            keep: { section, other in section[keyPath: field] = other[keyPath: field] })
    }

    /// A key whose value a rule of `SettingsRules.swift` puts in place, together with others (the pin's
    /// coordinates, the API key); `read` gives its value from the section.
    static func assembled<Value>(
        _ name: String, _ type: SettingType<Value>, _ application: SettingsApplication, secret: Bool = false,
        documented: SettingsKey.Documented = .value, _ documentation: String = "",
        read: @escaping @Sendable (Section) -> SettingsValue?
    ) -> SectionKey {
        SectionKey(
            name: name, type: type.valueType, allowed: type.allowed, documentedAllowed: type.documented,
            application: application, isSecret: secret, documentation: documentation, documented: documented,
            check: Self.check(type), read: read, store: nil, keep: nil)
    }

    /// A key of a `[[table]]` element or of the pin, shown by its `example` where the defaults have none.
    static func example<Value>(
        _ name: String, _ field: any KeyPath<Section, Value> & Sendable, _ type: SettingType<Value>,
        _ example: SettingsValue
    ) -> SectionKey {
        assembled(name, type, .live, documented: .example(example)) { type.represent($0[keyPath: field]) }
    }

    private static func check<Value>(
        _ type: SettingType<Value>
    )
        -> @Sendable (SettingsValue) -> Result<
            SettingsValue, SettingsRefusal
        >
    {
        let accept = type.accept
        let represent = type.represent
        return { value in accept(value).map { represent($0) ?? value } }
    }

    /// The row, once the table's path and the way from ``Settings`` to the section are known.
    func row(
        in table: [String], isElementKey: Bool = false, application: SettingsApplication? = nil,
        read readSection: @escaping @Sendable (Settings) -> SettingsValue?,
        store storeSection: (@Sendable (inout Settings, SettingsValue) -> Void)?,
        keep: (@Sendable (inout Settings, Settings) -> Void)?
    ) -> SettingsKey {
        SettingsKey(
            path: table + [name], type: type, isSecret: isSecret, application: application ?? self.application,
            allowed: allowed,
            documentedAllowed: documentedAllowed, documentation: documentation, documented: documented,
            isElementKey: isElementKey, check: check, read: readSection, store: storeSection, keep: keep)
    }
}

extension SettingsTable.Table {
    /// `[path]`, whose values are the struct at `section` in ``Settings``.
    init<Section>(
        _ path: [String], _ section: any WritableKeyPath<Settings, Section> & Sendable, documentation: String = "",
        _ keys: [SectionKey<Section>]
    ) {
        let rows = keys.map { (key: SectionKey<Section>) -> SettingsKey in
            let read: @Sendable (Settings) -> SettingsValue? = { settings in key.read(settings[keyPath: section]) }
            var store: (@Sendable (inout Settings, SettingsValue) -> Void)?
            if let storeField = key.store {
                store = { settings, value in storeField(&settings[keyPath: section], value) }
            }
            var keep: (@Sendable (inout Settings, Settings) -> Void)?
            if let keepField = key.keep {
                keep = { settings, other in keepField(&settings[keyPath: section], other[keyPath: section]) }
            }
            return key.row(in: path, read: read, store: store, keep: keep)
        }
        self.init(
            path: path, kind: .table, application: .live, documentation: documentation, keys: rows,
            elements: { _ in [] })
    }

    /// `[path]` the defaults do not have, whose values are the optional at `section`; a rule assembles it.
    init<Section>(
        optional path: [String], _ section: any KeyPath<Settings, Section?> & Sendable, documentation: String,
        _ keys: [SectionKey<Section>]
    ) {
        let rows = keys.map { (key: SectionKey<Section>) -> SettingsKey in
            let read: @Sendable (Settings) -> SettingsValue? = { settings in
                settings[keyPath: section].flatMap(key.read)
            }
            return key.row(in: path, read: read, store: nil, keep: nil)
        }
        let elements: @Sendable (Settings) -> [[SettingsValue?]] = { settings in
            guard let value = settings[keyPath: section] else { return [] }
            return [keys.map { $0.read(value) }]
        }
        self.init(
            path: path, kind: .optional, application: .live, documentation: documentation, keys: rows,
            elements: elements)
    }

    /// `[[path]]`, whose elements are the array at `elements`; a rule decodes each.
    init<Element>(
        array path: [String], _ array: any WritableKeyPath<Settings, [Element]> & Sendable,
        _ application: SettingsApplication, documentation: String, _ keys: [SectionKey<Element>]
    ) {
        let rows = keys.map { (key: SectionKey<Element>) -> SettingsKey in
            key.row(in: path, isElementKey: true, application: application, read: { _ in nil }, store: nil, keep: nil)
        }
        let elements: @Sendable (Settings) -> [[SettingsValue?]] = { settings in
            settings[keyPath: array].map { element in keys.map { $0.read(element) } }
        }
        let keep: @Sendable (inout Settings, Settings) -> Void = { settings, other in
            settings[keyPath: array] = other[keyPath: array]
        }
        self.init(
            path: path, kind: .array, application: application, documentation: documentation, keys: rows,
            elements: elements, keep: keep)
    }
}
