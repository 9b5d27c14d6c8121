import Foundation
import History
import Logging
import ServiceLifecycle

/// Keeps the favourites' readings in the history database and prunes what is older than the retention.
///
/// Pruning runs at start, when the settings change, and at the moment the oldest row passes the retention
/// (one timer, re-armed after each prune and each reading stored), never on a fixed interval.
/// The database is opened at the first reading to store, so users without favourites never get one.
/// SQLite calls block, so they run on a queue of their own, never on the concurrency pool.
public struct HistoryService: Service, CustomStringConvertible {
    let state: ForecastState
    let path: String
    let retentionDays: @Sendable () async -> Int
    let logger: Logger

    public init(
        state: ForecastState, path: String, retentionDays: @escaping @Sendable () async -> Int, logger: Logger
    ) {
        self.state = state
        self.path = path
        self.retentionDays = retentionDays
        self.logger = logger
    }

    public var description: String { "HistoryService" }

    /// The database, opened once; its calls are serialised on `queue`.
    private final class Database: @unchecked Sendable {
        // Touched only on `queue`; that is what makes the unchecked Sendable sound.
        private var store: HistoryStore?
        private let path: String
        private let queue = DispatchQueue(label: "forecastd.history")

        init(path: String) { self.path = path }

        func run<T: Sendable>(
            openIfMissing: Bool, _ body: @escaping @Sendable (HistoryStore) throws(HistoryError) -> T
        ) async throws(HistoryError) -> T? {
            let result: Result<T?, HistoryError> = await withCheckedContinuation { continuation in
                queue.async {
                    do throws(HistoryError) {
                        if self.store == nil {
                            guard openIfMissing || FileManager.default.fileExists(atPath: self.path) else {
                                continuation.resume(returning: .success(nil))
                                return
                            }
                            self.store = try HistoryStore(path: self.path)
                        }
                        continuation.resume(returning: .success(try body(self.store!)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
            return try result.get()
        }

        func close() {
            queue.sync {
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
                group.addTask { for await _ in await state.configurationUpdates() { due.yield() } }
                group.addTask {
                    for await _ in dues {
                        await prune(database)
                        alarm.arm(await nextPrune(database))
                    }
                }
                for await reading in state.historyRecords {
                    do throws(HistoryError) {
                        let outcome = try await database.run(openIfMissing: true) { store throws(HistoryError) in
                            try store.record(cityID: reading.cityID, forecast: reading.forecast)
                        }
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
        let days = await retentionDays()
        do throws(HistoryError) {
            let oldest = try await database.run(openIfMissing: false) { store throws(HistoryError) in
                try store.oldestRecord()
            }
            return (oldest ?? nil).map { $0.addingTimeInterval(TimeInterval(days) * 86_400 + 1) }
        } catch {
            logger.warning(
                "The history's oldest row could not be read; pruning waits for the next reading or settings change.",
                metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    private func prune(_ database: Database) async {
        let days = await retentionDays()
        do throws(HistoryError) {
            if let outcome = try await database.run(openIfMissing: false, { store throws(HistoryError) in
                try store.prune(retentionDays: days)
            }) {
                logger.debug("Pruned the history.", metadata: ["retention_days": "\(days)", "outcome": "\(String(describing: outcome))"])
            }
        } catch {
            logger.warning("The history could not be pruned.", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
