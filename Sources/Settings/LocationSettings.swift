import ForecastModel
import Foundation

// `[location]`, `[location.pin]`, `[location.gpsd]`, `[location.wifi]` and `[location.ip]`: the values, each field's
// initial value being its key's default, and the keys' rows.

extension Settings {
    /// Which name a position gets: `location.naming`.
    public enum PlaceNaming: String, Sendable, Hashable, CaseIterable {
        /// The city whose area plausibly covers the point (Paris for Saint-Ouen), weighing population
        /// against distance.
        case city
        /// The nearest locality in the gazetteer, however small.
        case nearest
    }

    /// `[location]`: where forecasts are for.
    public struct Location: Sendable, Hashable {
        /// `mode`.
        public var mode: LocationMode = .auto
        /// `refresh_distance_km`: a move farther than this refreshes the forecast before its interval ends.
        public var refreshDistanceKm = 5.0
        /// `naming`: which place name a position gets.
        public var naming: PlaceNaming = .city
        /// `static_file`: a GeoClue static-source file (latitude, longitude, altitude, accuracy, one per
        /// line, `#` comments); `nil` when the key is `""`, which disables it.
        public var staticFile: String? = "/etc/geolocation"
        /// `max_speed_kmh`: a jump implying a faster move is ignored unless following fixes confirm it.
        public var maxSpeedKmh = 1200.0
        /// `[location.pin]`: a fixed place, when the user gave one.
        public var pin: Pin?
        /// `[location.gpsd]`.
        public var gpsd = Gpsd()
        /// `[location.wifi]`.
        public var wifi = WiFiGeolocation()
        /// `[location.geoclue]`.
        public var geoclue = GeoClue()
        /// `[location.ip]`.
        public var ip = IPGeolocation()
    }

    /// `[location.geoclue]`: GeoClue 2, the desktop's location service, where its agent runs.
    public struct GeoClue: Sendable, Hashable {
        /// `enabled`.
        public var enabled = true
    }

    /// `[location.wifi]`: the position of the Wi-Fi access points NetworkManager knows, located by an
    /// Ichnaea-compatible service (beaconDB).
    public struct WiFiGeolocation: Sendable, Hashable {
        /// `enabled`: whether to send the access points' addresses to the service at all (off for privacy).
        public var enabled = true
        /// `url`: the service's `geolocate` endpoint.
        public var url = ServiceURL.beaconDB
    }

    /// `[location.gpsd]`: the gpsd daemon to ask for fixes.
    public struct Gpsd: Sendable, Hashable {
        /// `enabled`.
        public var enabled = true
        /// `host`.
        public var host = "127.0.0.1"
        /// `port`.
        public var port = 2947
        /// `max_fix_age_seconds`: a fix older than this no longer counts as fresh.
        public var maxFixAgeSeconds = 120
        /// `recent_fix_minutes`: once the last fix is older than ``maxFixAgeSeconds``, it is still
        /// preferred over the static file, IP geolocation and the pin for this long (0: not at all).
        public var recentFixMinutes = 30

        /// ``maxFixAgeSeconds`` as a duration.
        public var maxFixAge: Duration { .seconds(maxFixAgeSeconds) }

        /// ``recentFixMinutes`` as a duration.
        public var recentFixWindow: Duration { .seconds(recentFixMinutes * 60) }

        /// ``host`` and ``port``.
        public var address: GPSDAddress { GPSDAddress(host: host, port: port) }
    }

    /// `[location.ip]`: the position of the network's public address, city-level at best.
    public struct IPGeolocation: Sendable, Hashable {
        /// `enabled`: whether to ask IP geolocation services at all (off for privacy).
        public var enabled = true
        /// `services`: tried in this order; never empty, no service twice.
        public var services: [IPGeolocationService] = [.ipinfo, .ipapi]
        /// `ipinfo_url`.
        public var ipinfoURL = ServiceURL.ipinfo
        /// `ipapi_url`.
        public var ipapiURL = ServiceURL.ipapi
        /// `ifconfig_url`.
        public var ifconfigURL = ServiceURL.ifconfig
        /// `ip_api_url`: ip-api.com's free tier is HTTP only.
        public var ipAPIURL = ServiceURL.ipAPI

        /// The endpoint of `service`.
        public func url(for service: IPGeolocationService) -> URL {
            switch service {
            case .ipinfo: ipinfoURL
            case .ipapi: ipapiURL
            case .ifconfig: ifconfigURL
            case .ipAPI: ipAPIURL
            }
        }
    }

    static let locationTable = SettingsTable.Table(
        ["location"], \Settings.location,
        [
            .key(
                "mode", \.mode, .choice(LocationMode.self, noun: "a location mode"), .live,
                """
                How forecastd decides where it is:
                  "auto"    a fresh gpsd fix first; without one, the last gpsd fix while it is recent, then
                            Wi-Fi positioning, then the static file, then GeoClue, then IP geolocation, then
                            the pin below;
                  "pinned"  the pin only (then the [location.pin] table is required).
                """),
            .key(
                "refresh_distance_km", \.refreshDistanceKm, .number(0.1...1000), .live,
                """
                Moving farther than this, in kilometres, fetches a new forecast before refresh_minutes is up
                ({allowed}).
                """),
            .key(
                "naming", \.naming, .choice(PlaceNaming.self, noun: "a naming rule"), .live,
                """
                The name a position gets:
                  "city"     the city whose area plausibly covers the point, weighing population against
                             distance: Paris rather than Saint-Ouen, Lisbon rather than Areeiro;
                  "nearest"  the nearest locality, however small (Saint-Ouen).
                Far from any place the report says "near X" with the distance, whichever rule is chosen.
                """),
            .key(
                "static_file", \.staticFile, .absolutePath.emptyMeansNone, .live,
                """
                GeoClue's static-source file (latitude, longitude, altitude and accuracy, one per line, with
                # comments), used in "auto" mode when it exists. "" disables it.
                """),
            .key(
                "max_speed_kmh", \.maxSpeedKmh, .number(1...100_000), .live,
                """
                A new position implying a faster move than this, in km/h, is ignored unless the following
                fixes confirm it ({allowed}).
                """),
        ])

    static let pinTable = SettingsTable.Table(
        optional: ["location", "pin"], \Settings.location.pin,
        documentation: """
            A fixed place, used when mode is "pinned" and as the last fallback in "auto". There is no pin
            by default. Latitude (-90 to 90) and longitude (-180 to 180) are decimal degrees and both are
            required; (0, 0) is rejected because it is where broken receivers claim to be. The name is
            optional and replaces the place name forecastd would look up. `forecastctl pin` writes this
            table from coordinates, a geo: URI, an OpenStreetMap or Google Maps link, or a place name.
            """,
        [
            .example("latitude", \.coordinate.latitude, .number(-90...90), .number(-34.9011)),
            .example("longitude", \.coordinate.longitude, .number(-180...180), .number(-56.1645)),
            .example(
                "name", \.name, .nonEmpty("a non-empty name, or no name key at all").optional, .string("Montevideo")),
        ])

    static let gpsdTable = SettingsTable.Table(
        ["location", "gpsd"], \Settings.location.gpsd,
        [
            .key("enabled", \.enabled, .boolean, .live, "Whether to ask gpsd for the position at all."),
            .key(
                "host", \.host, .nonEmpty("a host name or IP address"), .live,
                "The host gpsd listens on: a host name or IP address."),
            .key("port", \.port, .integer(1...65535), .live, "The TCP port gpsd listens on ({allowed})."),
            .key(
                "max_fix_age_seconds", \.maxFixAgeSeconds, .integer(1...86400), .live,
                "A fix older than this many seconds no longer counts as the current position ({allowed})."),
            .key(
                "recent_fix_minutes", \.recentFixMinutes, .integer(0...1440), .live,
                """
                After that, the last gpsd fix is still preferred over the static file, IP geolocation and the
                pin for this many minutes ({allowed}; 0 turns this off).
                """),
        ])

    static let wifiTable = SettingsTable.Table(
        ["location", "wifi"], \Settings.location.wifi,
        [
            .key(
                "enabled", \.enabled, .boolean, .live,
                """
                Whether to locate by the Wi-Fi access points NetworkManager has already found (no scan of
                forecastd's own, no privileges): their hardware addresses, signal strengths, channels and ages,
                never the network names, are sent to the service below, only when the set of access points
                means a new place, at most once in 10 minutes for the same place. Used after a gpsd fix and
                before the static file. false keeps them private (so does FORECASTD_WIFI_GEOLOCATION=off in
                the daemon's environment, when there is no settings file).
                """),
            .key(
                "url", \.url, .httpURL, .live,
                """
                The geolocation service's endpoint (Ichnaea's interface), an http or https URL: beaconDB's by
                default; change it for another Ichnaea-compatible service or a test server.
                """),
        ])

    static let geoclueTable = SettingsTable.Table(
        ["location", "geoclue"], \Settings.location.geoclue,
        [
            .key(
                "enabled", \.enabled, .boolean, .live,
                """
                Whether to ask GeoClue, the desktop's location service (GNOME and KDE run its agent, which
                may ask you first), for one position when gpsd, Wi-Fi and the static file know nothing; asked
                again after an hour. Without an agent (a tiling window manager's session, as a rule) it is
                skipped with one log line.
                """),
        ])

    static let ipTable = SettingsTable.Table(
        ["location", "ip"], \Settings.location.ip,
        [
            .key(
                "enabled", \.enabled, .boolean, .live,
                """
                Whether to ask IP geolocation services where the network's public address is (city-level at
                best). Asked only when gpsd, Wi-Fi and the static file know nothing, never while traffic
                leaves through a VPN (whose exit it would locate), and at most once an hour. false keeps your
                address private (so does FORECASTD_IP_GEOLOCATION=off in the daemon's environment, when there
                is no settings file).
                """),
            .key(
                "services", \.services, .choices(IPGeolocationService.self, noun: "an IP geolocation service"), .live,
                """
                The services asked, in order, until one answers; each is one of
                {allowed}.
                """),
            .key(
                "ipinfo_url", \.ipinfoURL, .httpURL, .live,
                """
                Each service's endpoint, an http or https URL; change them only for a mirror or a test server.
                ipinfo.io:
                """),
            .key("ipapi_url", \.ipapiURL, .httpURL, .live, "ipapi.co:"),
            .key("ifconfig_url", \.ifconfigURL, .httpURL, .live, "ifconfig.co:"),
            .key("ip_api_url", \.ipAPIURL, .httpURL, .live, "ip-api.com (HTTP only on its free tier):"),
        ])
}
