import AsyncHTTPClient
import Control
import ForecastModel
import Foundation
import Location
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Settings
import WeatherProviders

/// Wires the daemon's parts together and runs them under one ServiceGroup until SIGTERM or SIGINT.
public struct Daemon {
    public let settings: Settings
    public let settingsPath: String?
    public let explicitSettingsPath: String?
    public let isSystemService: Bool
    public let places: (any PlaceNaming)?
    public let logger: Logger

    /// - Parameters:
    ///   - settings: the settings read at start.
    ///   - settingsPath: the file they came from (nil: built-in defaults).
    ///   - explicitSettingsPath: `--config`, so reloads search the same way start-up did.
    public init(
        settings: Settings, settingsPath: String?, explicitSettingsPath: String?, isSystemService: Bool,
        places: (any PlaceNaming)?, logger: Logger
    ) {
        self.settings = settings
        self.settingsPath = settingsPath
        self.explicitSettingsPath = explicitSettingsPath
        self.isSystemService = isSystemService
        self.places = places
        self.logger = logger
    }

    /// The User-Agent forecastd sends to every service.
    public static let userAgent = "forecastd/\(ForecastdVersion.current) (weather daemon for status bars)"

    public func run() async throws {
        // Start-up code (argument parsing, settings, library initialisers) is done with: let only
        // the code the running daemon uses stay resident.
        let advised = ResidentText.trim()
        logger.debug("Dropped start-up code from memory.", metadata: ["mappings": "\(advised)"])
        var httpConfiguration = HTTPClient.Configuration()
        // A refused connection means "offline" now, not after retrying until the request deadline.
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
        do {
            try await runServices(httpClient: httpClient)
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        try await httpClient.shutdown()
    }

    private func runServices(httpClient: HTTPClient) async throws {
        let configuration = DaemonConfiguration(settings)
        let state = ForecastState(configuration: configuration, places: places, logger: logger)

        // The last good report and position from before a restart, published at once (stale).
        let store = StateStore(directory: settings.stateDirectory, logger: logger)
        if let saved = store.load() {
            logger.info("Restored the last report from before the restart.", metadata: ["path": "\(store.path)"])
            await state.restore(saved)
        }

        let reloader = SettingsReloader(
            initial: settings, sourcePath: settingsPath, explicitPath: explicitSettingsPath,
            isSystemService: isSystemService, state: state, logger: logger)
        let logger = self.logger
        let userAgent = Self.userAgent

        // Readers first, so they are up before the first report changes, and shut down last.
        let parts: [any Service] = [
            StateService(store: store, state: state, logger: logger),
            StatusFileService(path: configuration.statusFile, state: state, logger: logger),
            SocketService(
                path: configuration.socketPath, state: state, logger: logger,
                reload: { await reloader.reload(reason: "forecastctl reload") }),
            SettingsService(reloader: reloader),
            LocationService(state: state) { gpsd in
                GPSDLocationProvider(host: gpsd.host, port: gpsd.port, logger: logger)
            },
            ForecastService(state: state) { configuration in
                OpenMeteoProvider(
                    url: configuration.openMeteoURL, httpClient: httpClient,
                    timeout: .milliseconds(Int64(configuration.providerTimeout * 1000)), userAgent: userAgent,
                    logger: logger)
            },
        ]
        // Whatever ends a service (a failure included), the others stop gracefully, never by
        // cancellation: the socket server drains its accepted connections on graceful shutdown only.
        let services = parts.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
                logger: logger))
        try await group.run()
    }
}
