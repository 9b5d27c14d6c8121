import ForecastModel
import Foundation
import GRDB

/// The SQLite database of favourite cities' weather: every refresh's current conditions, and every
/// daily forecast as it was issued.
///
/// It lives at `<state directory>/history.sqlite`. The database is in WAL mode, so a crash loses at
/// most the transaction under way and never corrupts what was committed, and readers (`forecastctl
/// history`, in another process) read a consistent snapshot while the daemon writes. The schema is
/// created and upgraded by versioned migrations (``migrator``); a database written by a newer
/// forecastd is refused rather than guessed at. `docs/cities.md` describes the tables.
///
/// Times are kept in whole seconds: the same reading recorded twice (same city, observation time
/// and provider) is one row, and so is the same forecast day issued at the same time.
public final class HistoryStore: Sendable {
    /// The database file.
    public let path: String
    /// Whether this store only reads (forecastctl) or also writes (the daemon).
    public let isReadOnly: Bool
    private let pool: DatabasePool

    /// The file name under the state directory.
    public static let fileName = "history.sqlite"

    /// Opens (and, unless `readOnly`, creates and migrates) the database at `path`.
    ///
    /// A new database file is created with mode 0600 in a directory created with mode 0700: where
    /// favourite places' weather was recorded is nobody else's business.
    ///
    /// - Parameter readOnly: open for reading only; the file must exist and be fully migrated.
    /// - Throws: ``HistoryError`` naming the file: it does not exist (read-only), cannot be opened,
    ///   is not a forecastd history database, or was written by a newer forecastd.
    public init(path: String, readOnly: Bool = false) throws(HistoryError) {
        self.path = path
        self.isReadOnly = readOnly
        let manager = FileManager.default
        if readOnly {
            guard manager.fileExists(atPath: path) else {
                throw HistoryError(path: path, message: "no such file: no history has been recorded yet")
            }
        } else {
            try Self.createFile(path)
        }
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.label = "forecastd.history"
        // The daemon is the only writer, but a migration by a newer forecastd or a second daemon
        // must wait for the lock rather than fail at once.
        configuration.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw HistoryError(path: path, message: "cannot be opened: \(Self.describe(error))")
        }
        do {
            try Self.prepareSchema(pool, readOnly: readOnly, path: path)
        } catch let error as HistoryError {
            throw error
        } catch {
            throw HistoryError(path: path, message: "is not a forecastd history database: \(Self.describe(error))")
        }
    }

    /// The database of the state directory `stateDirectory`.
    public static func path(stateDirectory: String) -> String {
        stateDirectory.hasSuffix("/") ? stateDirectory + fileName : stateDirectory + "/" + fileName
    }

    /// Closes the database; later calls fail. Closing is also done when the store goes away.
    public func close() throws(HistoryError) {
        do {
            try pool.close()
        } catch {
            throw HistoryError(path: path, message: "cannot be closed: \(Self.describe(error))")
        }
    }

    // MARK: Writing

    /// Records `forecast` for the city `cityID`: its current conditions as a reading, and its days
    /// as issued at its fetch time, in one transaction.
    ///
    /// A reading already recorded (same city, observation time and provider) is kept as it was, and so
    /// is a day already recorded for the same issue time: recording the same forecast twice adds nothing.
    @discardableResult
    public func record(cityID: String, forecast: Forecast) async throws(HistoryError) -> HistoryRecordOutcome {
        let reading = HistoryReading(cityID: cityID, forecast: forecast)
        let days = IssuedForecastDay.days(cityID: cityID, forecast: forecast)
        return try await write { db in
            var readingAdded = false
            if let reading {
                try db.execute(sql: Self.insertReading, arguments: Self.arguments(reading))
                readingAdded = db.changesCount > 0
            }
            var daysAdded = 0
            for day in days {
                try db.execute(sql: Self.insertDay, arguments: Self.arguments(day))
                daysAdded += db.changesCount
            }
            return HistoryRecordOutcome(readingAdded: readingAdded, daysAdded: daysAdded)
        }
    }

    /// Deletes readings observed, and forecast days issued, before `cutoff`.
    @discardableResult
    public func prune(olderThan cutoff: Date) async throws(HistoryError) -> HistoryPruneOutcome {
        let seconds = HistoryTime.seconds(cutoff)
        return try await write { db in
            try db.execute(sql: "DELETE FROM reading WHERE observed_at < ?", arguments: [seconds])
            let readings = db.changesCount
            try db.execute(sql: "DELETE FROM forecast_day WHERE issued_at < ?", arguments: [seconds])
            return HistoryPruneOutcome(readingsDeleted: readings, daysDeleted: db.changesCount)
        }
    }

    /// Deletes what is older than `retentionDays` days before `now`.
    @discardableResult
    public func prune(retentionDays: Int, now: Date = Date()) async throws(HistoryError) -> HistoryPruneOutcome {
        try await prune(olderThan: now.addingTimeInterval(-TimeInterval(retentionDays) * 86_400))
    }

    /// The time of the oldest row that pruning would delete first (a reading's observation or a forecast
    /// day's issue), nil when the history is empty: pruning next falls due when it passes the retention.
    public func oldestRecord() async throws(HistoryError) -> Date? {
        let seconds = try await read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT min(t) FROM (SELECT min(observed_at) AS t FROM reading "
                    + "UNION ALL SELECT min(issued_at) FROM forecast_day)")
        }
        return seconds.map(HistoryTime.date)
    }

    // MARK: Reading

    /// The readings of `cityID` observed from `since` (included) to `until` (excluded), oldest first;
    /// readings of the same time from several providers are ordered by provider.
    public func readings(cityID: String, since: Date? = nil, until: Date? = nil) throws(HistoryError)
        -> [HistoryReading]
    {
        try history(cityID: cityID, since: since, until: until).readings
    }

    /// The forecast days of `cityID` issued from `since` (included) to `until` (excluded), by issue
    /// time, then day.
    public func issuedDays(cityID: String, since: Date? = nil, until: Date? = nil) throws(HistoryError)
        -> [IssuedForecastDay]
    {
        try history(cityID: cityID, since: since, until: until).issuedDays
    }

    /// The readings observed, and the forecast days issued, from `since` (included) to `until`
    /// (excluded), read in one transaction so that they come from the same refreshes.
    public func history(cityID: String, since: Date? = nil, until: Date? = nil) throws(HistoryError)
        -> CityHistory
    {
        try read { db in
            let bounds: StatementArguments = [cityID, Self.lowerBound(since), Self.upperBound(until)]
            let readings = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM reading
                    WHERE city_id = ? AND observed_at >= ? AND observed_at < ?
                    ORDER BY observed_at, provider
                    """,
                arguments: bounds)
            let days = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM forecast_day
                    WHERE city_id = ? AND issued_at >= ? AND issued_at < ?
                    ORDER BY issued_at, provider, day
                    """,
                arguments: bounds)
            return CityHistory(readings: readings.map(Self.reading), issuedDays: days.map(Self.issuedDay))
        }
    }

    /// The ids of every city with a reading or a forecast day, sorted.
    public func cityIDs() throws(HistoryError) -> [String] {
        try read { db in
            try String.fetchAll(
                db, sql: "SELECT city_id FROM reading UNION SELECT city_id FROM forecast_day ORDER BY city_id")
        }
    }

    /// The migrations applied to the database, oldest first.
    public func appliedMigrations() throws(HistoryError) -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }

    // MARK: Schema

    /// The schema's migrations, in order. A migration, once released, never changes: a change to the
    /// schema is a new migration, so every database can be brought up to date from any version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 readings and issued forecast days") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reading (
                        city_id TEXT NOT NULL,
                        observed_at INTEGER NOT NULL,
                        provider TEXT NOT NULL,
                        fetched_at INTEGER NOT NULL,
                        temperature_c REAL,
                        apparent_temperature_c REAL,
                        humidity_percent REAL,
                        wind_speed_kmh REAL,
                        wind_direction_degrees REAL,
                        wind_gusts_kmh REAL,
                        precipitation_mm REAL,
                        pressure_hpa REAL,
                        dew_point_c REAL,
                        cloud_cover_percent REAL,
                        uv_index REAL,
                        visibility_m REAL,
                        condition TEXT,
                        is_day INTEGER,
                        PRIMARY KEY (city_id, observed_at, provider)
                    );
                    CREATE INDEX reading_by_time ON reading (observed_at);
                    CREATE TABLE forecast_day (
                        city_id TEXT NOT NULL,
                        issued_at INTEGER NOT NULL,
                        provider TEXT NOT NULL,
                        day TEXT NOT NULL,
                        temperature_min_c REAL,
                        temperature_max_c REAL,
                        precipitation_mm REAL,
                        precipitation_probability_percent REAL,
                        wind_speed_max_kmh REAL,
                        wind_gusts_max_kmh REAL,
                        uv_index_max REAL,
                        condition TEXT,
                        PRIMARY KEY (city_id, issued_at, provider, day)
                    );
                    CREATE INDEX forecast_day_by_issue ON forecast_day (issued_at);
                    CREATE INDEX forecast_day_by_day ON forecast_day (city_id, day);
                    """)
        }
        return migrator
    }

    private static func prepareSchema(_ pool: DatabasePool, readOnly: Bool, path: String) throws {
        let migrator = Self.migrator
        let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
        if superseded {
            let unknown = try pool.read { db in try migrator.appliedIdentifiers(db) }
                .subtracting(migrator.migrations).sorted().map { "\"\($0)\"" }
            throw HistoryError(
                path: path,
                message: "was written by a newer forecastd (its schema has \(unknown.joined(separator: ", "))); "
                    + "upgrade forecastd to read it")
        }
        if readOnly {
            let complete = try pool.read { db in try migrator.hasCompletedMigrations(db) }
            guard complete else {
                throw HistoryError(
                    path: path,
                    message: "has not been brought up to this version's schema yet; forecastd does that when it starts")
            }
        } else {
            try migrator.migrate(pool)
        }
    }

    /// Creates an empty file with mode 0600 (SQLite gives its WAL files the same mode), and the
    /// directories above it with mode 0700.
    private static func createFile(_ path: String) throws(HistoryError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw HistoryError(path: path, message: "cannot create the directory \(directory): \(error)")
            }
        }
        guard !FileManager.default.fileExists(atPath: path) else { return }
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw HistoryError(path: path, message: "cannot be created: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Statements

    private static let insertReading = """
        INSERT OR IGNORE INTO reading (
            city_id, observed_at, provider, fetched_at, temperature_c, apparent_temperature_c, humidity_percent,
            wind_speed_kmh, wind_direction_degrees, wind_gusts_kmh, precipitation_mm, pressure_hpa, dew_point_c,
            cloud_cover_percent, uv_index, visibility_m, condition, is_day
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private static let insertDay = """
        INSERT OR IGNORE INTO forecast_day (
            city_id, issued_at, provider, day, temperature_min_c, temperature_max_c, precipitation_mm,
            precipitation_probability_percent, wind_speed_max_kmh, wind_gusts_max_kmh, uv_index_max, condition
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private static func arguments(_ reading: HistoryReading) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            reading.cityID, HistoryTime.seconds(reading.observedAt), reading.provider,
            HistoryTime.seconds(reading.fetchedAt), reading.temperature, reading.apparentTemperature,
            reading.humidity, reading.windSpeed, reading.windDirection, reading.windGusts, reading.precipitation,
            reading.pressure, reading.dewPoint, reading.cloudCover, reading.uvIndex, reading.visibility,
            reading.condition?.rawValue, reading.isDay,
        ]
        return StatementArguments(values)
    }

    private static func arguments(_ day: IssuedForecastDay) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            day.cityID, HistoryTime.seconds(day.issuedAt), day.provider, day.day, day.temperatureMin,
            day.temperatureMax, day.precipitationSum, day.precipitationProbability, day.windSpeedMax,
            day.windGustsMax, day.uvIndexMax, day.condition?.rawValue,
        ]
        return StatementArguments(values)
    }

    private static func reading(_ row: Row) -> HistoryReading {
        HistoryReading(
            cityID: row["city_id"], observedAt: HistoryTime.date(row["observed_at"]), provider: row["provider"],
            fetchedAt: HistoryTime.date(row["fetched_at"]), temperature: row["temperature_c"],
            apparentTemperature: row["apparent_temperature_c"], humidity: row["humidity_percent"],
            windSpeed: row["wind_speed_kmh"], windDirection: row["wind_direction_degrees"],
            windGusts: row["wind_gusts_kmh"], precipitation: row["precipitation_mm"], pressure: row["pressure_hpa"],
            dewPoint: row["dew_point_c"], cloudCover: row["cloud_cover_percent"], uvIndex: row["uv_index"],
            visibility: row["visibility_m"], condition: (row["condition"] as String?).flatMap { ConditionKind(rawValue: $0) },
            isDay: row["is_day"])
    }

    private static func issuedDay(_ row: Row) -> IssuedForecastDay {
        IssuedForecastDay(
            cityID: row["city_id"], issuedAt: HistoryTime.date(row["issued_at"]), provider: row["provider"],
            day: row["day"], temperatureMin: row["temperature_min_c"], temperatureMax: row["temperature_max_c"],
            precipitationSum: row["precipitation_mm"],
            precipitationProbability: row["precipitation_probability_percent"],
            windSpeedMax: row["wind_speed_max_kmh"], windGustsMax: row["wind_gusts_max_kmh"],
            uvIndexMax: row["uv_index_max"], condition: (row["condition"] as String?).flatMap { ConditionKind(rawValue: $0) })
    }

    private static func lowerBound(_ date: Date?) -> Int64 {
        date.map(HistoryTime.seconds) ?? Int64.min
    }

    /// `until` is excluded: a time with a fraction of a second still counts the whole second before it.
    private static func upperBound(_ date: Date?) -> Int64 {
        guard let date else { return Int64.max }
        return Int64(date.timeIntervalSince1970.rounded(.up))
    }

    // MARK: Access

    /// Writes in one transaction on GRDB's writer queue: the caller's thread (a task of the cooperative
    /// pool, in the daemon) waits without blocking.
    private func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(HistoryError) -> T {
        guard !isReadOnly else { throw HistoryError(path: path, message: "is open for reading only") }
        do {
            return try await pool.write(body)
        } catch {
            throw HistoryError(path: path, message: "cannot be written: \(Self.describe(error))")
        }
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(HistoryError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw HistoryError(path: path, message: "cannot be read: \(Self.describe(error))")
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(HistoryError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw HistoryError(path: path, message: "cannot be read: \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? error.description
        }
        return "\(error)"
    }
}
