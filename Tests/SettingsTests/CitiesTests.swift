import ForecastModel
import Foundation
import Testing

@testable import Settings

private let p = settingsPath

/// A settings file with cities as people write them: comments around and inside the tables.
let citiesFile = """
    units = "metric"

    # Places I follow.
    [[cities]]
    name = "Paris"
    admin1 = "Île-de-France"
    country = "FR"
    latitude = 48.85341
    longitude = 2.3488   # the Hôtel de Ville
    favorite = true
    added = 2026-11-20

    # Grandma.
    [[cities]]
    name = "São Paulo"
    country = "br"
    latitude = -23.5475
    longitude = -46.63611

    [history]
    retention_days = 30

    """

@Suite("[[cities]] and [history] in the settings file")
struct CitiesDecodingTests {
    @Test("cities decode in order with their ids; country codes are upper-cased; favorite defaults to false")
    func decodesCities() throws {
        let settings = try Settings.decode(citiesFile, path: p, defaults: userDefaults)
        #expect(
            settings.cities == [
                Settings.City(
                    name: "Paris", admin1: "Île-de-France", countryCode: "FR",
                    coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488), favorite: true,
                    added: CalendarDate(year: 2026, month: 11, day: 20)),
                Settings.City(
                    name: "São Paulo", countryCode: "BR", coordinate: Coordinate(latitude: -23.5475, longitude: -46.63611)),
            ])
        #expect(settings.cities.map(\.id) == ["paris-fr", "sao-paulo-br"])
        #expect(settings.favoriteCities.map(\.id) == ["paris-fr"])
        #expect(settings.history.retentionDays == 30)
        #expect(userDefaults.history.retentionDays == 365)
        #expect(userDefaults.cities.isEmpty)
        #expect(settings.historyDatabasePath == "/home/u/.local/state/forecastd/history.sqlite")
    }

    @Test(
        "the id rule: folded name, words joined by -, then the country",
        arguments: [
            ("Paris", "FR", "paris-fr"),
            ("São Paulo", "BR", "sao-paulo-br"),
            ("St. John's", "CA", "st-johns-ca"),
            ("Zürich", "ch", "zurich-ch"),
            ("Großbeeren", "DE", "grossbeeren-de"),
            ("  Saint-Ouen-sur-Seine ", "FR", "saint-ouen-sur-seine-fr"),
            ("東京", "JP", "東京-jp"),
            ("Reykjavík", nil, "reykjavik"),
            ("!!!", "US", "city-us"),
        ] as [(String, String?, String)])
    func idRule(name: String, country: String?, id: String) {
        #expect(CityID.derived(name: name, countryCode: country) == id)
        #expect(CityID.isValid(id))
    }

    @Test("an id key replaces the derived id, and must itself be an id")
    func explicitID() throws {
        let text = """
            [[cities]]
            name = "Springfield"
            country = "US"
            latitude = 39.80172
            longitude = -89.64371
            id = "springfield-il-us"

            [[cities]]
            name = "Springfield"
            country = "US"
            latitude = 37.21533
            longitude = -93.29824
            """
        let settings = try Settings.decode(text, path: p, defaults: userDefaults)
        #expect(settings.cities.map(\.id) == ["springfield-il-us", "springfield-us"])
        #expect(
            problems(in: "[[cities]]\nname = \"X\"\nlatitude = 1\nlongitude = 2\nid = \"Not An Id\"\n") == [
                #"\#(p):5:6: cities[1].id: "Not An Id" is not an id (allowed: lower-case letters and digits in words joined by "-", such as "springfield-il-us")"#
            ])
    }

    @Test("problems name the table by its number, the line and column, and what is allowed")
    func problemsArePlaced() {
        let text = """
            [[cities]]
            name = "Paris"
            country = "FR"
            latitude = 48.85
            longitude = 2.35

            [[cities]]
            name = ""
            country = "France"
            latitude = 91
            longitude = 2.35
            added = "2026-11-22"
            colour = "blue"

            [[cities]]
            country = "FR"
            latitude = 0
            longitude = 0
            favorite = "yes"
            added = 2026-11-22T10:00:00

            [[cities]]
            name = "Paris!"
            country = "fr"
            latitude = 48.86
            longitude = 2.34
            """
        #expect(
            problems(in: text) == [
                #"\#(p):8:8: cities[2].name: must not be empty (allowed: the name to show, such as "Paris")"#,
                #"\#(p):9:11: cities[2].country: "France" is not a country code (allowed: an ISO 3166-1 alpha-2 code such as "FR", or no country key at all)"#,
                "\(p):10:12: cities[2].latitude: 91 is out of range (allowed: -90...90)",
                "\(p):12:9: cities[2].added: expected a date, found a string (allowed: a date written as 2026-11-22, without quotes)",
                "\(p):13:1: cities[2].colour: unknown key (allowed: name, admin1, country, latitude, longitude, favorite, added, id)",
                "\(p):15:1: cities[3].name: missing; every [[cities]] table needs a name, a latitude and a longitude (allowed: a name such as \"Paris\")",
                #"\#(p):17:12: cities[3].latitude: 0, 0 is "null island", where receivers without a fix claim to be (allowed: the city's own coordinates)"#,
                "\(p):19:12: cities[3].favorite: expected a boolean, found a string",
                "\(p):20:9: cities[3].added: expected a date, found a date-time (allowed: a date written as 2026-11-22, without quotes)",
                #"\#(p):23:8: cities[4].name: the id "paris-fr" is already that of cities[1] (Paris, FR) (allowed: each city once; two places of one name need an id key of their own, such as id = "paris-fr-2")"#,
            ])
    }

    @Test("cities must be tables, and retention_days a number of days")
    func wrongShapes() {
        #expect(
            problems(in: "cities = \"Paris\"\n") == [
                "\(p):1:10: cities: expected [[cities]] tables, found a string"
            ])
        // toml++ itself refuses days that do not exist, at the value.
        #expect(
            problems(in: "[[cities]]\nname = \"X\"\nlatitude = 1\nlongitude = 2\nadded = 2026-02-30\n") == [
                "\(p):5:19: invalid TOML: error while parsing date: expected day between 1 and 28 (inclusive), saw 30"
            ])
        #expect(
            problems(in: "[history]\nretention_days = 0\n") == [
                "\(p):2:18: history.retention_days: 0 is out of range (allowed: 1...36500)"
            ])
        #expect(
            problems(in: "[history]\nkeep = 3\n") == [
                "\(p):2:1: history.keep: unknown key (allowed: retention_days)"
            ])
    }

    @Test("config show writes the cities back as [[cities]] tables that decode to the same settings")
    func showRoundTrip() throws {
        var settings = try Settings.decode(citiesFile, path: p, defaults: userDefaults)
        settings.cities.append(
            Settings.City(
                name: "Springfield", admin1: "Illinois", countryCode: "US",
                coordinate: Coordinate(latitude: 39.80172, longitude: -89.64371), explicitID: "springfield-il-us"))
        let shown = settings.toml(origin: "a test")
        #expect(shown.contains("\n[history]\nretention_days = 30\n"))
        #expect(shown.contains("\n[[cities]]\nname = \"São Paulo\"\ncountry = \"BR\"\nlatitude = -23.5475\n"))
        #expect(try Settings.decode(shown, path: "shown", defaults: userDefaults) == settings)
    }

    @Test("a city's place among others: new, a duplicate nearby, another place given its region's id, or a conflict")
    func placement() {
        let paris = Settings.City(
            name: "Paris", admin1: "Île-de-France", countryCode: "FR",
            coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488))
        let springfieldMO = Settings.City(
            name: "Springfield", admin1: "Missouri", countryCode: "US",
            coordinate: Coordinate(latitude: 37.21533, longitude: -93.29824))
        let list = [paris, springfieldMO]

        var nearParis = paris
        nearParis.coordinate = Coordinate(latitude: 48.8566, longitude: 2.3522)
        #expect(nearParis.placed(among: list) == .duplicate(of: paris))

        let illinois = Settings.City(
            name: "Springfield", admin1: "Illinois", countryCode: "US",
            coordinate: Coordinate(latitude: 39.80172, longitude: -89.64371))
        guard case .new(let placed) = illinois.placed(among: list) else {
            Issue.record("Springfield, Illinois should be new")
            return
        }
        #expect(placed.id == "springfield-illinois-us")
        #expect(illinois.placed(among: list + [placed]) == .duplicate(of: placed))

        var noRegion = illinois
        noRegion.admin1 = nil
        #expect(noRegion.placed(among: list) == .conflict(with: springfieldMO))

        let tokyo = Settings.City(name: "東京", countryCode: "JP", coordinate: Coordinate(latitude: 35.6895, longitude: 139.69171))
        #expect(tokyo.placed(among: list) == .new(tokyo))
    }

    @Test("dates: only real days, written YYYY-MM-DD")
    func dates() {
        #expect(CalendarDate("2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDate("2026-02-29") == nil)
        #expect(CalendarDate("2026-1-5") == nil)
        #expect(CalendarDate("2026-11-22T10:00") == nil)
        #expect(CalendarDate(Date(timeIntervalSince1970: 1_795_000_000), in: TimeZone(identifier: "UTC")!).description == "2026-11-18")
    }
}

@Suite("Editing [[cities]] in the text of a settings file")
struct CitiesEditingTests {
    let lyon = Settings.City(
        name: "Lyon", admin1: "Auvergne-Rhône-Alpes", countryCode: "FR",
        coordinate: Coordinate(latitude: 45.74846, longitude: 4.84671), favorite: false,
        added: CalendarDate(year: 2026, month: 11, day: 22))

    @Test("a new city goes after the last [[cities]] table, before the tables that follow; removing it gives the bytes back")
    func appendAfterLastCity() throws {
        var document = SettingsDocument(citiesFile)
        try document.appendCity(lyon)
        let expected = citiesFile.replacingOccurrences(
            of: "longitude = -46.63611\n",
            with: """
                longitude = -46.63611

                [[cities]]
                name = "Lyon"
                admin1 = "Auvergne-Rhône-Alpes"
                country = "FR"
                latitude = 45.74846
                longitude = 4.84671
                favorite = false
                added = 2026-11-22

                """)
        #expect(document.text == expected)
        let settings = try Settings.decode(document.text, path: p, defaults: userDefaults)
        #expect(settings.cities.map(\.id) == ["paris-fr", "sao-paulo-br", "lyon-fr"])
        #expect(settings.history.retentionDays == 30)

        try document.removeCity(at: 2)
        #expect(document.text == citiesFile)
    }

    @Test("the first city goes at the end of a file without cities, CRLF files keep CRLF, and removing it restores the file")
    func appendToFileWithoutCities() throws {
        for lineEnding in ["\n", "\r\n"] {
            let original = commentedFile.replacingOccurrences(of: "\n", with: lineEnding)
            var document = SettingsDocument(original)
            try document.appendCity(lyon)
            let table = [
                "", "[[cities]]", "name = \"Lyon\"", "admin1 = \"Auvergne-Rhône-Alpes\"", "country = \"FR\"",
                "latitude = 45.74846", "longitude = 4.84671", "favorite = false", "added = 2026-11-22",
            ].map { $0 + lineEnding }.joined()
            #expect(document.text == original + table)
            try document.removeCity(at: 0)
            #expect(document.text == original)
        }
        var empty = SettingsDocument("")
        try empty.appendCity(lyon)
        #expect(empty.text.hasPrefix("[[cities]]\nname = \"Lyon\"\n"))
        #expect(try Settings.decode(empty.text, path: p, defaults: userDefaults).cities == [lyon])
    }

    @Test("removing a city in the middle takes its table, its inner comments and the blank line above; comments above stay")
    func removeMiddle() throws {
        var document = SettingsDocument(citiesFile)
        try document.removeCity(at: 0)
        #expect(
            document.text
                == """
                units = "metric"

                # Places I follow.

                # Grandma.
                [[cities]]
                name = "São Paulo"
                country = "br"
                latitude = -23.5475
                longitude = -46.63611

                [history]
                retention_days = 30

                """)
        #expect(throws: SettingsEditError(.invalidRequest, "there is no cities[5] in the file")) {
            try document.removeCity(at: 4)
        }
    }

    @Test("favorite is rewritten in place, or added after the table's last key, in the right table")
    func setFavorite() throws {
        var document = SettingsDocument(citiesFile)
        try document.setFavorite(false, ofCityAt: 0)
        #expect(document.text == citiesFile.replacingOccurrences(of: "favorite = true", with: "favorite = false"))
        try document.setFavorite(true, ofCityAt: 1)
        #expect(
            document.text
                == citiesFile.replacingOccurrences(of: "favorite = true", with: "favorite = false")
                .replacingOccurrences(of: "longitude = -46.63611\n", with: "longitude = -46.63611\nfavorite = true\n"))
        let settings = try Settings.decode(document.text, path: p, defaults: userDefaults)
        #expect(settings.favoriteCities.map(\.id) == ["sao-paulo-br"])
    }

    @Test("cities written as an inline array are refused with a way out")
    func inlineArrayRefused() {
        var document = SettingsDocument("cities = [{ name = \"Paris\", latitude = 48.85, longitude = 2.35 }]\n")
        #expect(throws: SettingsEditError.self) { try document.appendCity(lyon) }
        #expect(throws: SettingsEditError.self) { try document.setFavorite(true, ofCityAt: 0) }
    }

    @Test("the file editor refuses a duplicate city and leaves the file as it was")
    func editorRefusesDuplicate() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(citiesFile, to: "forecastd.toml")
        let paris = Settings.City(name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.8, longitude: 2.3))
        #expect {
            try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) { document throws(SettingsEditError) in
                try document.appendCity(paris)
            }
        } throws: { error in
            let error = error as? SettingsEditError
            return error?.kind == .invalidRequest
                && error?.message.contains(#"cities[3].name: the id "paris-fr" is already that of cities[1]"#) == true
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == citiesFile)

        let edit = try SettingsFileEditor.edit(SettingsEditTarget(path: path, whenMissing: .refuse), environment: userEnvironment) {
            document throws(SettingsEditError) in
            try document.appendCity(lyon)
            try document.setFavorite(true, ofCityAt: 2)
        }
        #expect(edit.written)
        #expect(edit.settings.favoriteCities.map(\.id) == ["paris-fr", "lyon-fr"])
        #expect(
            edit.changes.map(\.description) == [
                #"cities: ["paris-fr", "sao-paulo-br"] → ["paris-fr", "sao-paulo-br", "lyon-fr"]"#,
                #"cities (favorites): ["paris-fr"] → ["paris-fr", "lyon-fr"]"#,
            ])
    }
}
