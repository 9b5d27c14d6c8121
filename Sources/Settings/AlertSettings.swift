import ForecastModel
import Foundation

// `[warnings]` with a table per warning service, `[nowcast]` and `[air]`: the values, each field's initial
// value being its key's default, and the keys' rows. What each one asks and reveals: docs/privacy.md.

extension Settings {
    /// `[warnings]`: official weather warnings for the position (docs/warnings.md).
    public struct Warnings: Sendable, Hashable {
        /// `enabled`: off asks no warning service at all, and reports carry no `warnings`.
        public var enabled = true
        /// `[warnings.nws]`: the US National Weather Service (the US and its territories).
        public var nws = WarningService(url: ServiceURL.nws)
        /// `[warnings.met_norway]`: MET Norway's MetAlerts (Norway).
        public var metNorway = WarningService(
            url: ServiceURL.metNorwayAlerts)
        /// `[warnings.bright_sky]`: the DWD's warnings through Bright Sky (Germany).
        public var brightSky = WarningService(url: ServiceURL.brightSky)
        /// `[warnings.meteoalarm]`: MeteoAlarm's country feeds (39 European countries).
        public var meteoalarm = WarningService(url: ServiceURL.meteoAlarm)
        /// `[warnings.eccc]`: Environment and Climate Change Canada's alerts (Canada).
        public var eccc = WarningService(url: ServiceURL.eccc)

        /// Every key at its default.
        public init() {}
    }

    /// One warning service's table: `enabled` and `url`.
    public struct WarningService: Sendable, Hashable {
        /// `enabled`.
        public var enabled = true
        /// `url`: the endpoint; always http or https with a host.
        public var url: URL

        public init(enabled: Bool = true, url: URL) {
            self.enabled = enabled
            self.url = url
        }
    }

    /// `[nowcast]`: rain soon, from the forecast's own 15-minute data (docs/nowcast-and-air.md).
    public struct Nowcast: Sendable, Hashable {
        /// `enabled`.
        public var enabled = true
        /// `horizon_minutes`: how far ahead rain is looked for.
        public var horizonMinutes = 120

        /// ``horizonMinutes`` in seconds.
        public var horizon: TimeInterval { TimeInterval(horizonMinutes * 60) }

        /// Every key at its default.
        public init() {}
    }

    /// `[air]`: air quality, UV and pollen from Open-Meteo's Air Quality API (docs/nowcast-and-air.md).
    public struct Air: Sendable, Hashable {
        /// `enabled`.
        public var enabled = true
        /// `scale`: which index to show.
        public var scale: AQIScaleChoice = .auto
        /// `pollen`: ask for pollen where Open-Meteo has it (Europe).
        public var pollen = true
        /// `url`: the endpoint; always http or https with a host.
        public var url = ServiceURL.openMeteoAirQuality
        /// `timeout_seconds`: the deadline for one request.
        public var timeoutSeconds = 15

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }

        /// Every key at its default.
        public init() {}
    }

    static let warningsTable = SettingsTable.Table(
        ["warnings"], \Settings.warnings,
        documentation: """
            Official weather warnings where you are, from the service of the position's country: the US
            National Weather Service (the US and its territories), MET Norway (Norway), the DWD through
            Bright Sky (Germany), Environment and Climate Change Canada (Canada), MeteoAlarm (39 European
            countries; Norway and Germany too when their own service is off). Elsewhere nothing is asked.
            Each request sends the position rounded to [providers] coordinate_precision decimals;
            MeteoAlarm's sends only the country. Warnings are matched to the position by their areas'
            shapes, never by name.
            """,
        [
            .key(
                "enabled", \.enabled, .boolean, .live,
                "false asks no warning service at all, and reports carry no warnings."),
        ])

    static let nwsTable = warningServiceTable(
        "nws", \Settings.warnings.nws, "The US National Weather Service's active alerts (api.weather.gov).")
    static let metNorwayWarningsTable = warningServiceTable(
        "met_norway", \Settings.warnings.metNorway,
        "MET Norway's MetAlerts 2.0, asked at most once in 10 minutes as its terms require.")
    static let brightSkyTable = warningServiceTable(
        "bright_sky", \Settings.warnings.brightSky, "The DWD's warnings through Bright Sky (api.brightsky.dev).")
    static let meteoalarmTable = warningServiceTable(
        "meteoalarm", \Settings.warnings.meteoalarm,
        "MeteoAlarm's country feeds; the url ends with a \"/\", and feeds-COUNTRY is appended to it.")
    static let ecccTable = warningServiceTable(
        "eccc", \Settings.warnings.eccc,
        "Environment and Climate Change Canada's alerts (api.weather.gc.ca); texts in French or English.")

    private static func warningServiceTable(
        _ name: String, _ service: any WritableKeyPath<Settings, WarningService> & Sendable,
        _ documentation: String
    ) -> SettingsTable.Table {
        SettingsTable.Table(
            ["warnings", name], service, documentation: documentation,
            [
                .key("enabled", \.enabled, .boolean, .live, "Whether to ask this service."),
                .key("url", \.url, .httpURL, .live, "Its endpoint: an http or https URL."),
            ])
    }

    static let nowcastTable = SettingsTable.Table(
        ["nowcast"], \Settings.nowcast,
        documentation: """
            Rain soon: "Rain in 20 min (moderate), until about 14:30", from the 15-minute precipitation that
            comes with Open-Meteo's forecast (no request of its own), or MET Norway's hourly one when it
            serves instead.
            """,
        [
            .key(
                "enabled", \.enabled, .boolean, .live,
                "Whether reports, bars and notifications say when rain starts or stops."),
            .key(
                "horizon_minutes", \.horizonMinutes, .integer(15...180), .live,
                "How far ahead to look for rain, in minutes ({allowed})."),
        ])

    static let airTable = SettingsTable.Table(
        ["air"], \Settings.air,
        documentation: """
            The air: an air quality index, PM2.5, PM10, ozone, nitrogen dioxide, the UV index and, in Europe,
            pollen, from Open-Meteo's Air Quality API (CAMS data), asked at most once an hour with the
            position rounded as for the forecast.
            """,
        [
            .key("enabled", \.enabled, .boolean, .live, "Whether to ask for and show the air."),
            .key(
                "scale", \.scale, .choice(AQIScaleChoice.self, noun: "an air quality scale"), .live,
                """
                The index shown: {allowed}.
                "auto" is the European index in Europe and the US index elsewhere.
                """),
            .key(
                "pollen", \.pollen, .boolean, .live,
                "Whether to ask for pollen (alder, birch, grass, mugwort, olive, ragweed) where it exists."),
            .key("url", \.url, .httpURL, .live, "The Air Quality API's endpoint: an http or https URL."),
            .key(
                "timeout_seconds", \.timeoutSeconds, .integer(1...120), .live,
                "How long one request may take, in seconds ({allowed})."),
        ])
}
