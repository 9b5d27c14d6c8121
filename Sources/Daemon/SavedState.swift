import FileStore
import ForecastModel
import Foundation
import Logging
import ServiceLifecycle

/// What survives a restart: the last good forecast (in canonical units, so a units switch still
/// works on it) and the last known position.
public struct SavedState: Sendable, Hashable, Codable {
    /// Bumped when the layout changes in a way older daemons cannot read.
    public static let version = 1

    public var version: Int
    public var forecast: Forecast?
    public var fix: LocationFix?
    /// The listed cities' last good forecasts, by city id (absent in files from before cities existed).
    public var cities: [String: SavedCity]?
    /// The official warnings in force at the last position, so a restart shows them at once (absent in files
    /// from before warnings were saved, and when there were none to keep).
    public var warnings: SavedWarnings?

    /// The warnings of the report when the state was saved, and what they were judged for.
    public struct SavedWarnings: Sendable, Hashable, Codable {
        /// The source that sent them (`nws`) and the position's country (`US`).
        public var source: String
        public var country: String
        /// The position they were matched at.
        public var position: Coordinate
        /// The source's last good answer: after its interval and grace they are marked stale.
        public var fetchedAt: Date
        public var staleAt: Date
        /// As the report carried them; each leaves at its end.
        public var warnings: [WeatherWarning]
        /// How many more were in force than listed.
        public var omitted: Int

        public init(
            source: String, country: String, position: Coordinate, fetchedAt: Date, staleAt: Date,
            warnings: [WeatherWarning], omitted: Int = 0
        ) {
            self.source = source
            self.country = country
            self.position = position
            self.fetchedAt = fetchedAt
            self.staleAt = staleAt
            self.warnings = warnings
            self.omitted = omitted
        }
    }

    /// A listed city's last good forecast and the position it was asked for (a city moved in the
    /// settings since then must not show the old place's weather).
    public struct SavedCity: Sendable, Hashable, Codable {
        public var coordinate: Coordinate
        public var forecast: Forecast

        public init(coordinate: Coordinate, forecast: Forecast) {
            self.coordinate = coordinate
            self.forecast = forecast
        }
    }

    public init(
        forecast: Forecast?, fix: LocationFix?, cities: [String: SavedCity]? = nil, warnings: SavedWarnings? = nil
    ) {
        self.version = Self.version
        self.forecast = forecast
        self.fix = fix
        self.cities = cities
        self.warnings = warnings
    }
}

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
