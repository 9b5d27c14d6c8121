/// The tables of `forecastd.toml` and the keys each allows, in the order the documentation lists them.
///
/// The one list both the unknown-key check and the documentation test read, so a key added to the
/// decoder without being added here is reported as unknown, and one added here without being
/// documented in `config/forecastd.toml` fails a test.
package enum SettingsSchema {
    package struct Table: Sendable, Hashable {
        package var path: [String]
        package var keys: [String]
    }

    package static let tables: [Table] = [
        Table(path: [], keys: ["units", "refresh_minutes", "location", "providers", "output"]),
        Table(path: ["location"], keys: ["mode", "refresh_distance_km", "pin", "gpsd"]),
        Table(path: ["location", "pin"], keys: ["latitude", "longitude", "name"]),
        Table(path: ["location", "gpsd"], keys: ["enabled", "host", "port", "max_fix_age_seconds"]),
        Table(path: ["providers"], keys: ["open_meteo"]),
        Table(path: ["providers", "open_meteo"], keys: ["url", "timeout_seconds"]),
        Table(path: ["output"], keys: ["status_file", "socket"]),
    ]

    /// The keys allowed in the table at `path`, or `nil` when `path` is not a table.
    package static func keys(of path: [String]) -> [String]? {
        tables.first { $0.path == path }?.keys
    }

    /// Every key that holds a value rather than a table, as full paths.
    package static var valueKeyPaths: [[String]] {
        let tablePaths = Set(tables.map(\.path))
        return tables.flatMap { table in
            table.keys.map { table.path + [$0] }.filter { !tablePaths.contains($0) }
        }
    }
}
