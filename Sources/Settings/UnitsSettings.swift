import ForecastModel

// `units` written as a table: `[units]` with `preset` and any quantity set apart from it. The one-line
// `units = "uk"` is the root table's key (`Settings.swift`); TOML cannot hold both in one file.

extension Settings {
    /// The units when they need the `[units]` table (some quantity is set apart from the preset); nil
    /// when the one-line `units = "…"` says everything.
    var unitsTable: UnitPreferences? { units.hasOverrides ? units : nil }

    /// `[units]`: a preset and the quantities set apart from it, assembled by ``SettingsDecoder``'s units rule.
    ///
    /// Its `preset` is the fact the one-line `units` holds: a change of it is listed once, as `units`.
    static let unitsTable = SettingsTable.Table(
        unitsTableWithPreset.path, unitsTableWithPreset.kind,
        keys: unitsTableWithPreset.keys.map { $0.name == "preset" ? $0.withoutValue : $0 },
        elements: unitsTableWithPreset.elements, documentation: unitsTableWithPreset.documentation)

    private static let unitsTableWithPreset = SettingsTable.Table(
        optional: ["units"], \Settings.unitsTable,
        documentation: """
            Instead of the one-line `units` above, a [units] table chooses a unit for each quantity:
            `preset` (\(TOMLText.list(UnitSystem.allCases.map { TOMLText.quote($0.rawValue) })); "metric" when left
            out) gives every quantity its unit, and any of these keys sets one apart from it:
            \(UnitQuantity.allCases.map { quantity in
                "  \(quantity.rawValue): \(TOMLText.list(quantity.unitNames.map(TOMLText.quote)))"
            }.joined(separator: "\n"))
            Wind in "bft" is the Beaufort force, 0 to 12, with its name in tooltips. Visibility follows
            distance unless set. `time` is how clock times read; by default the locale's ($LC_ALL,
            $LC_TIME, $LANG): 12-hour for en_US, en_CA, en_AU, en_NZ, en_PH, en_IN, es_US, hi_IN, ar_EG,
            ar_SA and ko_KR, 24-hour elsewhere. Delete the `units = …` line when you write this table
            (TOML allows only one of them); `forecastctl units wind kn` does it for you, and
            `forecastctl units PRESET` sets the preset and removes every unit set apart.
            """,
        [
            .assembled("preset", .choice(UnitSystem.self, noun: "a unit system"), .live, documented: .example(.string("uk"))) {
                .string($0.preset.rawValue)
            },
            .override("temperature", \.temperatureOverride, noun: "a temperature unit", example: "celsius"),
            .override("wind", \.windOverride, noun: "a wind speed unit", example: "kn"),
            .override("pressure", \.pressureOverride, noun: "a pressure unit", example: "hpa"),
            .override("precipitation", \.precipitationOverride, noun: "a precipitation unit", example: "mm"),
            .override("distance", \.distanceOverride, noun: "a distance unit", example: "mi"),
            .override("visibility", \.visibilityOverride, noun: "a distance unit", example: "km"),
            .override("time", \.timeOverride, noun: "a clock", example: "24h"),
        ])
}

extension SettingsTable.Table {
    /// A table of `path` made of `keys` as they are.
    fileprivate init(
        _ path: [String], _ kind: Kind, keys: [SettingsKey], elements: @escaping @Sendable (Settings) -> [[SettingsValue?]],
        documentation: String
    ) {
        self.init(
            path: path, kind: kind, application: .live, documentation: documentation, keys: keys, elements: elements)
    }
}

extension SettingsKey {
    /// This key, read as having no value (it is shown through another key).
    fileprivate var withoutValue: SettingsKey {
        SettingsKey(
            path: path, type: type, isSecret: isSecret, application: application, allowed: allowed,
            documentedAllowed: documentedAllowed, documentation: documentation, documented: documented,
            isElementKey: isElementKey, check: check, read: { _ in nil }, store: store, keep: keep)
    }
}

extension SectionKey where Section == UnitPreferences {
    /// A quantity of `[units]`: one of `Unit`'s names, or left out to follow the preset.
    static func override<Unit: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ field: any KeyPath<UnitPreferences, Unit?> & Sendable, noun: String, example: String
    ) -> SectionKey where Unit.RawValue == String {
        let type = SettingType<Unit>.choice(Unit.self, noun: noun).optional
        return assembled(name, type, .live, documented: .example(.string(example))) { type.represent($0[keyPath: field]) }
    }
}

extension SettingsDecoder {
    /// `[units]`: the preset (metric when left out) and each quantity the table sets apart from it.
    mutating func assembleUnits(into settings: inout Settings) {
        let table = ["units"]
        guard decodedTables.contains(table) else { return }
        func name(_ key: String) -> String? { values[table + [key]]?.string }
        settings.units = UnitPreferences(
            preset: name("preset").flatMap(UnitSystem.init(rawValue:)) ?? .metric,
            temperature: name("temperature").flatMap(TemperatureUnit.init(rawValue:)),
            wind: name("wind").flatMap(WindSpeedUnit.init(rawValue:)),
            pressure: name("pressure").flatMap(PressureUnit.init(rawValue:)),
            precipitation: name("precipitation").flatMap(PrecipitationUnit.init(rawValue:)),
            distance: name("distance").flatMap(DistanceUnit.init(rawValue:)),
            visibility: name("visibility").flatMap(DistanceUnit.init(rawValue:)),
            time: name("time").flatMap(TimeFormat.init(rawValue:)), localeTime: settings.units.localeTime)
    }

    /// A problem when `units` is written both as a key (`units = "uk"`) and as a table (`[units]`,
    /// `units.wind = …`): TOML allows one, and its parser's own words ("cannot redefine") do not say which.
    mutating func checkUnitsWrittenOnce() -> Bool {
        guard let key = map.entries.first(where: { $0.kind == .keyValue && $0.keyPath == ["units"] }),
            let value = key.valueBytes, map.bytes[value].first != UInt8(ascii: "{"),
            let table = map.entries.first(where: { $0.keyPath.count > 1 ? $0.keyPath.first == "units" : $0.kind == .table && $0.keyPath == ["units"] })
        else { return true }
        report(
            ["units"], at: .key,
            "is written twice, as `units = …` (line \(key.key.line)) and as the [units] table (line \(table.key.line)); "
                + "TOML allows only one",
            allowed: "either `units = \"metric\"` alone, or a [units] table with preset = \"metric\" in it",
            anchor: ["units"])
        return false
    }
}
