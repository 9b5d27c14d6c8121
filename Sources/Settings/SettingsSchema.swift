/// The tables of `forecastd.toml`, the keys each allows in the order the documentation lists them,
/// and the type of every value.
///
/// The one list the unknown-key check, the editor and the documentation test read, so a key added to
/// the decoder without being added here is reported as unknown, one added here without a type cannot
/// be set, and one added here without being documented in `config/forecastd.toml` fails a test.
package enum SettingsSchema {
    package struct Table: Sendable, Hashable {
        package var path: [String]
        package var keys: [String]
        /// Whether the file writes this table as `[[path]]`, any number of times.
        package var isArrayOfTables = false
    }

    package static let tables: [Table] = [
        Table(
            path: [], keys: ["units", "refresh_minutes", "location", "providers", "output", "display", "history", "cities"]),
        Table(
            path: ["location"],
            keys: ["mode", "refresh_distance_km", "naming", "static_file", "max_speed_kmh", "pin", "gpsd", "ip"]),
        Table(path: ["location", "pin"], keys: ["latitude", "longitude", "name"]),
        Table(
            path: ["location", "gpsd"],
            keys: ["enabled", "host", "port", "max_fix_age_seconds", "recent_fix_minutes"]),
        Table(
            path: ["location", "ip"],
            keys: ["enabled", "services", "ipinfo_url", "ipapi_url", "ifconfig_url", "ip_api_url"]),
        Table(
            path: ["providers"],
            keys: ["order", "coordinate_precision", "open_meteo", "met_norway", "openweathermap"]),
        Table(path: ["providers", "open_meteo"], keys: ["url", "timeout_seconds", "geocoding_url"]),
        Table(path: ["providers", "met_norway"], keys: ["url", "contact", "timeout_seconds"]),
        Table(
            path: ["providers", "openweathermap"],
            keys: ["url", "api_key", "api_key_file", "one_call", "timeout_seconds"]),
        Table(path: ["output"], keys: ["status_file", "socket", "socket_group", "max_clients", "files"]),
        Table(path: ["output", "files"], keys: ["path", "format", "template", "icons"], isArrayOfTables: true),
        Table(path: ["display"], keys: ["icons", "hot_celsius", "cold_celsius"]),
        Table(path: ["history"], keys: ["retention_days"]),
        Table(
            path: ["cities"], keys: ["name", "admin1", "country", "latitude", "longitude", "favorite", "added", "id"],
            isArrayOfTables: true),
    ]

    /// The type of every value key, by its full path.
    package static let valueTypes: [[String]: SettingsValueType] = [
        ["units"]: .string,
        ["refresh_minutes"]: .integer,
        ["location", "mode"]: .string,
        ["location", "refresh_distance_km"]: .number,
        ["location", "naming"]: .string,
        ["location", "static_file"]: .string,
        ["location", "max_speed_kmh"]: .number,
        ["location", "pin", "latitude"]: .number,
        ["location", "pin", "longitude"]: .number,
        ["location", "pin", "name"]: .string,
        ["location", "gpsd", "enabled"]: .boolean,
        ["location", "gpsd", "host"]: .string,
        ["location", "gpsd", "port"]: .integer,
        ["location", "gpsd", "max_fix_age_seconds"]: .integer,
        ["location", "gpsd", "recent_fix_minutes"]: .integer,
        ["location", "ip", "enabled"]: .boolean,
        ["location", "ip", "services"]: .strings,
        ["location", "ip", "ipinfo_url"]: .string,
        ["location", "ip", "ipapi_url"]: .string,
        ["location", "ip", "ifconfig_url"]: .string,
        ["location", "ip", "ip_api_url"]: .string,
        ["providers", "order"]: .strings,
        ["providers", "coordinate_precision"]: .integer,
        ["providers", "open_meteo", "url"]: .string,
        ["providers", "open_meteo", "timeout_seconds"]: .integer,
        ["providers", "open_meteo", "geocoding_url"]: .string,
        ["providers", "met_norway", "url"]: .string,
        ["providers", "met_norway", "contact"]: .string,
        ["providers", "met_norway", "timeout_seconds"]: .integer,
        ["providers", "openweathermap", "url"]: .string,
        ["providers", "openweathermap", "api_key"]: .string,
        ["providers", "openweathermap", "api_key_file"]: .string,
        ["providers", "openweathermap", "one_call"]: .boolean,
        ["providers", "openweathermap", "timeout_seconds"]: .integer,
        ["output", "status_file"]: .string,
        ["output", "socket"]: .string,
        ["output", "socket_group"]: .string,
        ["output", "max_clients"]: .integer,
        ["output", "files", "path"]: .string,
        ["output", "files", "format"]: .string,
        ["output", "files", "template"]: .string,
        ["output", "files", "icons"]: .string,
        ["display", "icons"]: .string,
        ["display", "hot_celsius"]: .number,
        ["display", "cold_celsius"]: .number,
        ["history", "retention_days"]: .integer,
        ["cities", "name"]: .string,
        ["cities", "admin1"]: .string,
        ["cities", "country"]: .string,
        ["cities", "latitude"]: .number,
        ["cities", "longitude"]: .number,
        ["cities", "favorite"]: .boolean,
        ["cities", "added"]: .date,
        ["cities", "id"]: .string,
    ]

    /// The tables written as `[[path]]`, whose keys `forecastctl set` cannot address.
    package static var arrayOfTablesPaths: [[String]] {
        tables.filter(\.isArrayOfTables).map(\.path)
    }

    /// Keys whose value is a secret: never shown, only whether and where it is set.
    package static let secretKeys: Set<[String]> = [["providers", "openweathermap", "api_key"]]

    /// The keys allowed in the table at `path`, or `nil` when `path` is not a table.
    package static func keys(of path: [String]) -> [String]? {
        tables.first { $0.path == path }?.keys
    }

    /// The table at `path`, if there is one.
    package static func table(at path: [String]) -> Table? {
        tables.first { $0.path == path }
    }

    /// Every key that holds a value rather than a table, as full paths, in documentation order.
    package static var valueKeyPaths: [[String]] {
        let tablePaths = Set(tables.map(\.path))
        return tables.flatMap { table in
            table.keys.map { table.path + [$0] }.filter { !tablePaths.contains($0) }
        }
    }
}
