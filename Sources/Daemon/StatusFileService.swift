import ForecastModel
import FileStore
import Foundation
import Logging
import Rendering
import ServiceLifecycle

/// Writes every new report to the status file, atomically, so a bar never reads half a file.
public struct StatusFileService: Service, CustomStringConvertible {
    let path: String
    let state: ForecastState
    let logger: Logger

    public init(path: String, state: ForecastState, logger: Logger) {
        self.path = path
        self.state = state
        self.logger = logger
    }

    public var description: String { "StatusFileService(\(path))" }

    public func run() async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var failing = false
        for await report in await state.subscribe().cancelOnGracefulShutdown() {
            do {
                try AtomicFile.makeDirectory(directory)
                try AtomicFile.write(Array((ReportJSON.line(report) + "\n").utf8), to: path, mode: 0o644)
                if failing {
                    logger.info("The status file is written again.", metadata: ["path": "\(path)"])
                    failing = false
                }
            } catch {
                // Logged once per failure streak: a full disk must not flood the journal.
                if !failing {
                    logger.error("Cannot write the status file; will retry on the next report.", metadata: ["error": "\(error)"])
                    failing = true
                }
            }
        }
    }
}
