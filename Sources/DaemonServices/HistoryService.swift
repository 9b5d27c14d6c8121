import DaemonState
import Foundation
import History
import Logging
import ServiceLifecycle
import Synchronization
import Waiting

/// Keeps the favourites' readings in the history database and prunes what is older than the retention.
///
/// Pruning runs at start, when the settings change, and at the moment the oldest row passes the retention
/// (one timer, re-armed after each prune and each reading stored), never on a fixed interval.
/// The database is opened at the first reading to store, so users without favourites never get one.
/// SQLite calls go through GRDB's async API (its own queues), never blocking the concurrency pool.
public struct HistoryService: Service, CustomStringConvertible {
    let state: ForecastState
    let path: String
    let logger: Logger

    public init(state: ForecastState, path: String, logger: Logger) {
        self.state = state
        self.path = path
        self.logger = logger
    }

    /// `[history] retention_days` in force.
    private var retentionDays: Int { state.settings.value.history.retentionDays }

    public var description: String { "HistoryService" }

    /// The database, opened once, at the first use that may create it. Reads and writes go through
    /// GRDB's async API, which runs them on its own queues: no SQLite call blocks the cooperative pool.
    private final class Database: Sendable {
        private let store = Mutex<HistoryStore?>(nil)
        private let path: String

        init(path: String) { self.path = path }

        /// The store, opened (and created when `create`) at the first call; nil when there is no file
        /// and `create` is false.
        func opened(create: Bool) async throws(HistoryError) -> HistoryStore? {
            if let opened = store.withLock({ $0 }) { return opened }
            // Opening checks the schema once (SQLite's open and a read): on the blocking thread.
            return try await Blocking.run { () throws(HistoryError) -> HistoryStore? in
                try self.store.withLock { store throws(HistoryError) -> HistoryStore? in
                    if let store { return store }
                    guard create || FileManager.default.fileExists(atPath: self.path) else { return nil }
                    let opened = try HistoryStore(path: self.path)
                    store = opened
                    return opened
                }
            }
        }

        func close() {
            store.withLock { store in
                try? store?.close()
                store = nil
            }
        }
    }

    public func run() async {
        let database = Database(path: path)
        defer { database.close() }
        let alarm = Alarm()
        let (dues, due) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await alarm.ring { due.yield() } }
                // The current settings at once (the first prune), then each change (the retention may be one).
                group.addTask { for await _ in state.settings.updates() { due.yield() } }
                group.addTask {
                    for await _ in dues {
                        await prune(database)
                        alarm.arm(await nextPrune(database))
                    }
                }
                for await reading in state.historyRecords {
                    do throws(HistoryError) {
                        let outcome = try await database.opened(create: true)?.record(
                            cityID: reading.cityID, forecast: reading.forecast)
                        logger.debug(
                            "Stored a favourite's reading.",
                            metadata: ["city": "\(reading.cityID)", "outcome": "\(String(describing: outcome))"])
                        await state.setStorageProblem("history", message: nil)
                        alarm.arm(await nextPrune(database))
                    } catch {
                        logger.warning(
                            "A favourite's reading could not be stored; the next refresh tries again.",
                            metadata: ["city": "\(reading.cityID)", "path": "\(path)", "error": "\(error)"])
                        await state.setStorageProblem(
                            "history",
                            message: "Cannot store a favourite's reading in the history \(path) (\(error)); "
                                + "the next refresh tries again.")
                    }
                }
                group.cancelAll()
            }
        }
    }

    /// The moment the oldest row passes the retention, just after it; nil when there is nothing to prune.
    private func nextPrune(_ database: Database) async -> Date? {
        let days = retentionDays
        do throws(HistoryError) {
            let oldest = try await database.opened(create: false)?.oldestRecord()
            return oldest.map { $0.addingTimeInterval(TimeInterval(days) * 86_400 + 1) }
        } catch {
            logger.warning(
                "The history's oldest row could not be read; pruning waits for the next reading or settings change.",
                metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    private func prune(_ database: Database) async {
        let days = retentionDays
        do throws(HistoryError) {
            if let outcome = try await database.opened(create: false)?.prune(retentionDays: days) {
                logger.debug("Pruned the history.", metadata: ["retention_days": "\(days)", "outcome": "\(String(describing: outcome))"])
            }
        } catch {
            logger.warning("The history could not be pruned.", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
