import DaemonState
import FileStore
import ForecastModel
import Foundation
import Logging
import ServiceLifecycle

/// Reads and writes the saved state in the state directory (`$XDG_STATE_HOME/forecastd`, or
/// `/var/lib/forecastd` for a system service). A file that cannot be read is set aside, never fatal.
public struct StateStore: Sendable {
    public let path: String
    let logger: Logger

    public init(directory: String, logger: Logger) {
        self.path = directory + "/state.json"
        self.logger = logger
    }

    /// The saved state, or nil when there is none or it is unusable (then it is renamed aside).
    public func load() -> SavedState? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            let state = try Self.decoder.decode(SavedState.self, from: data)
            guard state.version == SavedState.version else {
                throw StateError(description: "version \(state.version), expected \(SavedState.version)")
            }
            return state
        } catch {
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            let moved = rename(path, aside) == 0
            logger.warning(
                "The saved state cannot be read; starting without it.",
                metadata: ["path": "\(path)", "set_aside_as": "\(moved ? aside : "(could not rename)")", "error": "\(error)"])
            return nil
        }
    }

    /// Writes the state atomically.
    public func save(_ state: SavedState) throws {
        try AtomicFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let data = try Self.encoder.encode(state)
        try AtomicFile.write(Array(data), to: path, mode: 0o600)
    }

    struct StateError: Error, CustomStringConvertible {
        var description: String
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
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
                try store.save(saved)
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
