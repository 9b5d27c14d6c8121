import ForecastModel
import Foundation
import GRDB
import TestSupport
import Testing

@testable import History

/// A private directory for one test's database, removed afterwards.
final class DatabaseDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/forecastd-history-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let created else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    /// The database path the daemon would use with this directory as its state directory.
    var database: String { HistoryStore.path(stateDirectory: path + "/state") }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// 2026-11-22 12:00 UTC.
let noon = Date(timeIntervalSince1970: 1_795_348_800)

/// A refresh as a provider delivers it: current conditions at `time`, and three days.
func refresh(
    at time: Date, provider: String = "open-meteo", temperature: Double = 8.5, days: [String]? = nil,
    withCurrent: Bool = true
) -> Forecast {
    let current = CurrentConditions(
        time: time, temperature: temperature, apparentTemperature: temperature - 3, humidity: 81, windSpeed: 14.4,
        windDirection: 250, precipitation: 0.2, pressure: 1012.5, condition: .rain, isDay: true, dewPoint: 5.1,
        windGusts: 31, cloudCover: 100, uvIndex: 0.4, visibility: 9000)
    let dates = days ?? ["2026-11-22", "2026-11-23", "2026-11-24"]
    return Forecast(
        provider: provider, attribution: "Weather data by Open-Meteo.com",
        coordinate: Coordinate(latitude: 48.85, longitude: 2.35), fetchedAt: time.addingTimeInterval(42.7),
        utcOffsetSeconds: 3600, timezone: "Europe/Paris", current: withCurrent ? current : nil, hourly: [],
        daily: dates.enumerated().map { offset, date in
            DailyForecast(
                date: date, temperatureMin: 4 + Double(offset), temperatureMax: 9 + Double(offset), condition: .rain,
                precipitationProbability: 80, precipitationSum: 5.5, windSpeedMax: 30, windGustsMax: 55, uvIndexMax: 1)
        })
}

@Suite("The history database")
struct HistoryStoreTests {
    @Test("a refresh is written, survives closing and reopening (a restart), and reads back in canonical units")
    func writeCloseReopenRead() async throws {
        let directory = try DatabaseDirectory()
        let forecast = refresh(at: noon)
        do {
            let store = try HistoryStore(path: directory.database)
            let outcome = try await store.record(cityID: "paris-fr", forecast: forecast)
            #expect(outcome == HistoryRecordOutcome(readingAdded: true, daysAdded: 3))
            try store.close()
        }
        var info = stat()
        #expect(stat(directory.database, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(directory.path + "/state", &info) == 0 && info.st_mode & 0o777 == 0o700)

        // The daemon starts again: the same file, migrated already, with everything in it.
        let reopened = try HistoryStore(path: directory.database)
        #expect(try reopened.appliedMigrations() == ["v1 readings and issued forecast days"])
        let readings = try reopened.readings(cityID: "paris-fr")
        #expect(
            readings == [
                HistoryReading(
                    cityID: "paris-fr", observedAt: noon, provider: "open-meteo",
                    fetchedAt: noon.addingTimeInterval(42), temperature: 8.5, apparentTemperature: 5.5, humidity: 81,
                    windSpeed: 14.4, windDirection: 250, windGusts: 31, precipitation: 0.2, pressure: 1012.5,
                    dewPoint: 5.1, cloudCover: 100, uvIndex: 0.4, visibility: 9000, condition: .rain, isDay: true)
            ])
        let days = try reopened.issuedDays(cityID: "paris-fr")
        #expect(days.map(\.day) == ["2026-11-22", "2026-11-23", "2026-11-24"])
        #expect(days.allSatisfy { $0.issuedAt == noon.addingTimeInterval(42) && $0.provider == "open-meteo" })
        #expect(days[1] == IssuedForecastDay.days(cityID: "paris-fr", forecast: forecast)[1])
        #expect(days[1].temperatureMin == 5 && days[1].temperatureMax == 10 && days[1].precipitationSum == 5.5)
        #expect(try reopened.readings(cityID: "lyon-fr").isEmpty)
        #expect(try reopened.cityIDs() == ["paris-fr"])

        // A reader (forecastctl history) opens it read-only and sees the same.
        let reader = try HistoryStore(path: directory.database, readOnly: true)
        #expect(try reader.readings(cityID: "paris-fr") == readings)
        await #expect(throws: HistoryError(path: directory.database, message: "is open for reading only")) {
            try await reader.record(cityID: "paris-fr", forecast: refresh(at: noon.addingTimeInterval(900)))
        }
    }

    @Test("the same reading recorded twice is one row; a new refresh adds a reading and its days as newly issued")
    func deduplication() async throws {
        let directory = try DatabaseDirectory()
        let store = try HistoryStore(path: directory.database)
        let forecast = refresh(at: noon)
        try await store.record(cityID: "paris-fr", forecast: forecast)
        #expect(try await store.record(cityID: "paris-fr", forecast: forecast) == HistoryRecordOutcome(readingAdded: false, daysAdded: 0))

        // A cached forecast fetched again later still has the same observation: only its days are new.
        var refetched = forecast
        refetched.fetchedAt = noon.addingTimeInterval(300)
        #expect(try await store.record(cityID: "paris-fr", forecast: refetched) == HistoryRecordOutcome(readingAdded: false, daysAdded: 3))

        // Another provider at the same time is another reading; so is the next refresh.
        #expect(try await store.record(cityID: "paris-fr", forecast: refresh(at: noon, provider: "met-norway")).readingAdded)
        #expect(try await store.record(cityID: "paris-fr", forecast: refresh(at: noon.addingTimeInterval(900))).readingAdded)
        #expect(try await store.record(cityID: "paris-fr", forecast: refresh(at: noon.addingTimeInterval(1800), withCurrent: false)) == HistoryRecordOutcome(readingAdded: false, daysAdded: 3))

        let readings = try store.readings(cityID: "paris-fr")
        #expect(readings.map(\.observedAt) == [noon, noon, noon.addingTimeInterval(900)])
        #expect(readings.map(\.provider) == ["met-norway", "open-meteo", "open-meteo"])
        #expect(try store.issuedDays(cityID: "paris-fr").count == 15)

        // Ranges: from `since` included to `until` excluded.
        #expect(try store.readings(cityID: "paris-fr", since: noon.addingTimeInterval(1)).count == 1)
        #expect(try store.readings(cityID: "paris-fr", until: noon.addingTimeInterval(900)).count == 2)
        #expect(try store.readings(cityID: "paris-fr", since: noon, until: noon.addingTimeInterval(0.5)).count == 2)
    }

    @Test("pruning deletes readings observed and days issued before the cutoff, and keeps the rest")
    func retention() async throws {
        let directory = try DatabaseDirectory()
        let store = try HistoryStore(path: directory.database)
        let day = 86_400.0
        for age in [400.0, 366, 364, 10, 0] {
            try await store.record(cityID: "paris-fr", forecast: refresh(at: noon.addingTimeInterval(-age * day)))
            try await store.record(cityID: "lyon-fr", forecast: refresh(at: noon.addingTimeInterval(-age * day)))
        }
        let outcome = try await store.prune(retentionDays: 365, now: noon)
        #expect(outcome == HistoryPruneOutcome(readingsDeleted: 4, daysDeleted: 12))
        for city in ["paris-fr", "lyon-fr"] {
            #expect(
                try store.readings(cityID: city).map(\.observedAt)
                    == [364, 10, 0].map { noon.addingTimeInterval(-$0 * day) })
            #expect(try store.issuedDays(cityID: city).count == 9)
        }
        #expect(try await store.prune(olderThan: noon.addingTimeInterval(-364 * day)) == HistoryPruneOutcome(readingsDeleted: 0, daysDeleted: 0))
        // Days are issued when the forecast is fetched, 42 s after its observation.
        #expect(try await store.prune(olderThan: noon.addingTimeInterval(1)) == HistoryPruneOutcome(readingsDeleted: 6, daysDeleted: 12))
        #expect(try store.cityIDs() == ["lyon-fr", "paris-fr"])
        #expect(try await store.prune(olderThan: noon.addingTimeInterval(43)) == HistoryPruneOutcome(readingsDeleted: 0, daysDeleted: 6))
        #expect(try store.cityIDs().isEmpty)
    }

    @Test("a reader in another connection sees whole refreshes, never half of one, while the daemon writes")
    func concurrentReader() async throws {
        let directory = try DatabaseDirectory()
        let writer = try HistoryStore(path: directory.database)
        let path = directory.database
        let refreshes = 150
        // The writer goes through GRDB's async API, as the daemon does; the reader (forecastctl) blocks on
        // SQLite, so it gets a thread of its own rather than the cooperative pool.
        @Sendable func writeAll() async throws -> Int {
            for index in 0..<refreshes {
                try await writer.record(
                    cityID: "paris-fr", forecast: refresh(at: noon.addingTimeInterval(Double(index) * 900)))
            }
            return refreshes
        }
        async let written = writeAll()
        async let observations: [Int] = onOwnThread {
            let reader = try HistoryStore(path: path, readOnly: true)
            var seen: [Int] = []
            let deadline = Date().addingTimeInterval(120)
            while seen.last != refreshes, Date() < deadline {
                let history = try reader.history(cityID: "paris-fr")
                let (readings, days) = (history.readings.count, history.issuedDays.count)
                // Each refresh writes one reading and three days in one transaction.
                guard days == readings * 3 else {
                    throw HistoryError(path: path, message: "saw \(readings) readings with \(days) days")
                }
                seen.append(readings)
            }
            return seen
        }
        #expect(try await written == refreshes)
        let seen = try await observations
        #expect(seen == seen.sorted())
        #expect(seen.last == refreshes)
    }

    @Test("the database is in WAL mode, so readers never block the writer and a crash keeps every committed refresh")
    func walMode() throws {
        let directory = try DatabaseDirectory()
        _ = try HistoryStore(path: directory.database)
        let queue = try DatabaseQueue(path: directory.database)
        #expect(try queue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("a missing file, a file that is not a database, and a database from a newer forecastd are reported by path")
    func openingProblems() throws {
        let directory = try DatabaseDirectory()
        let missing = directory.path + "/none.sqlite"
        #expect(throws: HistoryError(path: missing, message: "no such file: no history has been recorded yet")) {
            try HistoryStore(path: missing, readOnly: true)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))

        let text = directory.path + "/notes.sqlite"
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        #expect {
            try HistoryStore(path: text)
        } throws: { error in
            let error = error as? HistoryError
            return error?.path == text && error?.message.contains("not a database") == true
        }

        let newer = directory.database
        _ = try HistoryStore(path: newer)
        let queue = try DatabaseQueue(path: newer)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v2 from the future')") }
        try queue.close()
        for readOnly in [false, true] {
            #expect(
                throws: HistoryError(
                    path: newer,
                    message: "was written by a newer forecastd (its schema has \"v2 from the future\"); upgrade forecastd to read it")
            ) {
                try HistoryStore(path: newer, readOnly: readOnly)
            }
        }
    }
}

