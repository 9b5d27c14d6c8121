import Foundation
import History
import Logging
import ServiceLifecycle

/// Keeps the favourites' readings in the history database and prunes what is older than the retention.
///
/// The database is opened at the first reading to store, so users without favourites never get one.
/// SQLite calls block, so they run on a queue of their own, never on the concurrency pool.
public struct HistoryService: Service, CustomStringConvertible {
    let state: ForecastState
    let path: String
    let retentionDays: @Sendable () async -> Int
    let logger: Logger
    /// How often old rows are pruned while the daemon runs.
    let pruneInterval: Duration

    public init(
        state: ForecastState, path: String, retentionDays: @escaping @Sendable () async -> Int, logger: Logger,
        pruneInterval: Duration = .seconds(24 * 3600)
    ) {
        self.state = state
        self.path = path
        self.retentionDays = retentionDays
        self.logger = logger
        self.pruneInterval = pruneInterval
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
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        await prune(database)
                        try? await Task.sleep(for: pruneInterval)
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
