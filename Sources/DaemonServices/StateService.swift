import DaemonState
import FileStore
import ForecastModel
import Foundation
import Logging
import ServiceLifecycle
import Waiting

/// Reads and writes the saved state in the state directory (`$XDG_STATE_HOME/forecastd`, or
/// `/var/lib/forecastd` for a system service). A file that cannot be read is set aside, never fatal.
public struct StateStore: Sendable {
    /// The largest `state.json` read: a forecast for each listed city is a few kilobytes.
    public static let maximumFileBytes = 16 << 20

    let file: VersionedJSONFile<SavedState>
    let logger: Logger

    public var path: String { file.path }

    public init(directory: String, logger: Logger) {
        self.file = VersionedJSONFile(
            path: directory + "/state.json", dates: .secondsSince1970, maximumBytes: Self.maximumFileBytes)
        self.logger = logger
    }

    /// The saved state, or nil when there is none or it is unusable (then it is renamed aside).
    public func load() -> SavedState? {
        switch file.load() {
        case .value(let state):
            return state
        case .missing:
            return nil
        case .unusable(let reason, let aside):
            logger.warning(
                "The saved state cannot be read; starting without it.",
                metadata: ["path": "\(path)", "set_aside_as": "\(aside ?? "(could not rename)")", "error": "\(reason)"])
            return nil
        }
    }

    /// Writes the state atomically.
    public func save(_ state: SavedState) throws(AtomicFile.WriteError) {
        try file.save(state)
    }

    /// Removes what an interrupted run left: temporaries of atomic writes, old set-aside copies.
    public func removeLeftovers() -> [String] { file.removeLeftovers() }
}

/// Writes the saved state whenever it changes, and once more when the daemon stops.
public struct StateService: Service, CustomStringConvertible {
    let store: StateStore
    let state: ForecastState
    let logger: Logger

    public init(store: StateStore, state: ForecastState, logger: Logger) {
        self.store = store
        self.state = state
        self.logger = logger
    }

    public var description: String { "StateService(\(store.path))" }

    public func run() async {
        var failing = false
        for await saved in state.savedStates.cancelOnGracefulShutdown() {
            do {
                // Two fsyncs: on the blocking thread, never on an event loop.
                try await Blocking.run { [store] () throws(AtomicFile.WriteError) in try store.save(saved) }
                if failing {
                    logger.info("The state is saved again.", metadata: ["path": "\(store.path)"])
                    failing = false
                    await state.setStorageProblem("state", message: nil)
                }
            } catch {
                if !failing {
                    logger.error("Cannot save the state; the last report will not survive a restart.", metadata: ["error": "\(error)"])
                    failing = true
                }
                await state.setStorageProblem(
                    "state", message: "Cannot save the state (\(error)); the last report will not survive a restart.")
            }
        }
    }
}
