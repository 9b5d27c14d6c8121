import ArgumentParser
import CitiesCSV
import FileStore
import ForecastModel
import Foundation
import Gazetteer
import Rendering
import Settings

// cities export and import: the list as CSV or JSON, out and back in.

extension CitiesCommand {
    struct ExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the favourite cities to a CSV file (- for standard output).",
            discussion: """
                The file is RFC 4180 CSV in UTF-8 with CRLF line ends: a header line \
                name,admin1,country,latitude,longitude,added, then one line per favourite in the order of the \
                settings file; fields with commas, quotes or line breaks are quoted. An existing file is replaced \
                atomically. `forecastctl cities import` reads it back to the same list.

                Exit codes: 0 written; 1 the file could not be written; 78 the settings file is invalid.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("The CSV file to write, or - for standard output.", valueName: "FILE"),
            completion: Completions.csvFile)
        var file: String

        func run() throws {
            try reportingFailures {
                let favorites = try global.loadSettings().favoriteCities
                let text = CitiesCSV.write(favorites)
                if file == "-" {
                    FileHandle.standardOutput.write(Data(text.utf8))
                    return
                }
                do throws(AtomicFile.WriteError) {
                    try AtomicFile.write(Array(text.utf8), to: file, mode: 0o644)
                } catch {
                    throw CommandFailure(message: error.description, exitCode: .requestFailed)
                }
                print("wrote \(favorites.count) favourite\(favorites.count == 1 ? "" : "s") to \(file)")
            }
        }
    }

    struct ImportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add the cities of a CSV file (as `cities export` writes it) as favourites.",
            discussion: """
                The file needs a header line with the columns name, latitude and longitude; admin1, country and \
                added are optional, in any order; other columns are ignored. Lines may end in CRLF or LF, and \
                UTF-8 is required.

                Nothing is changed when the file is unusable: not UTF-8, empty, a header without the required \
                columns (or with a column twice), or a quoted field that is never closed. Otherwise each line \
                counts on its own, and every line is reported with its number:
                  - a new city is added as a favourite (blank lines are skipped);
                  - a city already listed (the same name or id, within 25 km) is a duplicate and left as it is, except that a \
                listed city that is not a favourite becomes one; a city on an earlier line is a duplicate too;
                  - a bad line (wrong number of fields, empty name, coordinates that are not numbers in range or \
                are 0,0, a country that is not two letters, an added date that is not YYYY-MM-DD) is skipped.
                The good lines are written in one atomic edit of the settings file, comments kept.

                Exit codes: 0 every line was added or a duplicate; 2 some lines were bad and skipped (the others \
                were imported); 1 the file or the settings file could not be read or written; 65 the file is \
                unusable (nothing was changed); 78 the settings file has errors (nothing was changed).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("The CSV file to read, or - for standard input.", valueName: "FILE"),
            completion: Completions.csvFile)
        var file: String

        func run() throws {
            try reportingFailures {
                let data: Data
                if file == "-" {
                    data = FileHandle.standardInput.readDataToEndOfFile()
                } else {
                    guard let contents = FileManager.default.contents(atPath: file) else {
                        throw CommandFailure(message: "\(file): cannot be read (no such file, or no permission)", exitCode: .requestFailed)
                    }
                    data = contents
                }
                let current = try global.loadSettings().cities
                let plan: CitiesImport
                do {
                    plan = try CitiesCSV.read(data, existing: current)
                } catch {
                    throw CommandFailure(message: "\(file): \(error); nothing was changed", exitCode: .dataError)
                }
                if !plan.ignoredColumns.isEmpty {
                    note("\(file): ignored the columns \(plan.ignoredColumns.joined(separator: ", "))")
                }
                var outcome = "; the list is unchanged"
                if !plan.added.isEmpty || !plan.favorited.isEmpty {
                    let edit = try editSettings(global) { document throws(SettingsEditError) in
                        for row in plan.favorited {
                            guard let index = current.firstIndex(where: { $0.id == row.city.id }) else { continue }
                            try document.setFavorite(true, ofCityAt: index)
                        }
                        for row in plan.added {
                            try document.appendCity(row.city)
                        }
                    }
                    outcome = " (\(edit.path))"
                }
                // Every line in the file's order, what happened to it on stdout, problems on stderr.
                var lines: [(Int, String, Bool)] = []
                lines += plan.added.map { ($0.line, "added \($0.city.id): \(describeCity($0.city))", false) }
                lines += plan.favorited.map { ($0.line, "\($0.city.id) was listed; now a favourite", false) }
                lines += plan.duplicates.map { duplicate in
                    let earlier = duplicate.earlierLine.map { " (as on line \($0))" } ?? ""
                    return (duplicate.line, "duplicate: \(duplicate.city.id) is already listed\(earlier); unchanged", true)
                }
                lines += plan.badRows.map { ($0.line, "skipped: \($0.message)", true) }
                for (line, text, isProblem) in lines.sorted(by: { $0.0 < $1.0 }) {
                    let message = "\(file):\(line): \(text)"
                    if isProblem { note(message) } else { print(message) }
                }
                print(
                    "\(file): \(plan.added.count) added, \(plan.favorited.count) made favourites, "
                        + "\(plan.duplicates.count) duplicate\(plan.duplicates.count == 1 ? "" : "s"), "
                        + "\(plan.badRows.count) bad line\(plan.badRows.count == 1 ? "" : "s") skipped\(outcome)")
                if !plan.badRows.isEmpty { throw ExitCode.partialImport }
            }
        }
    }
}
