import ArgumentParser
import CitiesCSV
import Control
import FileStore
import ForecastModel
import Foundation
import Gazetteer
import Rendering
import Settings

// The commands that keep the list of cities in the settings file: cities add, remove, list,
// favorite, unfavorite, export and import.

extension ExitCode {
    /// A CSV file that cannot be used at all (EX_DATAERR); nothing was changed.
    static let dataError = ExitCode(65)
    /// An import that took the good lines and skipped bad ones.
    static let partialImport = ExitCode(2)
}

let cityArgumentHelp = """
    A city is named by its id (paris-fr, as `forecastctl cities list` shows), its name as listed \
    (Paris; an error lists the ids when several cities share it), or its name and country (Paris, FR).
    """

/// The words naming one listed city (``cityArgumentHelp``), for every command that acts on one. Taken as
/// they come, so a name with spaces needs no quotes.
struct CityWordsArgument: ParsableArguments {
    @Argument(
        parsing: .allUnrecognized, help: ArgumentHelp("The city's id or name.", valueName: "NAME|ID"),
        completion: Completions.cityIDs)
    var words: [String] = []
}

struct CitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cities",
        abstract: "Keep a list of cities besides where you are; favourites have their weather recorded.",
        discussion: """
            The list is the [[cities]] tables of the settings file, so editing the file works too. Each city has \
            an id: its name folded to lower-case letters and digits joined by "-", then "-" and its country code \
            (São Paulo in BR is sao-paulo-br); docs/cities.md has the details.
            """,
        subcommands: [
            AddCommand.self, RemoveCommand.self, ListCommand.self, FavoriteCommand.self, UnfavoriteCommand.self,
            ExportCommand.self, ImportCommand.self,
        ])

    struct AddCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Look a place up by name (offline) and add it to the list.",
            discussion: """
                Names are looked up in the offline gazetteer (places of 1000 inhabitants and more): Paris, \
                "Paris, FR", "Paris, Texas", "São Paulo" or "Sao Paulo"; accents and case do not matter. \
                Coordinates work too (48.8566,2.3522), named after the nearest place unless --name is given. \
                forecastctl prints the place it picked; a name that fits several places lists them and adds \
                nothing, and so does a name it does not know. The providers' online search is not asked.

                A place already listed (the same name or id, within 25 km) is left as it is. A second place of a listed \
                name gets the id of its name, region and country (springfield-illinois-us), or the one --id gives.

                """ + editDiscussion + "\n\n" + editExitCodes)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Make the city a favourite: forecastd records its weather.")
        var favorite = false

        @Option(name: .long, help: "The name to show (default: the gazetteer's name for the place).")
        var name: String?

        @Option(name: .long, help: ArgumentHelp("The id to give the city (default: the id rule's).", valueName: "ID"))
        var id: String?

        // Negative numbers look like options to the parser: take the words as they come.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("A place name or coordinates.", valueName: "NAME"))
        var words: [String] = []

        func validate() throws {
            if let id, !CityID.isValid(id) {
                throw ValidationError(
                    "--id \"\(id)\" is not an id (allowed: lower-case letters and digits in words joined by \"-\")")
            }
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--name must not be empty")
            }
        }

        func run() throws {
            try reportingFailures {
                let text = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else {
                    throw CommandFailure(message: "cities add needs a place, e.g. `forecastctl cities add Paris`", exitCode: .usage)
                }
                let place = try resolvePlace(text)
                let city = Settings.City(
                    name: name ?? place.name, admin1: place.admin1, countryCode: place.countryCode,
                    coordinate: place.coordinate, favorite: favorite, added: CalendarDate(Date()), explicitID: id)
                try addCity(city, global: global)
            }
        }

        /// The place `text` names: coordinates (named after the nearest place), or a name looked up offline.
        private func resolvePlace(_ text: String) throws -> Place {
            let gazetteer: Gazetteer
            do {
                gazetteer = try Gazetteer.loadDefault()
            } catch {
                throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
            }
            if let pin = try? CoordinateParser.parse(text) {
                guard var place = gazetteer.nearestPlace(to: pin.coordinate) else {
                    throw CommandFailure(message: "no place is known near \(text)", exitCode: .requestFailed)
                }
                // The point given is the city's position; the nearest place only lends its name and region.
                place.coordinate = pin.coordinate
                if name == nil, let label = pin.name { place.name = label }
                return place
            }
            switch gazetteer.resolve(text) {
            case .unique(let place):
                note("\(text) is \(place.summary)")
                return place
            case .ambiguous(let places):
                let list = places.map { "  " + $0.summary }.joined(separator: "\n")
                throw CommandFailure(
                    message: "\"\(text)\" matches several places; nothing was added. Name one more precisely, e.g. "
                        + "\"\(text), \(places[0].countryCode)\" or \"\(text), \(places[0].admin1 ?? places[0].country)\":\n\(list)",
                    exitCode: .usage)
            case .notFound:
                let settings = try global.loadSettings()
                guard let url = settings.providers.openMeteo.geocodingURL else {
                    throw CommandFailure(
                        message: "no place named \"\(text)\" is known offline (places of 1000 inhabitants and more); "
                            + "nothing was added. Check the spelling, give coordinates and --name, or allow an online "
                            + "search with `forecastctl set providers.open_meteo.geocoding_url "
                            + "https://geocoding-api.open-meteo.com/v1/search`",
                        exitCode: .usage)
                }
                return try OnlinePlaceSearch.resolve(text, url: url, timeout: settings.providers.openMeteo.timeout)
            }
        }
    }

    struct RemoveCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a city from the list.",
            discussion: cityArgumentHelp + """
                 Its [[cities]] table is removed from the settings file; comments above it stay. Readings already \
                recorded stay in the history database until [history] retention_days removes them.

                """ + "\n" + editDiscussion + "\n\n" + editExitCodes)

        @OptionGroup var global: GlobalOptions

        @OptionGroup var cityWords: CityWordsArgument

        func run() throws {
            try reportingFailures {
                let (index, city) = try findCity(cityWords.words, in: global.loadSettings().cities)
                let edit = try editSettings(global) { document throws(SettingsEditError) in
                    try document.removeCity(at: index)
                }
                print("removed \(city.id): \(describeCity(city)) (\(edit.path))")
            }
        }
    }

    struct FavoriteCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "favorite",
            abstract: "Make a city a favourite: forecastd records its weather in the history database.",
            discussion: cityArgumentHelp + "\n\n" + editDiscussion + "\n\n" + editExitCodes)

        @OptionGroup var global: GlobalOptions

        @OptionGroup var cityWords: CityWordsArgument

        func run() throws {
            try setFavorite(true, words: cityWords.words, global: global)
        }
    }

    struct UnfavoriteCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unfavorite",
            abstract: "Stop recording a city's weather; it stays in the list, and its history stays in the database.",
            discussion: cityArgumentHelp + "\n\n" + editDiscussion + "\n\n" + editExitCodes)

        @OptionGroup var global: GlobalOptions

        @OptionGroup var cityWords: CityWordsArgument

        func run() throws {
            try setFavorite(false, words: cityWords.words, global: global)
        }
    }

    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the cities: id, name, region, country, coordinates, favourite (★) and date added.",
            discussion: "Exit codes: 0 success; 78 the settings file is invalid.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print the list as one JSON array, for scripts.")
        var json = false

        func run() throws {
            try reportingFailures {
                let settings = try global.loadSettings()
                let cities = settings.cities
                let translation = settings.phrases.translation
                if json {
                    print(CitiesJSON.line(cities))
                    return
                }
                guard !cities.isEmpty else {
                    print(translation.text("no cities yet; add one with `forecastctl cities add NAME`", context: "cities"))
                    return
                }
                let rows = cities.map { city in
                    [
                        city.favorite ? "★" : " ", city.id, city.name, city.admin1 ?? "", city.countryCode ?? "",
                        String(format: "%.4f", city.coordinate.latitude), String(format: "%.4f", city.coordinate.longitude),
                        city.added?.description ?? "",
                    ]
                }
                print(
                    TextTable.render(
                        header: [""]
                            + ["ID", "NAME", "REGION", "COUNTRY", "LATITUDE", "LONGITUDE", "ADDED"].map {
                                translation.text($0, context: "cities table")
                            }, rows: rows,
                        rightAligned: [5, 6]))
            }
        }
    }
}

// MARK: - Shared

/// What `addCity` did.
enum CityAddition {
    /// The city was appended to the list, with the id it got.
    case added(Settings.City)
    /// A city already listed is the same place (the same name or id, within 25 km): nothing changed.
    case listed(Settings.City)
}

/// Adds `city` to the list as `cities add` does, and prints what it did: a place already listed is left as
/// it is; a new place whose id is taken gets its name, region and country's id, or is refused when the id
/// was asked for (`city.explicitID`). `forecastctl pick`'s "Add to my cities" uses it too.
@discardableResult
func addCity(_ city: Settings.City, global: GlobalOptions) throws -> CityAddition {
    var city = city
    let current = try global.loadSettings().cities
    switch city.placed(among: current) {
    case .new(let placed):
        city = placed
    case .duplicate(let listed) where city.explicitID == nil || listed.id == city.explicitID:
        print("\(listed.label) is already listed as \(listed.id), unchanged")
        if city.favorite && !listed.favorite {
            note("it is not a favourite; `forecastctl cities favorite \(listed.id)` makes it one")
        }
        return .listed(listed)
    case .duplicate(let listed), .conflict(let listed):
        throw CommandFailure(
            message: "the id \"\(city.id)\" is already that of \(listed.label); nothing was added. Give this "
                + "place an id of its own with --id, e.g. --id \(city.id)-2",
            exitCode: .usage)
    }
    let edit = try editSettings(global) { document throws(SettingsEditError) in
        try document.appendCity(city)
    }
    print("added \(city.id): \(describeCity(city))\(city.favorite ? ", a favourite" : "") (\(edit.path))")
    return .added(city)
}

/// Sets `favorite` on the city `words` names.
private func setFavorite(_ favorite: Bool, words: [String], global: GlobalOptions) throws {
    try reportingFailures {
        let (index, city) = try findCity(words, in: global.loadSettings().cities)
        guard city.favorite != favorite else {
            print("\(city.id) is \(favorite ? "already a favourite" : "not a favourite"), unchanged")
            return
        }
        let edit = try editSettings(global) { document throws(SettingsEditError) in
            try document.setFavorite(favorite, ofCityAt: index)
        }
        print("\(city.id) is \(favorite ? "now a favourite" : "no longer a favourite") (\(edit.path))")
    }
}

/// The city `words` names in `cities`, with its index: by id, by name and country (`Paris, FR`),
/// or by name alone when only one city has it.
func findCity(_ words: [String], in cities: [Settings.City]) throws -> (Int, Settings.City) {
    let text = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty else {
        throw CommandFailure(message: "name a city by its id or name, e.g. paris-fr", exitCode: .usage)
    }
    if let index = cities.firstIndex(where: { $0.id == text }) { return (index, cities[index]) }
    let slug = CityID.slug(text)
    if let index = cities.firstIndex(where: { $0.id == slug }) { return (index, cities[index]) }
    let named = cities.indices.filter { CityID.slug(cities[$0].name) == slug }
    if named.count == 1 { return (named[0], cities[named[0]]) }
    if named.count > 1 {
        let list = named.map { "  \(cities[$0].id): \(describeCity(cities[$0]))" }.joined(separator: "\n")
        throw CommandFailure(message: "\"\(text)\" is the name of several cities; name one by its id:\n\(list)", exitCode: .usage)
    }
    let known = cities.isEmpty ? "the list is empty" : "the list has " + cities.map(\.id).joined(separator: ", ")
    throw CommandFailure(message: "no city \"\(text)\" in the list (\(known))", exitCode: .usage)
}

/// `Paris, Île-de-France, FR (48.8534, 2.3488)`.
func describeCity(_ city: Settings.City) -> String {
    "\(city.label) (\(String(format: "%.4f, %.4f", city.coordinate.latitude, city.coordinate.longitude)))"
}

/// The JSON of `cities list --json`: an array of objects with the settings' key names.
enum CitiesJSON {
    struct Output: Encodable {
        var id: String
        var name: String
        var admin1: String?
        var country: String?
        var latitude: Double
        var longitude: Double
        var favorite: Bool
        var added: String?
    }

    static func line(_ cities: [Settings.City]) -> String {
        let output = cities.map {
            Output(
                id: $0.id, name: $0.name, admin1: $0.admin1, country: $0.countryCode, latitude: $0.coordinate.latitude,
                longitude: $0.coordinate.longitude, favorite: $0.favorite, added: $0.added?.description)
        }
        return String(
            decoding: (try? ControlCoder.encoder(snakeCase: false).encode(output)) ?? Data("[]".utf8), as: UTF8.self)
    }
}

/// Columns of text padded to the widest cell, counted in characters.
enum TextTable {
    /// Columns aligned by the cells their text takes on a terminal, so that translated headers (CJK takes two
    /// cells a character) line up.
    static func render(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { TextWidth.columns($0[column]) }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - TextWidth.columns(row[column]))
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }
}
