import ForecastModel
import Foundation

// The settings as the daemon's parts read them: values derived from one or more keys, computed beside the
// fields they come from so that nothing holds them a second time. A setting switched off reads as nil here,
// so a part that follows it has one thing to test.

extension Settings {
    /// ``refreshMinutes`` in seconds, for date arithmetic.
    public var refreshSeconds: TimeInterval { TimeInterval(refreshMinutes * 60) }

    /// `[air]`; nil when `[air] enabled` is false.
    public var activeAir: Air? { air.enabled ? air : nil }
}

extension Settings.Location {
    /// gpsd's address; nil when `[location.gpsd] enabled` is false.
    public var activeGPSD: GPSDAddress? { gpsd.enabled ? gpsd.address : nil }
    /// `[location.wifi]`'s service; nil when its `enabled` is false.
    public var activeWiFi: URL? { wifi.enabled ? wifi.url : nil }
    /// Whether `[location.geoclue]` is on.
    public var activeGeoClue: Bool { geoclue.enabled }
    /// `[location.ip]`; nil when its `enabled` is false.
    public var activeIP: Settings.IPGeolocation? { ip.enabled ? ip : nil }
    /// `naming = "city"`: name the city covering a point rather than its district.
    public var namesCities: Bool { naming == .city }
}

extension Settings.Gpsd {
    /// ``maxFixAgeSeconds`` as a time interval, for date arithmetic.
    public var maxFixAgeInterval: TimeInterval { TimeInterval(maxFixAgeSeconds) }
    /// ``recentFixMinutes`` in seconds, for date arithmetic.
    public var recentFixInterval: TimeInterval { TimeInterval(recentFixMinutes * 60) }
}

extension Settings.Nowcast {
    /// `horizon_minutes` in seconds (the report's nowcast horizon); nil when `[nowcast] enabled` is false.
    public var activeHorizon: TimeInterval? { enabled ? horizon : nil }
}

extension Settings.Notifications {
    /// `rain_soon_minutes` in seconds: how long before rain starts "rain soon" is notified.
    public var rainLead: TimeInterval { TimeInterval(rainSoonMinutes * 60) }
}
