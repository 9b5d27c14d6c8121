import ForecastModel
import Foundation

// `[providers]` and a table per weather service: the values, each field's initial value being its
// key's default, and the keys' rows.

extension Settings {
    /// `[providers]`.
    public struct Providers: Sendable, Hashable {
        /// `order`: the services tried, first to last; never empty, no service twice.
        public var order: [ProviderName] = [.openMeteo, .metNorway]
        /// `coordinate_precision`: the decimals of latitude and longitude sent to providers; 2 is about a
        /// kilometre, all a forecast needs, and it makes caching effective.
        public var coordinatePrecision = 2
        /// `[providers.open_meteo]`.
        public var openMeteo = OpenMeteo()
        /// `[providers.met_norway]`.
        public var metNorway = MetNorway()
        /// `[providers.openweathermap]`.
        public var openWeatherMap = OpenWeatherMap()

        /// The services to try, in order: ``order``, with OpenWeatherMap joining at the end when it has
        /// an API key and the order does not name it.
        public var effectiveOrder: [ProviderName] {
            guard openWeatherMap.apiKey != nil, !order.contains(.openWeatherMap) else { return order }
            return order + [.openWeatherMap]
        }
    }

    /// `[providers.open_meteo]`.
    public struct OpenMeteo: Sendable, Hashable {
        /// `url`: the forecast endpoint; always http or https with a host.
        public var url = ServiceURL.openMeteo
        /// `timeout_seconds`: the deadline for one request.
        public var timeoutSeconds = 15
        /// `geocoding_url`: Open-Meteo's place search, which `forecastctl cities add` asks for places the
        /// offline gazetteer lacks; nil (the key is `""`, the default) keeps name searches offline.
        public var geocodingURL: URL?

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    /// `[providers.met_norway]`: MET Norway's Locationforecast 2.0.
    public struct MetNorway: Sendable, Hashable {
        /// `url`: the `compact` endpoint; always http or https with a host.
        public var url = ServiceURL.metNorway
        /// `contact`: an e-mail address or URL for the User-Agent, as MET Norway's terms ask; may be empty.
        public var contact = ""
        /// `timeout_seconds`.
        public var timeoutSeconds = 15

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    /// `[providers.openweathermap]`: needs the user's own API key.
    public struct OpenWeatherMap: Sendable, Hashable {
        /// `url`: the API's base URL; always http or https with a host.
        public var url = ServiceURL.openWeatherMap
        /// The key from `api_key`, else from the file `api_key_file`, else from
        /// `$FORECASTD_OPENWEATHERMAP_API_KEY`; `nil` when none gives one.
        public var apiKey: Secret?
        /// `api_key_file`: the file named for the key (`nil` when the key is `""`).
        public var apiKeyFile: String?
        /// `one_call`: use One Call 3.0 instead of current weather plus the 5-day forecast.
        public var oneCall = false
        /// `timeout_seconds`.
        public var timeoutSeconds = 15

        /// ``timeoutSeconds`` as a duration.
        public var timeout: Duration { .seconds(timeoutSeconds) }
    }

    static let providersTable = SettingsTable.Table(
        ["providers"], \Settings.providers,
        [
            .key(
                "order", \.order, .choices(ProviderName.self, noun: "a weather provider"), .live,
                """
                The weather services tried, in order: when the first fails, the next serves. Each is one of
                {allowed};
                "openweathermap" needs an API key below, and joins at the end of the list by itself when it
                has one.
                """),
            .key(
                "coordinate_precision", \.coordinatePrecision, .integer(0...4), .live,
                """
                Decimals of latitude and longitude sent to the services ({allowed}): 2 is about a kilometre,
                all a forecast needs, and it tells them less about where you are.
                """),
        ])

    static let openMeteoTable = SettingsTable.Table(
        ["providers", "open_meteo"], \Settings.providers.openMeteo,
        [
            .key(
                "url", \.url, .httpURL, .live,
                "The Open-Meteo forecast endpoint: an http or https URL. Change it only for a self-hosted mirror."),
            .key(
                "timeout_seconds", \.timeoutSeconds, .integer(1...120), .live,
                "How long one request may take, in seconds ({allowed})."),
            .key(
                "geocoding_url", \.geocodingURL, .httpURL.emptyMeansNone, .live,
                """
                Open-Meteo's place search, asked by `forecastctl cities add` for places the offline gazetteer
                does not know (fewer than 1000 inhabitants). "" (the default) keeps name searches offline; set
                "https://geocoding-api.open-meteo.com/v1/search" to allow it. The daemon never uses it.
                """),
        ])

    static let metNorwayTable = SettingsTable.Table(
        ["providers", "met_norway"], \Settings.providers.metNorway,
        [
            .key(
                "url", \.url, .httpURL, .live, "MET Norway's Locationforecast 2.0 endpoint: an http or https URL."),
            .key(
                "contact", \.contact, .headerText("an e-mail address or a URL on one line, or \"\""), .live,
                "Your e-mail address or a URL, sent in the User-Agent as MET Norway's terms of service ask."),
            .key(
                "timeout_seconds", \.timeoutSeconds, .integer(1...120), .live,
                "How long one request may take, in seconds ({allowed})."),
        ])

    static let openWeatherMapTable = SettingsTable.Table(
        ["providers", "openweathermap"], \Settings.providers.openWeatherMap,
        [
            .key("url", \.url, .httpURL, .live, "The OpenWeatherMap API: an http or https URL."),
            // The key comes from one of three sources: SettingsRules puts the winner in `apiKey`.
            .assembled(
                "api_key", .string(trimming: .whitespacesAndNewlines), .live, secret: true,
                """
                Your API key. Rather than writing it here, name a file whose first line is the key in
                api_key_file, or set $FORECASTD_OPENWEATHERMAP_API_KEY; the first of the three that is set wins.
                A settings file holding a key should be readable by you only (chmod 600): forecastd warns
                otherwise. forecastd never logs or shows the key.
                """
            ) { .string($0.apiKey?.shownAs ?? "") },
            .key(
                "api_key_file", \.apiKeyFile, .absolutePath.emptyMeansNone, .live,
                "An absolute path to a file whose first line is the API key, or \"\" for none."),
            .key(
                "one_call", \.oneCall, .boolean, .live,
                """
                true uses One Call 3.0 (hourly and 8 days; a subscription of its own) instead of current
                weather and the free 5-day forecast.
                """),
            .key(
                "timeout_seconds", \.timeoutSeconds, .integer(1...120), .live,
                "How long one request may take, in seconds ({allowed})."),
        ])
}
