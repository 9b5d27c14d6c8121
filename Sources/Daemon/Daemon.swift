import AsyncHTTPClient
import Control
import ForecastModel
import Foundation
import Location
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import WeatherProviders

/// Wires the daemon's parts together and runs them under one ServiceGroup until SIGTERM or SIGINT.
public struct Daemon {
    public let configuration: DaemonConfiguration
    public let places: (any PlaceNaming)?
    public let logger: Logger

    public init(configuration: DaemonConfiguration, places: (any PlaceNaming)?, logger: Logger) {
        self.configuration = configuration
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
        let state = ForecastState(configuration: configuration, places: places, logger: logger)
        let provider = OpenMeteoProvider(
            url: configuration.openMeteoURL, httpClient: httpClient,
            timeout: .milliseconds(Int64(configuration.providerTimeout * 1000)), userAgent: Self.userAgent,
            logger: logger)

        // Readers first, so they are up before the first report changes, and shut down last.
        var parts: [any Service] = [
            StatusFileService(path: configuration.statusFile, state: state, logger: logger),
            SocketService(path: configuration.socketPath, state: state, logger: logger),
        ]
        if configuration.mode == .auto, let gpsd = configuration.gpsd {
            let gpsdProvider = GPSDLocationProvider(host: gpsd.host, port: gpsd.port, logger: logger)
            parts.append(LocationService(provider: gpsdProvider, state: state))
        }
        parts.append(ForecastService(state: state, provider: provider))
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
