import AsyncHTTPClient
import Control
import ControlServer
import DaemonServices
import DaemonState
import Fetching
import FileStore
import ForecastModel
import Foundation
import GeoClueLocation
import Location
import Logging
import NIOCore
import NIOPosix
import Notifications
import ServiceLifecycle
import Settings
import Systemd
import Waiting
import WiFiLocation
import WeatherProviders

#if canImport(Glibc)
    import Glibc
#endif

/// Wires the daemon's parts together and runs them under one ServiceGroup until SIGTERM or SIGINT.
public struct DaemonComposition: Sendable {
    public let settings: Settings
    public let settingsPath: String?
    /// The settings file's signature, taken before it was read.
    public let settingsSignature: FileSignature?
    public let explicitSettingsPath: String?
    public let isSystemService: Bool
    /// The gazetteer: names positions, and finds places by name for `pin PLACE` on the socket.
    public let places: (any PlaceNaming & PlaceSearching)?
    public let logger: Logger

    /// - Parameters:
    ///   - settings: the settings read at start.
    ///   - settingsPath: the file they came from (nil: built-in defaults).
    ///   - settingsSignature: that file's signature, taken before it was read (the reloader's starting point).
    ///   - explicitSettingsPath: `--config`, so reloads search the same way start-up did.
    public init(
        settings: Settings, settingsPath: String?, settingsSignature: FileSignature?, explicitSettingsPath: String?,
        isSystemService: Bool, places: (any PlaceNaming & PlaceSearching)?, logger: Logger
    ) {
        self.settings = settings
        self.settingsPath = settingsPath
        self.settingsSignature = settingsSignature
        self.explicitSettingsPath = explicitSettingsPath
        self.isSystemService = isSystemService
        self.places = places
        self.logger = logger
    }

    /// The socket systemd passed that the daemon serves: the listening Unix stream socket (the
    /// first, should there be several). Descriptors it cannot serve are closed, and said so.
    static func socketToServe(_ passed: SocketActivation.Passed, logger: Logger) -> SocketActivation.PassedSocket? {
        if let reason = passed.ignoredBecause {
            logger.warning("Ignoring the sockets systemd announced.", metadata: ["reason": "\(reason)"])
        }
        var chosen: SocketActivation.PassedSocket?
        for socket in passed.sockets {
            if socket.unixPath != nil, chosen == nil {
                chosen = socket
                continue
            }
            logger.warning(
                "systemd passed a descriptor forecastd cannot serve; closing it.",
                metadata: ["descriptor": "\(socket.descriptor)", "name": "\(socket.name)", "kind": "\(socket.kind)"])
            close(socket.descriptor)
        }
        return chosen
    }

    /// Removes what a crash of an earlier run left behind: temporary files of the state files' and the
    /// status file's atomic writes, all but the newest ``Leftovers/keptSetAsideCopies`` copies of each
    /// unreadable state file, and a socket bound under its temporary name by a daemon that is gone.
    static func removeLeftovers(
        store: StateStore, ipCachePath: String, statusFile: String, socketPath: String, logger: Logger
    ) {
        var removed = store.removeLeftovers()
        removed += NotificationStore(directory: URL(fileURLWithPath: store.path).deletingLastPathComponent().path, logger: logger)
            .removeLeftovers()
        removed += IPLocationProvider.removeLeftovers(cachePath: ipCachePath)
        removed += WiFiLocationProvider.removeLeftovers(
            memoryPath: URL(fileURLWithPath: ipCachePath).deletingLastPathComponent().path + "/wifi-location.json")
        removed += Leftovers.removeTemporaries(of: statusFile)
        removed += Leftovers.removeOrphans(
            prefix: ".forecastd.sock.", in: URL(fileURLWithPath: socketPath).deletingLastPathComponent().path)
        if !removed.isEmpty {
            logger.info(
                "Removed files an interrupted run left behind.",
                metadata: ["paths": "\(removed.joined(separator: ", "))"])
        }
    }

    /// The daemon's fixed waits: the real ones, or the shorter ones a test asks for with
    /// `FORECASTD_TEST_INTERVALS` (said in the log, as is a value the daemon refuses).
    static func intervals(logger: Logger) -> DaemonIntervals {
        switch DaemonIntervals.fromEnvironment(ProcessInfo.processInfo.environment) {
        case .success(let intervals):
            if intervals.isShortened {
                logger.notice(
                    "The daemon's waits are shortened for a test.",
                    metadata: [
                        "user_refresh": "\(intervals.userRefresh)", "first_request": "\(intervals.firstRequest)",
                        "locating_grace": "\(intervals.locatingGrace)",
                        "status_file_hold": "\(intervals.statusFileHold)",
                    ])
            }
            return intervals
        case .failure(let problem):
            logger.warning("The test intervals are refused; the real waits are used.", metadata: ["reason": "\(problem)"])
            return .real
        }
    }

    public func run() async throws {
        // Taken first, so the variables are gone before anything could start a child process.
        let passed = SocketActivation.take()
        var httpConfiguration = HTTPClient.Configuration()
        // A refused connection means "offline" now, not after retrying until the request deadline.
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
        do {
            try await runServices(httpClient: httpClient, passed: passed)
        } catch {
            try? await httpClient.shutdownOffGlobalPool()
            throw error
        }
        try await httpClient.shutdownOffGlobalPool()
    }

    private func runServices(httpClient: HTTPClient, passed: SocketActivation.Passed) async throws {
        let notifier = SystemdNotifier(logger: logger)
        let startup = StartupGate()
        let intervals = Self.intervals(logger: logger)
        let store = StateStore(directory: settings.stateDirectory, logger: logger)
        let state = await restoredState(from: store, intervals: intervals)
        let reloader = SettingsReloader(
            initial: settings, sourcePath: settingsPath, sourceSignature: settingsSignature, explicitPath: explicitSettingsPath,
            isSystemService: isSystemService, state: state, logger: logger, notifier: notifier)
        let socket = socketOptions(reloader: reloader, intervals: intervals, passed: passed, startup: startup)
        let services = services(
            state: state, store: store, reloader: reloader, socket: socket, intervals: intervals, notifier: notifier, startup: startup, httpClient: httpClient)
        try await serviceGroup(services).run()
    }

    /// The state owner, with the last good report and position from before a restart published at once
    /// (stale), what a crash left behind removed, and judged once.
    ///
    /// The reads (the saved state, the leftovers' directory listings, the language's catalogue) run on
    /// `Blocking`'s thread: this task runs on an event loop, and a state directory on a slow disk or a stalled
    /// network mount must not hold the loops that serve the socket.
    private func restoredState(
        from store: StateStore, intervals: DaemonIntervals
    ) async -> ForecastState {
        // The catalogue is read once per process and kept; read here, every later render finds it in memory.
        await Blocking.run { [settings, logger] in _ = settings.display.phrases(logger: logger) }
        let state = ForecastState(settings: settings, places: places, logger: logger, intervals: intervals)
        if let followed {
            logger.info("Following another forecastd's report on MQTT; no provider is asked.", metadata: ["follow": "\(followed)"])
            await state.startFollowing(topic: followed)
        }
        if let saved = await Blocking.run({ [store] in store.load() }) {
            logger.info("Restored the last report from before the restart.", metadata: ["path": "\(store.path)"])
            await state.restore(saved)
        }
        // After the load, which may set one more unreadable copy aside; before anything is written.
        await Blocking.run { [ipCachePath, settings, logger] in
            Self.removeLeftovers(
                store: store, ipCachePath: ipCachePath,
                statusFile: settings.output.statusFile, socketPath: settings.output.socket, logger: logger)
        }
        // Judged once before anything is served: the first report a client or systemd sees already
        // has the pin, rather than the blank state the actor starts from.
        await state.tick()
        return state
    }

    /// `[mqtt] follow` when MQTT is on: the topic whose report this daemon shows instead of fetching its own.
    private var followed: String? { settings.mqtt.enabled ? settings.mqtt.follow : nil }

    /// The last IP lookup survives restarts, so restarting never means another lookup within the hour.
    private var ipCachePath: String { settings.stateDirectory + "/ip-location.json" }
    private var wifiMemoryPath: String { settings.stateDirectory + "/wifi-location.json" }

    /// The socket's limits and access, and the handlers of the requests that act (the reloader's).
    private func socketOptions(
        reloader: SettingsReloader, intervals: DaemonIntervals, passed: SocketActivation.Passed, startup: StartupGate
    ) -> SocketService.Options {
        let places = self.places
        var options = SocketService.Options(maxClients: settings.output.maxClients)
        options.firstRequestTimeout = .nanoseconds(Int64((intervals.firstRequest * 1e9).rounded()))
        options.group = settings.output.socketGroup
        options.reload = { await reloader.reload(reason: "a reload request on the socket").answer }
        options.changeSettings = { [explicitSettingsPath] request in
            await SocketSettingsChange.apply(
                request, explicitPath: explicitSettingsPath, places: places, inEffect: { await reloader.inEffect },
                reload: { reason in await reloader.reload(reason: reason) })
        }
        options.passedSocket = Self.socketToServe(passed, logger: logger)
        options.listening = { startup.done(.socketListening) }
        return options
    }

    /// Every service of the daemon, readers first, so they are up before the first report changes, and
    /// shut down last.
    private func services(
        state: ForecastState, store: StateStore, reloader: SettingsReloader, socket: SocketService.Options,
        intervals: DaemonIntervals, notifier: SystemdNotifier,
        startup: StartupGate, httpClient: HTTPClient
    ) -> [any Service] {
        let logger = self.logger
        let places = self.places
        var parts: [any Service] = [
            StateService(store: store, state: state, logger: logger),
            StatusFileService(
                path: settings.output.statusFile, socketGroup: settings.output.socketGroup, state: state, logger: logger,
                hold: .seconds(intervals.statusFileHold), published: { startup.done(.reportPublished) }),
        ]
        parts.append(StatusFilesService(state: state, logger: logger))
        parts += [
            SocketService(path: settings.output.socket, state: state, logger: logger, options: socket),
            SettingsService(reloader: reloader),
            HistoryService(state: state, path: settings.historyDatabasePath, logger: logger),
            WakeService(state: state, logger: logger),
        ]
        // A follower asks nothing of anyone but its broker: the position, the forecast, the warnings and the air
        // all come in the followed report.
        if followed == nil {
            parts += [
                locationService(state: state, httpClient: httpClient),
                ForecastService(state: state) { settings in
                    Self.providerChain(settings.providers, httpClient: httpClient, places: places, logger: logger)
                },
            ]
            parts += alertServices(state: state, httpClient: httpClient)
        } else {
            parts.append(notificationService(state: state))
        }
        // Whether MQTT is on or off: a publisher takes `[mqtt]` edits live (and waits for one while it is off).
        parts.append(MQTTService(state: state, settings: settings.mqtt, logger: logger))
        if notifier.isEnabled {
            // Last, so that graceful shutdown reaches it first: STOPPING=1 before anything stops.
            let watchdog = SystemdNotifier.watchdogInterval().map { interval in
                // A round trip through the state owner: a wedged actor stops the pings.
                Watchdog(notifier: notifier, interval: interval, probe: { _ = await state.currentSettings })
            }
            parts.append(SystemdService(notifier: notifier, state: state, startup: startup, watchdog: watchdog))
        }
        return parts
    }

    /// The position sources the state asks for, built from their settings.
    private func locationService(state: ForecastState, httpClient: HTTPClient) -> LocationService {
        let logger = self.logger
        let ipCachePath = self.ipCachePath
        let wifiMemoryPath = self.wifiMemoryPath
        return LocationService(state: state) { source in
            switch source {
            case .gpsd(let gpsd, let maxFixAge):
                GPSDLocationProvider(
                    host: gpsd.host, port: gpsd.port,
                    handOnInterval: GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(maxFixAge)), logger: logger)
            case .staticFile(let path):
                StaticFileLocationProvider(path: path)
            case .wifi(let url):
                WiFiLocationProvider(
                    geolocation: WiFiGeolocationClient(
                        url: url, client: httpClient, userAgent: Self.userAgent.daemon, logger: logger),
                    memoryPath: wifiMemoryPath, logger: logger)
            case .geoclue:
                GeoClueLocationProvider(logger: logger)
            case .ip(let endpoints):
                IPLocationProvider(
                    endpoints: endpoints,
                    client: httpClient, userAgent: Self.userAgent.daemon,
                    cachePath: ipCachePath, logger: logger)
            }
        }
    }

    /// One group for the services: whatever ends a service (a failure included), the others stop gracefully,
    /// never by cancellation: the socket server drains its accepted connections on graceful shutdown only.
    private func serviceGroup(_ parts: [any Service]) -> ServiceGroup {
        let services = parts.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        return ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
                logger: logger))
    }
}
