import ForecastModel
import Foundation
import History
import TestSupport
import Testing

/// The real `forecastctl cities` and `forecastctl history` in a private XDG home: what they print,
/// their exit codes, the bytes they leave in the settings file, and what they read from the database.
@Suite("forecastctl cities and history")
struct CitiesCommandsTests {
    static let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    struct Home {
        let directory: URL
        let environment: [String: String]
        var userFile: String { directory.path + "/config/forecastd/forecastd.toml" }
        var database: String { directory.path + "/state/forecastd/history.sqlite" }

        init() throws {
            directory = try DaemonProcess.makeDirectory()
            // Local days and times in the output are the machine's: UTC here, whatever the host says.
            environment = DaemonProcess.environment(for: directory).merging(["TZ": "UTC"]) { $1 }
        }

        func run(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runTool(CitiesCommandsTests.forecastctl, arguments, environment: environment)
        }

        func settingsText() throws -> String { try String(contentsOfFile: userFile, encoding: .utf8) }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// What a settings file forecastctl creates says before any city is added.
    static let documented = documentedInTestEnvironment

    static var today: String { CalendarDay.today }

    @Test("add resolves names offline (accents folded), lists ambiguous ones, refuses unknown ones, and edits only its table")
    func addListFavoriteRemove() async throws {
        let home = try Home()
        defer { home.remove() }
        let path = home.userFile

        let paris = try await home.run("cities", "add", "Paris")
        #expect(paris.status == 0, "\(paris.stderr)")
        #expect(
            paris.stdout
                == "created \(path) from the settings in effect\n"
                + "added paris-fr: Paris, Île-de-France, FR (48.8534, 2.3488) (\(path))\n")
        #expect(paris.stderr.contains("Paris is Paris, Île-de-France, FR (48.8534, 2.3488; 2.1 M people)"))
        let parisTable = """

            [[cities]]
            name = "Paris"
            admin1 = "Île-de-France"
            country = "FR"
            latitude = 48.85341
            longitude = 2.3488
            favorite = false
            added = \(Self.today)

            """
        #expect(try home.settingsText() == Self.documented + parisTable)

        // Without accents, and as a favourite.
        let saoPaulo = try await home.run("cities", "add", "Sao", "Paulo", "--favorite")
        #expect(saoPaulo.status == 0)
        #expect(
            saoPaulo.stdout == "added sao-paulo-br: São Paulo, São Paulo, BR (-23.5475, -46.6361), a favourite (\(path))\n")
        let withBoth = try home.settingsText()
        #expect(withBoth.hasSuffix("name = \"São Paulo\"\nadmin1 = \"São Paulo\"\ncountry = \"BR\"\nlatitude = -23.5475\nlongitude = -46.63611\nfavorite = true\nadded = \(Self.today)\n"))

        // Ambiguous and unknown names add nothing and say why.
        let hamilton = try await home.run("cities", "add", "Hamilton")
        #expect(hamilton.status == 64)
        #expect(hamilton.stdout == "")
        #expect(hamilton.stderr.hasPrefix("forecastctl: \"Hamilton\" matches several places; nothing was added."))
        #expect(hamilton.stderr.contains("\n  Hamilton, Ontario, CA (43.2501, -79.8496; 569 k people)\n"))
        #expect(hamilton.stderr.contains("\n  Hamilton, Waikato Region, NZ (-37.7833, 175.2833; 192 k people)\n"))
        let unknown = try await home.run("cities", "add", "Xyzzyville")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no place named \"Xyzzyville\" is known offline"))
        #expect(unknown.stderr.contains("nothing was added"))
        let again = try await home.run("cities", "add", "PARIS, fr")
        #expect(again.status == 0)
        #expect(again.stdout == "Paris, Île-de-France, FR is already listed as paris-fr, unchanged\n")
        #expect(try home.settingsText() == withBoth)

        let list = try await home.run("cities", "list")
        #expect(
            list.stdout
                == """
                   ID            NAME       REGION         COUNTRY  LATITUDE  LONGITUDE  ADDED
                   paris-fr      Paris      Île-de-France  FR        48.8534     2.3488  \(Self.today)
                ★  sao-paulo-br  São Paulo  São Paulo      BR       -23.5475   -46.6361  \(Self.today)

                """)
        let json = try await home.run("cities", "list", "--json")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.map { $0["id"] as? String } == ["paris-fr", "sao-paulo-br"])
        #expect(decoded?.first?["admin1"] as? String == "Île-de-France")

        let favorite = try await home.run("cities", "favorite", "paris")
        #expect(favorite.stdout == "paris-fr is now a favourite (\(path))\n")
        let unfavorite = try await home.run("cities", "unfavorite", "São Paulo")
        #expect(unfavorite.stdout == "sao-paulo-br is no longer a favourite (\(path))\n")
        let still = try await home.run("cities", "unfavorite", "sao-paulo-br")
        #expect(still.stdout == "sao-paulo-br is not a favourite, unchanged\n")
        // Only the two values changed (the commented-out example in the documented part stays as it is).
        let tables = String(withBoth.dropFirst(Self.documented.count))
        #expect(
            try home.settingsText()
                == Self.documented
                + tables.replacingOccurrences(of: "favorite = false", with: "FAVORITE")
                .replacingOccurrences(of: "favorite = true", with: "favorite = false")
                .replacingOccurrences(of: "FAVORITE", with: "favorite = true"))

        let missing = try await home.run("cities", "remove", "Lyon")
        #expect(missing.status == 64)
        #expect(missing.stderr == "forecastctl: no city \"Lyon\" in the list (the list has paris-fr, sao-paulo-br)\n")

        // Removing both gives back the documented file, byte for byte.
        let removeSaoPaulo = try await home.run("cities", "remove", "sao-paulo-br")
        #expect(removeSaoPaulo.stdout == "removed sao-paulo-br: São Paulo, São Paulo, BR (-23.5475, -46.6361) (\(path))\n")
        let removeParis = try await home.run("cities", "remove", "Paris, FR")
        #expect(removeParis.status == 0)
        #expect(try home.settingsText() == Self.documented)
    }

    @Test("two places of one name get distinct ids; a bare shared name asks for the id")
    func sameNameTwice() async throws {
        let home = try Home()
        defer { home.remove() }
        #expect(try await home.run("cities", "add", "Springfield, Illinois").status == 0)
        let missouri = try await home.run("cities", "add", "Springfield, MO", "--favorite")
        #expect(missouri.stdout.hasPrefix("added springfield-missouri-us: Springfield, Missouri, US (37.2153, -93.2982)"))
        #expect(try home.settingsText().hasSuffix("favorite = true\nadded = \(Self.today)\nid = \"springfield-missouri-us\"\n"))
        let which = try await home.run("cities", "favorite", "Springfield")
        #expect(which.status == 64)
        #expect(
            which.stderr
                == "forecastctl: \"Springfield\" is the name of several cities; name one by its id:\n"
                + "  springfield-us: Springfield, Illinois, US (39.8017, -89.6437)\n"
                + "  springfield-missouri-us: Springfield, Missouri, US (37.2153, -93.2982)\n")
    }

    @Test("export writes the favourites as CSV that import reads back to the same list")
    func exportImportRoundTrip() async throws {
        let home = try Home()
        defer { home.remove() }
        let settings = """
            # My cities.
            [[cities]]
            name = "Washington, D.C."
            admin1 = "District of Columbia"
            country = "US"
            latitude = 38.89511
            longitude = -77.03637
            favorite = true
            added = 2026-11-20

            [[cities]]
            name = "The \\"Old\\" Town"
            admin1 = "Zürich"
            country = "CH"
            latitude = 47.37
            longitude = 8.54
            favorite = true

            [[cities]]
            name = "Lyon"
            country = "FR"
            latitude = 45.74846
            longitude = 4.84671

            """
        try FileManager.default.createDirectory(
            atPath: home.directory.path + "/config/forecastd", withIntermediateDirectories: true)
        try Data(settings.utf8).write(to: URL(fileURLWithPath: home.userFile))
        let csvPath = home.directory.path + "/favourites.csv"

        let export = try await home.run("cities", "export", csvPath)
        #expect(export.status == 0)
        #expect(export.stdout == "wrote 2 favourites to \(csvPath)\n")
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        #expect(
            csv
                == "name,admin1,country,latitude,longitude,added\r\n"
                + "\"Washington, D.C.\",District of Columbia,US,38.89511,-77.03637,2026-11-20\r\n"
                + "\"The \"\"Old\"\" Town\",Zürich,CH,47.37,8.54,\r\n")

        // Into an empty list: the same favourites, in the same order.
        let emptyHome = try Home()
        defer { emptyHome.remove() }
        let imported = try await emptyHome.run("cities", "import", csvPath)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.hasSuffix(
                "\(csvPath): 2 added, 0 made favourites, 0 duplicates, 0 bad lines skipped (\(emptyHome.userFile))\n"))
        let exportedAgain = try await emptyHome.run("cities", "export", "-")
        #expect(exportedAgain.stdout == csv)

        // Into the list it came from: nothing but duplicates, and the file stays as it was.
        let duplicates = try await home.run("cities", "import", csvPath)
        #expect(duplicates.status == 0)
        #expect(duplicates.stdout == "\(csvPath): 0 added, 0 made favourites, 2 duplicates, 0 bad lines skipped; the list is unchanged\n")
        #expect(duplicates.stderr.contains("\(csvPath):2: duplicate: washington-d-c-us is already listed; unchanged"))
        #expect(try home.settingsText() == settings)
    }

    @Test("import: an unusable file changes nothing (exit 65); bad lines are skipped by number and the rest imported (exit 2)")
    func importProblems() async throws {
        let home = try Home()
        defer { home.remove() }
        #expect(try await home.run("cities", "add", "Lyon").status == 0)
        let before = try home.settingsText()

        let noColumns = home.directory.path + "/columns.csv"
        try Data("city;lat;lon\r\nParis;48.85;2.35\r\n".utf8).write(to: URL(fileURLWithPath: noColumns))
        let refused = try await home.run("cities", "import", noColumns)
        #expect(refused.status == 65)
        #expect(
            refused.stderr
                == "forecastctl: \(noColumns): line 1: the header \"city;lat;lon\" lacks the columns name, latitude, longitude; "
                + "expected name,admin1,country,latitude,longitude,added (name, latitude and longitude are required); nothing was changed\n")
        #expect(try home.settingsText() == before)

        let mixed = home.directory.path + "/mixed.csv"
        try Data(
            "name,country,latitude,longitude\r\nNice,FR,43.70313,7.26608\r\n\"Nowhere, really\",FR,91,2\r\nLyon,FR,45.75,4.85\r\nMarseille,FR,43.2965,5.3698\r\n"
                .utf8
        ).write(to: URL(fileURLWithPath: mixed))
        let partial = try await home.run("cities", "import", mixed)
        #expect(partial.status == 2)
        #expect(
            partial.stdout
                == "\(mixed):2: added nice-fr: Nice, FR (43.7031, 7.2661)\n"
                + "\(mixed):4: lyon-fr was listed; now a favourite\n"
                + "\(mixed):5: added marseille-fr: Marseille, FR (43.2965, 5.3698)\n"
                + "\(mixed): 2 added, 1 made favourites, 0 duplicates, 1 bad line skipped (\(home.userFile))\n")
        #expect(
            partial.stderr.contains(
                "forecastctl: \(mixed):3: skipped: Nowhere, really: latitude \"91\" is not a number from -90 to 90\n"))
        let list = try await home.run("cities", "list", "--json")
        let decoded = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.map { $0["id"] as? String } == ["lyon-fr", "nice-fr", "marseille-fr"])
        #expect(decoded?.map { $0["favorite"] as? Bool } == [true, true, true])
    }

    @Test("history reads the database the daemon writes: a table by day, a chart, CSV and JSON, in the settings' units")
    func history() async throws {
        let home = try Home()
        defer { home.remove() }
        #expect(try await home.run("cities", "add", "Paris", "--favorite").status == 0)

        let noDatabase = try await home.run("history", "paris")
        #expect(noDatabase.status == 1)
        #expect(noDatabase.stderr.hasPrefix("forecastctl: \(home.database): no such file: no history has been recorded yet"))

        // Three days of refreshes every three hours, written as the daemon writes them, then closed.
        let start = Date(timeIntervalSince1970: 1_795_219_200)  // 2026-11-21 00:00 UTC
        do {
            let store = try HistoryStore(path: home.database)
            for step in 0..<16 {
                let time = start.addingTimeInterval(Double(step) * 10_800)
                let forecast = Forecast(
                    provider: "open-meteo", attribution: "", coordinate: Coordinate(latitude: 48.85, longitude: 2.35),
                    fetchedAt: time, utcOffsetSeconds: 3600, timezone: "Europe/Paris",
                    current: CurrentConditions(
                        time: time, temperature: 5 + Double(step % 8), apparentTemperature: 2, humidity: 80,
                        windSpeed: 10, precipitation: step == 5 ? 1.5 : 0, pressure: 1010,
                        condition: step % 8 < 4 ? .rain : .overcast),
                    hourly: [],
                    daily: [
                        DailyForecast(
                            date: Timestamps.localDate(time.addingTimeInterval(86_400), utcOffsetSeconds: 0),
                            temperatureMin: 4, temperatureMax: 12, precipitationSum: 2.5)
                    ])
                try await store.record(cityID: "paris-fr", forecast: forecast)
            }
            try store.close()
        }

        let table = try await home.run("history", "Paris", "--since", "2026-11-21", "--days", "2")
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 9)
        #expect(lines[0] == "Paris, Île-de-France, FR (paris-fr), 2026-11-21 00:00 to 2026-11-23 00:00")
        #expect(lines[1] == "DAY         READINGS  LOW °C  HIGH °C  FORECAST °C  FORECAST mm  MOSTLY")
        // Nothing was recorded before the 21st, so no forecast for it was issued before it began.
        #expect(lines[2] == "2026-11-21         8     5.0     12.0            —            —  Overcast")
        #expect(lines[3] == "2026-11-22         8     5.0     12.0     4.0–12.0          2.5  Overcast")
        #expect(lines[5].hasPrefix("temperature    ▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█  5.0–12.0 °C"))
        #expect(lines[6].hasPrefix("precipitation  ·····█··········  max 1.5 mm"))
        #expect(lines[7] == "               2026-11-21 00:00 … 2026-11-22 21:00")

        let csv = try await home.run("history", "paris-fr", "--since", "2026-11-21T00:00:00Z", "--days", "1", "--csv")
        let rows = csv.stdout.components(separatedBy: "\r\n")
        #expect(rows.count == 10)
        #expect(
            rows[0]
                == "time,provider,temperature_c,apparent_temperature_c,humidity_percent,wind_speed_kmh,wind_direction_degrees,wind_gusts_kmh,precipitation_mm,pressure_hpa,condition")
        #expect(rows[1] == "2026-11-21T00:00:00Z,open-meteo,5.0,2.0,80.0,10.0,,,0.0,1010.0,rain")
        #expect(rows[9] == "")

        // The settings' units apply: imperial converts what the database keeps in metric.
        #expect(try await home.run("units", "imperial").status == 0)
        let json = try await home.run("history", "paris", "--since", "2026-11-21", "--days", "1", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["units"] as? String == "imperial")
        let readings = object?["readings"] as? [[String: Any]]
        #expect(readings?.count == 8)
        #expect(readings?.first?["temperature"] as? Double == 41)
        #expect(readings?.first?["time"] as? String == "2026-11-21T00:00:00Z")
        #expect((object?["forecasts"] as? [[String: Any]])?.first?["temperature_max"] as? Double == 53.6)
        #expect((object?["unit_symbols"] as? [String: Any])?["wind_speed"] as? String == "mph")

        // Units per quantity: each column names its unit, each value is rounded as that unit is read.
        #expect(try await home.run("units", "wind", "kn").status == 0)
        #expect(try await home.run("units", "pressure", "mmhg").status == 0)
        let knots = try await home.run("history", "paris-fr", "--since", "2026-11-21T00:00:00Z", "--days", "1", "--csv")
        let knotRows = knots.stdout.components(separatedBy: "\r\n")
        #expect(
            knotRows[0]
                == "time,provider,temperature_f,apparent_temperature_f,humidity_percent,wind_speed_kn,wind_direction_degrees,wind_gusts_kn,precipitation_in,pressure_mmhg,condition")
        #expect(knotRows[1] == "2026-11-21T00:00:00Z,open-meteo,41.0,35.6,80.0,5.0,,,0.0,758.0,rain")

        let both = try await home.run("history", "paris", "--csv", "--json")
        #expect(both.status == 64)
        let stranger = try await home.run("history", "Lyon")
        #expect(stranger.status == 64)
        #expect(stranger.stderr.contains("no city \"Lyon\" in the list"))
    }
}

/// Today's date in UTC, as `cities add` writes `added` in the tests' time zone.
enum CalendarDay {
    static var today: String {
        Timestamps.localDate(Date(), utcOffsetSeconds: 0)
    }
}

@Suite("cities add: the online place search", .serialized)
struct OnlinePlaceSearchTests {
    @Test("a place the gazetteer lacks is searched online when geocoding_url is set; ambiguous, unknown and failing searches add nothing")
    func onlineSearch() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: "/v1/search", try .fixture("open-meteo/geocoding-search-hollywood.json"))
        let home = try CitiesCommandsTests.Home()
        defer { home.remove() }

        // Off by default: the name stays on the machine, and the message says how to allow the search.
        let offline = try await home.run("cities", "add", "Hollywood, Maryland")
        #expect(offline.status == 64)
        #expect(offline.stderr.contains("no place named \"Hollywood, Maryland\" is known offline"))
        #expect(offline.stderr.contains("geocoding_url"))
        #expect(server.requests().isEmpty)

        let set = try await home.run("set", "providers.open_meteo.geocoding_url", server.url("/v1/search").absoluteString)
        #expect(set.status == 0, "\(set.stderr)")
        let before = try home.settingsText()

        let added = try await home.run("cities", "add", "Hollywood, Maryland")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("(found online)"))
        #expect(added.stdout.hasPrefix("added hollywood-us: Hollywood, Maryland, US"))
        let request = try #require(server.requests().first)
        #expect(request.query["name"] == "Hollywood")
        #expect(request.header("User-Agent")?.hasPrefix("forecastctl/") == true)
        #expect(try home.settingsText().contains("latitude = 38.34596"))

        // Two Hollywoods in Alabama: listed, nothing added.
        let afterAdd = try home.settingsText()
        let ambiguous = try await home.run("cities", "add", "Hollywood, Alabama")
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("matches several places (found online)"))
        #expect(try home.settingsText() == afterAdd)

        // Nothing online either, and a service that fails: clear messages, nothing added.
        server.setRoute(path: "/v1/search", try .fixture("open-meteo/geocoding-search-no-results.json"))
        let unknown = try await home.run("cities", "add", "Xyzzyville")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no place named \"Xyzzyville\" is known offline or online"))
        server.setRoute(path: "/v1/search", .html("<html>502 Bad Gateway</html>"))
        let failing = try await home.run("cities", "add", "Xyzzyville")
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("the online search failed"))
        #expect(try home.settingsText() == afterAdd)
        #expect(before != afterAdd)
        try await server.shutdown()
    }
}
