import ForecastModel
import Foundation
import MQTTPayloads

// `[mqtt]`: the values, each field's initial value being its key's default, and the keys' rows.

extension Settings {
    /// `[mqtt]`: the report published on an MQTT broker the user runs, with Home Assistant's discovery
    /// (docs/mqtt.md); off unless the user turns it on. Every key but `follow` applies live.
    public struct MQTT: Sendable, Hashable {
        /// `enabled`: opt-in.
        public var enabled = false
        /// `url`: the broker, `mqtt://host:port` or `mqtts://host:port`.
        public var broker = MQTTBroker(host: "localhost", port: 1883, tls: false)
        /// `ca_file`: the CA certificates that sign an mqtts broker's certificate; nil for the system's store.
        public var caFile: String?
        /// `username`: nil for an anonymous connection.
        public var username: String?
        /// `password_file`: the file whose first line is the password; nil for none (or systemd's credential
        /// `mqtt-password`).
        public var passwordFile: String?
        /// `client_id`: nil for `forecastd-` and the host name.
        public var clientID: String?
        /// `topic`: the base topic; nil for `forecastd/` and the host name.
        public var topic: String?
        /// `discovery`: Home Assistant's MQTT discovery configs.
        public var discovery = true
        /// `discovery_prefix`: where Home Assistant reads them.
        public var discoveryPrefix = "homeassistant"
        /// `follow`: another forecastd's base topic whose report this daemon shows instead of asking any
        /// provider; nil to fetch (and publish) its own.
        public var follow: String?

        /// Every key at its default.
        public init() {}
    }

    static let mqttTable = SettingsTable.Table(
        ["mqtt"], \Settings.mqtt,
        documentation: """
            The report on an MQTT broker you run (Mosquitto, Home Assistant's add-on): retained on
            TOPIC/report, with TOPIC/status "online" while connected and "offline" after, and Home
            Assistant's discovery so that it shows the weather as one device. A broker that is down is
            tried again with backoff; forecastd works on without it. A daemon that publishes applies
            edits of these keys live (it says offline and reconnects with the new ones); follow is
            read at start.
            """,
        [
            .key("enabled", \.enabled, .boolean, .live, "Whether to publish on MQTT at all (off by default)."),
            .key(
                "url", \.broker, .mqttURL, .live,
                """
                The broker: {allowed}.
                mqtts checks the broker's certificate against ca_file, or the system's CA store when
                ca_file is "".
                """),
            .key(
                "ca_file", \.caFile, .absolutePath.emptyMeansNone, .live,
                "A PEM file of the CA certificates that sign an mqtts broker's certificate; \"\" for the system's."),
            .key(
                "username", \.username, .nonEmpty("a user name").emptyMeansNone, .live,
                "The user name on the broker; \"\" to connect anonymously."),
            .key(
                "password_file", \.passwordFile, .absolutePath.emptyMeansNone, .live,
                """
                A file whose first line is the password (never logged); "" for the systemd credential
                mqtt-password when there is one ($CREDENTIALS_DIRECTORY/mqtt-password), else none.
                """),
            .key(
                "client_id", \.clientID, .nonEmpty("a client id").emptyMeansNone, .live,
                "The client id on the broker; \"\" for \"forecastd-\" and the host name."),
            .key(
                "topic", \.topic, .mqttTopic.emptyMeansNone, .live,
                "The base topic; \"\" for \"forecastd/\" and the host name."),
            .key(
                "discovery", \.discovery, .boolean, .live,
                "Whether to publish Home Assistant's MQTT discovery configs (removed again when off)."),
            .key(
                "discovery_prefix", \.discoveryPrefix, .mqttTopic, .live,
                "Where Home Assistant reads discovery configs (its discovery_prefix)."),
            .key(
                "follow", \.follow, .mqttTopic.emptyMeansNone, .restart,
                """
                Another forecastd's topic ("forecastd/pi-van") whose report this daemon shows, in its own
                units and language, instead of asking any provider (no forecast, warning or air request;
                nothing is published); "" to fetch and publish its own. Following or publishing decides
                which services run (a follower asks no provider), so this waits for a restart; a daemon
                that follows reads the other keys at start too.
                """),
        ])
}

/// The broker of `[mqtt] url`.
public struct MQTTBroker: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// mqtts.
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// As written: `mqtt://host:1883`.
    public var url: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

extension SettingType {
    /// `mqtt://host[:port]` (1883 by default) or `mqtts://host[:port]` (8883), nothing after the port.
    static var mqttURL: SettingType<MQTTBroker> {
        let allowed = "a URL such as \"mqtt://localhost:1883\" or \"mqtts://broker.example:8883\""
        return string().refined(allowed: allowed, documented: "mqtt://HOST:PORT or mqtts://HOST:PORT") { string in
            guard let components = URLComponents(string: string),
                let scheme = components.scheme?.lowercased(), scheme == "mqtt" || scheme == "mqtts",
                let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
                components.query == nil, components.fragment == nil, components.user == nil
            else {
                return .failure(
                    SettingsRefusal("\(TOMLText.quote(string)) is not an mqtt or mqtts URL", allowed: allowed))
            }
            let port = components.port ?? (scheme == "mqtts" ? 8883 : 1883)
            guard (1...65535).contains(port) else {
                return .failure(SettingsRefusal("the port \(port) is outside 1 to 65535", allowed: allowed))
            }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            return .success(MQTTBroker(host: bare, port: port, tls: scheme == "mqtts"))
        } represent: {
            .string($0.url)
        }
    }

    /// A topic to publish under: MQTT's rules (no wildcard, no NUL) and no empty level (``ShareTopics``).
    static var mqttTopic: SettingType<String> {
        let allowed = "a topic such as \"forecastd/pi-van\": no + or #, no empty level"
        return string().refined(allowed: allowed) { string in
            if let problem = ShareTopics.problem(string) {
                return .failure(SettingsRefusal("the topic \(TOMLText.quote(string)) \(problem)", allowed: allowed))
            }
            return .success(string)
        }
    }
}
