import CitiesCSV
import ForecastModel
import Foundation
import Settings
import Testing

/// Cities whose names and regions need quoting: quotes, commas, accents and a line break.
let awkwardCities = [
    Settings.City(
        name: "São Paulo", admin1: "São Paulo", countryCode: "BR",
        coordinate: Coordinate(latitude: -23.5475, longitude: -46.63611), favorite: true,
        added: CalendarDate(year: 2026, month: 11, day: 20)),
    Settings.City(
        name: "Washington, D.C.", admin1: "District of Columbia", countryCode: "US",
        coordinate: Coordinate(latitude: 38.89511, longitude: -77.03637), favorite: true),
    Settings.City(
        name: "The \"Old\" Town", admin1: "Zürich", countryCode: "CH",
        coordinate: Coordinate(latitude: 47.37, longitude: 8.54), favorite: true,
        added: CalendarDate(year: 2026, month: 1, day: 2)),
    Settings.City(
        name: "Llanfair PG", admin1: "Wales\r\nYnys Môn", countryCode: "GB",
        coordinate: Coordinate(latitude: 53.22, longitude: -4.2), favorite: true),
    Settings.City(
        name: "Reykjavík", coordinate: Coordinate(latitude: 64.13548, longitude: -21.89541), favorite: true),
]

@Suite("Favourite cities as CSV")
struct CitiesCSVTests {
    @Test("export is RFC 4180: a header, CRLF line ends, and quotes only where a field needs them")
    func exportFormat() {
        let text = CitiesCSV.write(awkwardCities)
        #expect(
            text
                == "name,admin1,country,latitude,longitude,added\r\n"
                + "São Paulo,São Paulo,BR,-23.5475,-46.63611,2026-11-20\r\n"
                + "\"Washington, D.C.\",District of Columbia,US,38.89511,-77.03637,\r\n"
                + "\"The \"\"Old\"\" Town\",Zürich,CH,47.37,8.54,2026-01-02\r\n"
                + "Llanfair PG,\"Wales\r\nYnys Môn\",GB,53.22,-4.2,\r\n"
                + "Reykjavík,,,64.13548,-21.89541,\r\n")
        #expect(CitiesCSV.write([]) == "name,admin1,country,latitude,longitude,added\r\n")
    }

    @Test("an exported file re-imports to the same list, and again to nothing but duplicates")
    func roundTrip() throws {
        let data = Data(CitiesCSV.write(awkwardCities).utf8)
        let imported = try CitiesCSV.read(data, existing: [])
        #expect(imported.added.map(\.city) == awkwardCities)
        // The line break inside the quoted region moves the next city's line on.
        #expect(imported.added.map(\.line) == [2, 3, 4, 5, 7])
        #expect(imported.badRows.isEmpty && imported.duplicates.isEmpty && imported.ignoredColumns.isEmpty)

        let again = try CitiesCSV.read(data, existing: awkwardCities)
        #expect(again.added.isEmpty && again.favorited.isEmpty)
        #expect(again.duplicates.map(\.line) == [2, 3, 4, 5, 7])
        #expect(again.duplicates.map(\.city) == awkwardCities)
    }

    @Test("LF line ends, a byte-order mark, columns in another order and case, and unknown columns are accepted")
    func forgivingReading() throws {
        let text = "\u{FEFF}Latitude , NAME,longitude,notes\n48.85341,Paris,2.3488,the capital\n\n45.74846,Lyon,4.84671,\n"
        let imported = try CitiesCSV.read(Data(text.utf8), existing: [])
        #expect(
            imported.added.map(\.city) == [
                Settings.City(name: "Paris", coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488), favorite: true),
                Settings.City(name: "Lyon", coordinate: Coordinate(latitude: 45.74846, longitude: 4.84671), favorite: true),
            ])
        #expect(imported.added.map(\.line) == [2, 4])
        #expect(imported.ignoredColumns == ["notes"])
    }

    @Test(
        "an unusable file is refused as a whole, saying why",
        arguments: [
            ("", "is empty; expected a header line name,admin1,country,latitude,longitude,added"),
            (" \r\n\r\n", "is empty; expected a header line name,admin1,country,latitude,longitude,added"),
            (
                "name,admin1,country\nParis,,FR\n",
                "line 1: the header \"name,admin1,country\" lacks the columns latitude, longitude; expected name,admin1,country,latitude,longitude,added (name, latitude and longitude are required)"
            ),
            (
                "Paris,48.85,2.35\n",
                "line 1: the header \"Paris,48.85,2.35\" lacks the columns name, latitude, longitude; expected name,admin1,country,latitude,longitude,added (name, latitude and longitude are required)"
            ),
            ("name,latitude,longitude,Name\nParis,48.85,2.35,x\n", "line 1: names the column name twice"),
            (
                "name,latitude,longitude\n\"Paris,48.85,2.35\nLyon,45.7,4.8\n",
                "has a quoted field that is never closed (an odd number of \" characters), so its lines cannot be told apart"
            ),
        ])
    func unusableFiles(text: String, message: String) {
        #expect(throws: CitiesCSVError.self) { try CitiesCSV.read(Data(text.utf8), existing: []) }
        do {
            _ = try CitiesCSV.read(Data(text.utf8), existing: [])
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a file that is not UTF-8 text is refused")
    func notUTF8() {
        let latin1 = Data("name,latitude,longitude\nS\u{E3}o Paulo,-23.5,-46.6\n".data(using: .isoLatin1)!)
        #expect(throws: CitiesCSVError(line: nil, message: "is not UTF-8 text; save it as CSV in UTF-8")) {
            try CitiesCSV.read(latin1, existing: [])
        }
    }

    @Test("bad rows and duplicates are reported by line; the good rows are taken; listed cities become favourites")
    func badRowsAndDuplicates() throws {
        let lyon = Settings.City(
            name: "Lyon", countryCode: "FR", coordinate: Coordinate(latitude: 45.74846, longitude: 4.84671),
            favorite: false)
        let paris = Settings.City(
            name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488),
            favorite: true)
        let text = [
            "name,admin1,country,latitude,longitude,added",
            "Nice,\"Provence-Alpes-\nCôte d'Azur\",FR,43.70313,7.26608,2026-11-22",  // lines 2-3
            "Paris,,,48.8566,2.3522,",  // 4: Paris is listed (a favourite), here without a country: duplicate
            "Lyon,,fr,45.75,4.85,",  // 5: Lyon is listed, not a favourite: becomes one
            "Nice,,FR,43.7,7.27,",  // 6: same as line 2
            "Nowhere,,FR,abc,2.0,",  // 7
            "Far,,FR,48.0,181,",  // 8
            "Null,,,0,0,",  // 9
            ",,FR,48.0,2.0,",  // 10
            "Short,FR,48.0,2.0",  // 11
            "Bad country,,FRA,48.0,2.0,",  // 12
            "Bad date,,FR,48.0,2.0,22/11/2026",  // 13
            "Lyon,,FR,45.76,4.84,",  // 14: Lyon again
            "Marseille,,FR, 43.29695 , 5.38107 ,",  // 15
        ].joined(separator: "\r\n")
        let imported = try CitiesCSV.read(Data(text.utf8), existing: [paris, lyon])
        #expect(imported.added.map(\.line) == [2, 15])
        #expect(imported.added.map(\.city.id) == ["nice-fr", "marseille-fr"])
        #expect(imported.added[0].city.admin1 == "Provence-Alpes-\nCôte d'Azur")
        #expect(imported.added[1].city.coordinate == Coordinate(latitude: 43.29695, longitude: 5.38107))
        #expect(imported.favorited.map(\.line) == [5])
        #expect(imported.favorited.map(\.city) == [lyon])
        #expect(
            imported.duplicates.map { "\($0.line): \($0.city.id) \($0.earlierLine.map(String.init) ?? "-")" } == [
                "4: paris-fr -", "6: nice-fr 2", "14: lyon-fr 5",
            ])
        #expect(
            imported.badRows.map { "\($0.line): \($0.message)" } == [
                "7: Nowhere: latitude \"abc\" is not a number from -90 to 90",
                "8: Far: longitude \"181\" is not a number from -180 to 180",
                "9: Null: 0, 0 is \"null island\", not a city",
                "10: the name is empty",
                "11: has 4 fields; the header has 6",
                "12: Bad country: country \"FRA\" is not a two-letter ISO 3166-1 code such as FR",
                "13: Bad date: added \"22/11/2026\" is not a date such as 2026-11-22",
            ])
    }

    @Test("a second place of a listed name gets its region's id; without a region it is a bad row")
    func sameNameElsewhere() throws {
        let missouri = Settings.City(
            name: "Springfield", admin1: "Missouri", countryCode: "US",
            coordinate: Coordinate(latitude: 37.21533, longitude: -93.29824), favorite: true)
        let text = "name,admin1,country,latitude,longitude\nSpringfield,Illinois,US,39.80172,-89.64371\nSpringfield,,US,42.1,-72.59\n"
        let imported = try CitiesCSV.read(Data(text.utf8), existing: [missouri])
        #expect(imported.added.map(\.city.id) == ["springfield-illinois-us"])
        #expect(
            imported.badRows.map(\.line) == [3])
        #expect(imported.badRows.first?.message.hasPrefix("Springfield, US: its id \"springfield-us\" belongs to Springfield, Missouri, US") == true)
    }
}
