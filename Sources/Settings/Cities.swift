import ForecastModel
import Foundation

extension Settings {
    /// One `[[cities]]` table: a place the user follows besides where the machine is.
    ///
    /// Every city has an ``id`` people can type (`paris-fr`): the `id` key when the table has one,
    /// else ``CityID/derived(name:countryCode:)`` of its name and country. No two cities share an id.
    public struct City: Sendable, Hashable {
        /// `name`: the display name, never empty.
        public var name: String
        /// `admin1`: the first-level region (state, province), when given.
        public var admin1: String?
        /// `country`: the ISO 3166-1 alpha-2 code, upper-case, when given.
        public var countryCode: String?
        /// `latitude` and `longitude`; always ``Coordinate/isPlausible``.
        public var coordinate: Coordinate
        /// `favorite`: whether the daemon records this city's weather in the history database.
        public var favorite: Bool
        /// `added`: the day the city was added, when known.
        public var added: CalendarDate?
        /// The `id` key as written, when the table has one; ``id`` is this or the derived id.
        public var explicitID: String?

        public init(
            name: String, admin1: String? = nil, countryCode: String? = nil, coordinate: Coordinate,
            favorite: Bool = false, added: CalendarDate? = nil, explicitID: String? = nil
        ) {
            self.name = name
            self.admin1 = admin1
            self.countryCode = countryCode
            self.coordinate = coordinate
            self.favorite = favorite
            self.added = added
            self.explicitID = explicitID
        }

        /// The id commands and the history database know the city by.
        public var id: String {
            explicitID ?? CityID.derived(name: name, countryCode: countryCode)
        }

        /// The keys of a `[[cities]]` table.
        static let keys: [SectionKey<City>] = [
            .example("name", \.name, .nonEmpty("the name to show, such as \"Paris\""), .string("São Paulo")),
            .example(
                "admin1", \.admin1, .nonEmpty("the region's name, such as \"Texas\", or no admin1 key at all").optional,
                .string("São Paulo")),
            .example("country", \.countryCode, .countryCode.optional, .string("BR")),
            .example("latitude", \.coordinate.latitude, .number(-90...90), .number(-23.5475)),
            .example("longitude", \.coordinate.longitude, .number(-180...180), .number(-46.63611)),
            .example("favorite", \.favorite, .boolean, .boolean(true)),
            .example("added", \.added, .date.optional, .date(CalendarDate(year: 2026, month: 11, day: 22)!)),
            // Written only when it is not the id the name and country give anyway.
            .assembled("id", CityID.type, .live, documented: .example(.string("sao-paulo-br"))) { city in
                city.explicitID.flatMap {
                    $0 == CityID.derived(name: city.name, countryCode: city.countryCode) ? nil : .string($0)
                }
            },
        ]

        /// `Paris, Île-de-France, FR`: the name with whatever region and country are known.
        public var label: String {
            ([name] + [admin1, countryCode].compactMap { $0 }).joined(separator: ", ")
        }
    }

    /// The cities marked `favorite = true`, in the file's order.
    public var favoriteCities: [City] { cities.filter(\.favorite) }

    static let citiesTable = SettingsTable.Table(
        array: ["cities"], \Settings.cities, .live,
        documentation: """
            Cities to follow besides where you are: one [[cities]] table per city. `forecastctl cities add
            NAME` looks a name up offline and writes the table for you. The name to show, the latitude
            (-90 to 90) and the longitude (-180 to 180) are required; admin1 (the region) and country (an
            ISO 3166-1 alpha-2 code such as "FR") are optional. A favourite (favorite set to true) has its
            weather recorded in the history database. The date a city was added is written without quotes.
            Commands know each city by an id: its name in lower-case letters and digits joined by "-", then
            "-" and the country code in lower case (São Paulo in BR is sao-paulo-br). Two places with the
            same name and country need an id of their own, e.g. "springfield-il-us". There are none by
            default.
            """,
        City.keys)
}

/// The rule that turns a city's name and country into the id people type.
///
/// The name is folded as the gazetteer folds names (accents and case dropped, `ß` spelled `ss`),
/// every run of characters other than letters and digits becomes one `-`, and the lower-case
/// country code is appended: `Paris` in FR is `paris-fr`, `São Paulo` in BR is `sao-paulo-br`,
/// `St. John's` in CA is `st-johns-ca`. Letters of other scripts stay as they are (`東京-jp`).
public enum CityID {
    /// `slug(name)-country`, or `slug(name)` without a country; `city` when the name has no letters or digits.
    public static func derived(name: String, countryCode: String?) -> String {
        var id = slug(name)
        if id.isEmpty { id = "city" }
        if let countryCode, !countryCode.isEmpty { id += "-" + countryCode.lowercased() }
        return id
    }

    /// Whether `text` can be an id as written: what ``slug(_:)`` leaves unchanged, and not empty.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && slug(text) == text
    }

    /// The `id` key's type: a string that is a valid id.
    static var type: SettingType<String> {
        let allowed = "lower-case letters and digits in words joined by \"-\", such as \"springfield-il-us\""
        return .string().refined(allowed: allowed) { id in
            isValid(id)
                ? .success(id) : .failure(SettingsRefusal("\(TOMLText.quote(id)) is not an id", allowed: allowed))
        }
    }

    /// Letters and digits, folded and lower-cased, with one `-` for each run of anything else.
    public static func slug(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingHyphen = false
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                // Apostrophes join the letters around them, so "John's" is "johns", not "john-s".
                if apostrophes.contains(lower) { continue }
                if let spelling = spelledOut[lower] {
                    if pendingHyphen, !result.isEmpty { result.append("-") }
                    pendingHyphen = false
                    result.append(contentsOf: spelling.unicodeScalars)
                } else if lower.properties.isAlphabetic || lower.properties.numericType == .decimal {
                    if pendingHyphen, !result.isEmpty { result.append("-") }
                    pendingHyphen = false
                    result.append(lower)
                } else {
                    pendingHyphen = true
                }
            }
        }
        return String(result)
    }

    /// Letters that compatibility decomposition leaves alone, spelled as English-language maps do
    /// (the gazetteer's folding uses the same table).
    private static let spelledOut: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th",
        "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng", "ĸ": "k",
    ]

    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2018}", "\u{2019}", "\u{02BC}", "`"]
}

/// A day of the calendar without a time or zone: the `added` date of a city, `2026-11-22`.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// The date, or `nil` when the month or day does not exist (`2026-02-30`) or the year is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD`, exactly.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `date` falls on in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }

    /// `2026-11-22`, as TOML writes a local date.
    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Where a new city goes in a list: it is new, it is already there, or its id belongs to another place.
public enum CityPlacement: Sendable, Hashable {
    /// Not in the list: add it as given (with an id of its own when its derived id is taken by
    /// another place of the same name).
    case new(Settings.City)
    /// Already in the list: the same id, within ``Settings/City/samePlaceKm`` of it.
    case duplicate(of: Settings.City)
    /// Its id, and the id with its region added, belong to other places.
    case conflict(with: Settings.City)
}

extension Settings.City {
    /// Two cities with the same id this close are the same place (a name looked up twice, from the
    /// gazetteer or the provider, lands within a few kilometres).
    public static let samePlaceKm = 25.0

    /// Where this city goes among `cities`.
    ///
    /// A listed city of the same name (folded as ids are) within ``samePlaceKm`` is the same city: a
    /// duplicate. Otherwise its id is looked up in the list. Taken by a city within ``samePlaceKm``,
    /// it is a duplicate.
    /// Taken by a farther place (Springfield, Illinois after Springfield, Missouri, both
    /// `springfield-us`), the city gets the id of its name, region and country
    /// (`springfield-illinois-us`) when it has a region and that id is free; otherwise it conflicts.
    public func placed(among cities: [Settings.City]) -> CityPlacement {
        // The same name nearby is the same place, whatever the ids say (one entry may lack a country).
        let folded = CityID.slug(name)
        if let same = cities.first(where: {
            CityID.slug($0.name) == folded && $0.coordinate.distanceKm(to: coordinate) <= Self.samePlaceKm
        }) {
            return .duplicate(of: same)
        }
        guard let taken = cities.first(where: { $0.id == id }) else { return .new(self) }
        if taken.coordinate.distanceKm(to: coordinate) <= Self.samePlaceKm { return .duplicate(of: taken) }
        guard let admin1, !admin1.isEmpty else { return .conflict(with: taken) }
        var distinct = self
        distinct.explicitID = CityID.derived(name: name + " " + admin1, countryCode: countryCode)
        if let other = cities.first(where: { $0.id == distinct.id }) {
            return other.coordinate.distanceKm(to: coordinate) <= Self.samePlaceKm
                ? .duplicate(of: other) : .conflict(with: other)
        }
        return .new(distinct)
    }
}
