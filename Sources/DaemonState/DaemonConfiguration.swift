import ForecastModel
import Foundation
import Location
import Notifications
import Settings

/// What the daemon's parts need from the settings, in the types they use.
public struct DaemonConfiguration: Sendable, Hashable {
    /// `[location.ip]` when enabled: the services to ask, in order.
    public struct IPLookup: Sendable, Hashable {
        public var endpoints: [IPLocationProvider.Endpoint]

        public init(endpoints: [IPLocationProvider.Endpoint]) {
            self.endpoints = endpoints
        }
    }

    /// One of the user's listed places (`[[cities]]`).
    public struct City: Sendable, Hashable {
        public var id: String
        public var name: String
        public var coordinate: Coordinate
        /// Favourites have every reading kept in the history database.
        public var favorite: Bool

        public init(id: String, name: String, coordinate: Coordinate, favorite: Bool) {
            self.id = id
            self.name = name
            self.coordinate = coordinate
            self.favorite = favorite
        }
    }

    public var units: UnitPreferences
    public var refreshInterval: TimeInterval
    public var mode: LocationMode
    public var pin: Pin?
    /// nil when gpsd is switched off.
    public var gpsd: GPSDAddress?
    public var maxFixAge: TimeInterval
    public var refreshDistanceKm: Double
    /// The weather services, their order and settings.
    public var providers: Settings.Providers
    public var statusFile: String
    public var socketPath: String
    /// `[location] naming = "city"`: name the city covering a point rather than its district.
    public var namesCities: Bool = true
    /// `recent_fix_minutes`, in seconds: how long gpsd's last fix still beats the other sources once it is no longer fresh.
    public var recentFixWindow: TimeInterval = 0
    /// `static_file`, nil when switched off.
    public var staticFile: String?
    /// `[location.ip]`, nil when switched off.
    public var ip: IPLookup?
    /// `max_speed_kmh`: gpsd jumps implying a faster move wait for confirmation.
    public var maxSpeedKmh: Double = 1200
    /// `[[cities]]`: places forecast besides "here", in the file's order.
    public var cities: [City] = []
    /// `[history] retention_days`.
    public var historyRetentionDays: Int = 365
    /// `[warnings]`: which warning services may be asked, and where (see `warningSwitches`, `warningSource`).
    public var warnings = Settings.Warnings()
    /// `[nowcast] horizon_minutes` in seconds (the report's `ReportInputs.nowcastHorizon`); nil when
    /// `[nowcast] enabled` is false.
    public var nowcastHorizon: TimeInterval? = Nowcast.horizon
    /// `[air]`; nil when `[air] enabled` is false.
    public var air: Settings.Air? = Settings.Air()
    /// `[notifications]` for the `Notifier`; nil when `[notifications] enabled` is false (the default).
    public var notifications: NotificationPreferences?
    /// `[display]`: icons and the hot and cold thresholds of bar formats.
    public var display = Settings.Display()
    /// `[[output.files]]`: status files in bar formats besides the JSON one.
    public var statusFiles: [Settings.StatusFile] = []

    public init(
        units: UnitPreferences, refreshInterval: TimeInterval, mode: LocationMode, pin: Pin?, gpsd: GPSDAddress?,
        maxFixAge: TimeInterval,
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

    /// The position sources the daemon may run in these settings, each with what it needs.
    public enum LocationSourceSpec: Sendable, Hashable {
        /// gpsd's reader also follows `max_fix_age_seconds`: it hands fixes on often enough that none looks stale.
        case gpsd(GPSDAddress, maxFixAge: TimeInterval)
        case staticFile(path: String)
        case ip(IPLookup)
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
            mode: settings.location.mode,
            pin: settings.location.pin,
            gpsd: settings.location.gpsd.enabled ? settings.location.gpsd.address : nil,
            maxFixAge: TimeInterval(settings.location.gpsd.maxFixAgeSeconds),
            refreshDistanceKm: settings.location.refreshDistanceKm,
            providers: settings.providers,
            statusFile: settings.output.statusFile,
            socketPath: settings.output.socket)
        display = settings.display
        statusFiles = settings.output.files
        namesCities = settings.location.naming == .city
        recentFixWindow = TimeInterval(settings.location.gpsd.recentFixMinutes * 60)
        staticFile = settings.location.staticFile
        maxSpeedKmh = settings.location.maxSpeedKmh
        historyRetentionDays = settings.history.retentionDays
        warnings = settings.warnings
        nowcastHorizon = settings.nowcast.enabled ? settings.nowcast.horizon : nil
        air = settings.air.enabled ? settings.air : nil
        let notify = settings.notifications
        notifications =
            notify.enabled
            ? NotificationPreferences(
                minimumSeverity: notify.minimumSeverity, rainSoon: notify.rainSoon,
                rainLead: TimeInterval(notify.rainSoonMinutes * 60), morningSummary: notify.morningSummary,
                quietHours: notify.quietHours, actions: notify.actions) : nil
        cities = settings.cities.map {
            City(id: $0.id, name: $0.name, coordinate: $0.coordinate, favorite: $0.favorite)
        }
        if settings.location.ip.enabled {
            ip = IPLookup(
                endpoints: settings.location.ip.services.map { service in
                    IPLocationProvider.Endpoint(service: service, url: settings.location.ip.url(for: service))
                })
        }
    }
}
