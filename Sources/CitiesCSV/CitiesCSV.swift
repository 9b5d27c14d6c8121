import CSV
import FileStore
import ForecastModel
import Foundation
import Settings

/// Favourite cities as CSV: what `forecastctl cities export` writes and `import` reads.
///
/// The format is RFC 4180: a header line `name,admin1,country,latitude,longitude,added`, then one
/// line per city, fields quoted when they hold a comma, a quote or a line break (quotes doubled),
/// lines ended by CRLF, UTF-8 without a byte-order mark. `admin1`, `country` and `added` may be
/// empty. Quoting is done by CSV.swift, not here.
///
/// Reading is forgiving where spreadsheets differ and strict where a mistake would add a wrong
/// city; `docs/cities.md` lists the rules (and ``read(_:existing:)`` repeats them).
public enum CitiesCSV {
    /// The columns, in the order they are written.
    public static let columns = ["name", "admin1", "country", "latitude", "longitude", "added"]
    /// The columns a file must have.
    public static let requiredColumns = ["name", "latitude", "longitude"]
    /// The largest file read: far more cities than anyone follows, and small enough to read whole.
    public static let maximumFileSize = 8 << 20

    // MARK: Writing

    /// The CSV text of `cities`: the header, then one line per city in the given order.
    public static func write(_ cities: [Settings.City]) -> String {
        text(
            rows: [columns]
                + cities.map { city in
                    [
                        city.name, city.admin1 ?? "", city.countryCode ?? "", number(city.coordinate.latitude),
                        number(city.coordinate.longitude), city.added?.description ?? "",
                    ]
                })
    }

    /// RFC 4180 text of `rows`: fields quoted by CSV.swift where they need it, every line ended by CRLF.
    ///
    /// Also what `forecastctl history --csv` writes.
    public static func text(rows: [[String]]) -> String {
        let stream = OutputStream.toMemory()
        stream.open()
        // Writing to memory cannot fail short of running out of it, which stops the program anyway.
        guard let writer = try? CSVWriter(stream: stream, newline: .crlf) else { return "" }
        for row in rows {
            try? writer.write(row: row)
        }
        writer.stream.close()
        let data = writer.stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        // CSVWriter separates lines; RFC 4180 allows, and most tools expect, a line break after the last.
        return String(decoding: data, as: UTF8.self) + (rows.isEmpty ? "" : "\r\n")
    }

    /// A coordinate as Swift prints it: the shortest text that reads back as the same number.
    static func number(_ value: Double) -> String {
        "\(value)"
    }

    // MARK: Reading

    /// Reads CSV `data` against the cities already listed.
    ///
    /// The file is unusable, and nothing in it is taken, when it is not UTF-8, is empty, has a
    /// quoted field that is never closed, or its first line lacks a `name`, `latitude` or
    /// `longitude` column (or names a column twice). Otherwise every line is judged on its own:
    /// - a blank line is skipped;
    /// - a line with a wrong number of fields, an empty name, a latitude or longitude that is not a
    ///   number in range (or is 0, 0), a country that is not two letters, or an `added` that is not
    ///   a `YYYY-MM-DD` date is a bad row, reported with its line number;
    /// - a city already listed (the same name or id, within ``Settings/City/samePlaceKm``), or listed on an
    ///   earlier line, is a duplicate; one listed but not a favourite becomes a favourite;
    /// - every other city is added, as a favourite.
    ///
    /// Column names are matched without regard to case or surrounding spaces, in any order; unknown
    /// columns are ignored (and named in the result). Fields are taken as written, except that
    /// spaces around numbers, dates and country codes are dropped. A leading byte-order mark is skipped.
    ///
    /// - Parameter existing: the cities in the settings now.
    /// - Throws: ``CitiesCSVError`` when the file is unusable.
    public static func read(_ data: Data, existing: [Settings.City]) throws(CitiesCSVError) -> CitiesImport {
        guard data.count <= maximumFileSize else {
            throw CitiesCSVError(
                line: nil, message: "is larger than a list of cities can be (at most \(ByteCount(maximumFileSize)))")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw CitiesCSVError(line: nil, message: "is not UTF-8 text; save it as CSV in UTF-8")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw CitiesCSVError(
                line: nil, message: "is empty; expected a header line \(columns.joined(separator: ","))")
        }
        // Quotes come in pairs in valid CSV (opening and closing, or doubled inside a field); an odd
        // count means a field runs to the end of the file, taking every later line with it.
        if text.unicodeScalars.lazy.filter({ $0 == "\"" }).count % 2 == 1 {
            throw CitiesCSVError(
                line: nil,
                message: "has a quoted field that is never closed (an odd number of \" characters), so its lines cannot be told apart")
        }
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text)
        } catch {
            throw CitiesCSVError(line: 1, message: "cannot be read as CSV: \(error)")
        }
        guard let headerRow = reader.next() else {
            throw CitiesCSVError(line: 1, message: "has no header line")
        }
        let header = try Header(headerRow)
        var line = 1 + lineBreaks(in: headerRow)
        var result = CitiesImport(ignoredColumns: header.ignored)
        var known = existing
        while let row = reader.next() {
            line += 1
            let rowLine = line
            line += lineBreaks(in: row)
            if row.count == 1, row[0].isEmpty { continue }
            let city: Settings.City
            switch header.city(from: row) {
            case .success(let decoded): city = decoded
            case .failure(let problem):
                result.badRows.append(CitiesImport.BadRow(line: rowLine, message: problem.message))
                continue
            }
            switch city.placed(among: known) {
            case .new(let new):
                known.append(new)
                result.added.append(CitiesImport.Row(line: rowLine, city: new))
            case .duplicate(let listed):
                if let earlier = result.added.first(where: { $0.city.id == listed.id }) {
                    result.duplicates.append(
                        CitiesImport.Duplicate(line: rowLine, city: listed, earlierLine: earlier.line))
                } else if !listed.favorite, !result.favorited.contains(where: { $0.city.id == listed.id }) {
                    result.favorited.append(CitiesImport.Row(line: rowLine, city: listed))
                } else {
                    let earlier = result.favorited.first(where: { $0.city.id == listed.id })?.line
                    result.duplicates.append(CitiesImport.Duplicate(line: rowLine, city: listed, earlierLine: earlier))
                }
            case .conflict(let other):
                result.badRows.append(
                    CitiesImport.BadRow(
                        line: rowLine,
                        message:
                            "\(city.label): its id \"\(city.id)\" belongs to \(other.label), \(Int(other.coordinate.distanceKm(to: city.coordinate).rounded())) km away; "
                            + "give it a region (admin1) or add it with forecastctl cities add"))
            }
        }
        return result
    }

    /// The line breaks inside a row's fields (CRLF, LF or CR each count once), which move the
    /// next row's line number on.
    static func lineBreaks(in row: [String]) -> Int {
        var count = 0
        for field in row {
            var previousWasCR = false
            for scalar in field.unicodeScalars {
                if scalar == "\n" {
                    if !previousWasCR { count += 1 }
                    previousWasCR = false
                } else if scalar == "\r" {
                    count += 1
                    previousWasCR = true
                } else {
                    previousWasCR = false
                }
            }
        }
        return count
    }

    /// The header line: where each known column is.
    struct Header {
        var index: [String: Int] = [:]
        var ignored: [String] = []
        var count: Int

        init(_ row: [String]) throws(CitiesCSVError) {
            count = row.count
            for (position, raw) in row.enumerated() {
                let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
                guard CitiesCSV.columns.contains(name) else {
                    ignored.append(raw)
                    continue
                }
                guard index[name] == nil else {
                    throw CitiesCSVError(line: 1, message: "names the column \(name) twice")
                }
                index[name] = position
            }
            let missing = CitiesCSV.requiredColumns.filter { index[$0] == nil }
            guard missing.isEmpty else {
                let list = missing.count == 1 ? "a \(missing[0]) column" : "the columns " + missing.joined(separator: ", ")
                throw CitiesCSVError(
                    line: 1,
                    message: "the header \(Self.show(row)) lacks \(list); expected "
                        + "\(CitiesCSV.columns.joined(separator: ",")) (name, latitude and longitude are required)")
            }
        }

        static func show(_ row: [String]) -> String {
            let joined = row.joined(separator: ",")
            return "\"" + (joined.count > 60 ? String(joined.prefix(60)) + "…" : joined) + "\""
        }

        func field(_ name: String, _ row: [String]) -> String {
            guard let position = index[name], position < row.count else { return "" }
            return row[position]
        }

        struct Problem: Error {
            var message: String
        }

        func city(from row: [String]) -> Result<Settings.City, Problem> {
            guard row.count == count else {
                return .failure(Problem(message: "has \(row.count) field\(row.count == 1 ? "" : "s"); the header has \(count)"))
            }
            let name = field("name", row)
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                return .failure(Problem(message: "the name is empty"))
            }
            var coordinates: [Double] = []
            for (key, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
                let text = field(key, row).trimmingCharacters(in: .whitespaces)
                guard let value = Double(text), value.isFinite, abs(value) <= limit else {
                    return .failure(
                        Problem(
                            message: "\(name): \(key) \"\(text)\" is not a number from \(-Int(limit)) to \(Int(limit))"))
                }
                coordinates.append(value)
            }
            let coordinate = Coordinate(latitude: coordinates[0], longitude: coordinates[1])
            guard coordinate.isPlausible else {
                return .failure(Problem(message: "\(name): 0, 0 is \"null island\", not a city"))
            }
            let country = field("country", row).trimmingCharacters(in: .whitespaces)
            guard country.isEmpty
                || (country.count == 2 && country.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic })
            else {
                return .failure(
                    Problem(message: "\(name): country \"\(country)\" is not a two-letter ISO 3166-1 code such as FR"))
            }
            let addedText = field("added", row).trimmingCharacters(in: .whitespaces)
            var added: CalendarDate?
            if !addedText.isEmpty {
                guard let date = CalendarDate(addedText) else {
                    return .failure(Problem(message: "\(name): added \"\(addedText)\" is not a date such as 2026-11-22"))
                }
                added = date
            }
            let admin1 = field("admin1", row)
            return .success(
                Settings.City(
                    name: name, admin1: admin1.trimmingCharacters(in: .whitespaces).isEmpty ? nil : admin1,
                    countryCode: country.isEmpty ? nil : country.uppercased(), coordinate: coordinate,
                    favorite: true, added: added))
        }
    }
}

/// What a CSV file of cities would change, line by line.
public struct CitiesImport: Sendable, Hashable {
    /// A line and the city it gives.
    public struct Row: Sendable, Hashable {
        public var line: Int
        public var city: Settings.City
    }

    /// A line naming a city that is already listed.
    public struct Duplicate: Sendable, Hashable {
        public var line: Int
        /// The city as listed (in the settings, or on an earlier line).
        public var city: Settings.City
        /// The earlier line of the file with the same city, when it came from the file.
        public var earlierLine: Int?
    }

    /// A line that was not taken, and why.
    public struct BadRow: Sendable, Hashable {
        public var line: Int
        public var message: String
    }

    /// New cities, in the file's order, to add as favourites.
    public var added: [Row] = []
    /// Cities listed but not favourites, to make favourites.
    public var favorited: [Row] = []
    /// Lines naming a city already listed as a favourite, or named on an earlier line.
    public var duplicates: [Duplicate] = []
    /// Lines that were not taken.
    public var badRows: [BadRow] = []
    /// Header names that are not columns of the format, as written; their fields are ignored.
    public var ignoredColumns: [String] = []
}

/// Why a CSV file of cities is unusable as a whole; nothing in it was taken.
public struct CitiesCSVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line the problem is on, when it is on one.
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 1: message`, or the message alone.
    public var description: String {
        line.map { "line \($0): \(message)" } ?? message
    }
}
