import ForecastModel
import Foundation
import Settings

/// What the daemon's parts need from the settings, in the types they use.
public struct DaemonConfiguration: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable {
        case auto
        case pinned
    }

    public struct GPSD: Sendable, Hashable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    public struct Pin: Sendable, Hashable {
        public var coordinate: Coordinate
        public var name: String?

        public init(coordinate: Coordinate, name: String?) {
            self.coordinate = coordinate
            self.name = name
        }
    }

    public var units: UnitSystem
    public var refreshInterval: TimeInterval
    public var mode: Mode
    public var pin: Pin?
    /// nil when gpsd is switched off.
    public var gpsd: GPSD?
    public var maxFixAge: TimeInterval
    public var refreshDistanceKm: Double
    /// The weather services, their order and settings.
    public var providers: Settings.Providers
    public var statusFile: String
    public var socketPath: String
    /// `[location] naming = "city"`: name the city covering a point rather than its district.
    public var namesCities: Bool = true

    public init(
        units: UnitSystem, refreshInterval: TimeInterval, mode: Mode, pin: Pin?, gpsd: GPSD?, maxFixAge: TimeInterval,
        refreshDistanceKm: Double, providers: Settings.Providers, statusFile: String, socketPath: String
    ) {
        self.units = units
        self.refreshInterval = refreshInterval
        self.mode = mode
        self.pin = pin
        self.gpsd = gpsd
        self.maxFixAge = maxFixAge
        self.refreshDistanceKm = refreshDistanceKm
        self.providers = providers
        self.statusFile = statusFile
        self.socketPath = socketPath
    }

    /// A forecast older than this is marked stale: two refresh intervals leave room for one failed refresh.
    var staleAfter: TimeInterval { refreshInterval * 2 }
}

extension DaemonConfiguration {
    /// The daemon's view of the user's settings.
    public init(_ settings: Settings) {
        self.init(
            units: settings.units,
            refreshInterval: TimeInterval(settings.refreshMinutes * 60),
            mode: settings.location.mode == .pinned ? .pinned : .auto,
            pin: settings.location.pin.map { Pin(coordinate: $0.coordinate, name: $0.name) },
            gpsd: settings.location.gpsd.enabled
                ? GPSD(host: settings.location.gpsd.host, port: settings.location.gpsd.port) : nil,
            maxFixAge: TimeInterval(settings.location.gpsd.maxFixAgeSeconds),
            refreshDistanceKm: settings.location.refreshDistanceKm,
            providers: settings.providers,
            statusFile: settings.output.statusFile,
            socketPath: settings.output.socket)
        namesCities = settings.location.naming == .city
    }
}
