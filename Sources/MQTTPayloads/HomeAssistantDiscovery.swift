import Foundation
import ForecastModel

/// Home Assistant's MQTT discovery for a publishing forecastd: one retained config message per entity, which
/// makes Home Assistant show the report as one device (and each listed city as a device of its own), its entities'
/// states read from the report topic by templates, available while `BASE/status` says `online`.
///
/// Topics: `PREFIX/sensor/NODE/KEY/config` (and `binary_sensor` for rain soon), NODE being the base topic as an
/// id (`forecastd_pi-van`), `NODE_city_ID` for a city. An empty retained message on the same topic removes the
/// entity (``removals(city:)``). Keys and values follow Home Assistant's documented MQTT sensor and binary sensor
/// options (docs/mqtt.md lists them and where they come from).
public struct HomeAssistantDiscovery: Sendable {
    /// The discovery prefix (`homeassistant`).
    public let prefix: String
    public let topics: ShareTopics
    /// The device's name in Home Assistant (`forecastd pi-van`).
    public let deviceName: String
    /// forecastd's version, for the device and the origin.
    public let version: String

    public init(prefix: String, topics: ShareTopics, deviceName: String, version: String) throws(ShareTopicError) {
        if let problem = ShareTopics.problem(prefix) { throw ShareTopicError(topic: prefix, problem: problem) }
        self.prefix = prefix
        self.topics = topics
        self.deviceName = deviceName
        self.version = version
    }

    /// A retained message to publish; an empty payload removes what the topic held.
    public struct Message: Sendable, Hashable {
        public var topic: String
        public var payload: [UInt8]
    }

    /// The configs of the entities for here, named in `phrases`' language, in `units` (the report's).
    public func configs(units: ReportUnits, phrases: Phrases) throws -> [Message] {
        try HomeAssistantEntity.all.map { entity in
            Message(topic: configTopic(entity, city: nil), payload: try config(entity, city: nil, units, phrases))
        }
    }

    /// The configs of a listed city's entities (those a city's report has: no warnings, air, rain soon or
    /// location source).
    public func configs(city: (id: String, name: String), units: ReportUnits, phrases: Phrases) throws -> [Message] {
        try HomeAssistantEntity.all.filter(\.forCities).map { entity in
            Message(
                topic: configTopic(entity, city: city.id), payload: try config(entity, city: city, units, phrases))
        }
    }

    /// Empty retained configs for every entity of here (`city` nil) or of a city: Home Assistant removes them,
    /// and the device with its last entity.
    public func removals(city: String?) -> [Message] {
        HomeAssistantEntity.all.filter { city == nil || $0.forCities }.map {
            Message(topic: configTopic($0, city: city), payload: [])
        }
    }

    // MARK: One config

    private func node(city: String?) -> String {
        city.map { "\(topics.nodeID)_city_\(ShareTopics.identifier($0))" } ?? topics.nodeID
    }

    func configTopic(_ entity: HomeAssistantEntity, city: String?) -> String {
        "\(prefix)/\(entity.component.rawValue)/\(node(city: city))/\(entity.key)/config"
    }

    private func config(
        _ entity: HomeAssistantEntity, city: (id: String, name: String)?, _ units: ReportUnits, _ phrases: Phrases
    ) throws -> [UInt8] {
        let node = node(city: city?.id)
        let config = HomeAssistantConfig(
            name: phrases.translation.text(entity.name, context: "home assistant"),
            uniqueID: "\(node)_\(entity.key)",
            stateTopic: city.map { topics.cityReport($0.id) } ?? topics.report,
            valueTemplate: entity.value,
            availabilityTopic: topics.status,
            payloadAvailable: ShareStatus.online.rawValue,
            payloadNotAvailable: ShareStatus.offline.rawValue,
            deviceClass: entity.deviceClass,
            unitOfMeasurement: entity.unit(units),
            stateClass: entity.stateClass,
            options: entity.options,
            icon: entity.icon,
            entityCategory: entity.entityCategory,
            jsonAttributesTopic: entity.attributes == nil ? nil : (city.map { topics.cityReport($0.id) } ?? topics.report),
            jsonAttributesTemplate: entity.attributes,
            payloadOn: entity.component == .binarySensor ? "ON" : nil,
            payloadOff: entity.component == .binarySensor ? "OFF" : nil,
            device: .init(
                identifiers: [node], name: city.map { "\(deviceName): \($0.name)" } ?? deviceName,
                manufacturer: "forecastd", model: city == nil ? "Weather report" : "Weather report for a listed city",
                swVersion: version, viaDevice: city == nil ? nil : topics.nodeID),
            origin: .init(name: "forecastd", swVersion: version))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(config))
    }
}

/// One entity: what it shows and how Home Assistant is told.
struct HomeAssistantEntity: Sendable {
    enum Component: String, Sendable { case sensor, binarySensor = "binary_sensor" }

    var key: String
    var component: Component = .sensor
    /// The English name: a catalogue entry (context `home assistant`).
    var name: String
    var deviceClass: String?
    var unit: @Sendable (ReportUnits) -> String? = { _ in nil }
    var stateClass: String?
    var value: String
    var attributes: String?
    var icon: String?
    var options: [String]?
    var entityCategory: String?
    /// Whether a listed city has it too.
    var forCities = true

    /// Home Assistant's word for a wind speed unit (`Beaufort` where the report says `Bft`).
    static func windUnit(_ units: ReportUnits) -> String? {
        units.windSpeedUnit == .bft ? "Beaufort" : units.windSpeed
    }

    static func current(_ field: String) -> String {
        "{{ value_json.report.get('current', {}).get('\(field)') }}"
    }

    static let all: [HomeAssistantEntity] = [
        .init(
            key: "temperature", name: "Temperature", deviceClass: "temperature", unit: { $0.temperature },
            stateClass: "measurement", value: current("temperature")),
        .init(
            key: "apparent_temperature", name: "Feels like", deviceClass: "temperature", unit: { $0.temperature },
            stateClass: "measurement", value: current("apparent_temperature")),
        .init(
            key: "humidity", name: "Humidity", deviceClass: "humidity", unit: { _ in "%" }, stateClass: "measurement",
            value: current("humidity")),
        .init(
            key: "dew_point", name: "Dew point", deviceClass: "temperature", unit: { $0.temperature },
            stateClass: "measurement", value: current("dew_point")),
        .init(
            key: "pressure", name: "Pressure", deviceClass: "atmospheric_pressure", unit: { $0.pressure ?? "hPa" },
            stateClass: "measurement", value: current("pressure")),
        .init(
            key: "wind_speed", name: "Wind speed", deviceClass: "wind_speed", unit: windUnit,
            stateClass: "measurement", value: current("wind_speed")),
        .init(
            key: "wind_gusts", name: "Wind gusts", deviceClass: "wind_speed", unit: windUnit,
            stateClass: "measurement", value: current("wind_gusts")),
        // No device class: `wind_direction` (with the `measurement_angle` state class) exists only in recent
        // Home Assistant releases, and older ones refuse a config that names it.
        .init(
            key: "wind_direction", name: "Wind direction", unit: { _ in "°" }, value: current("wind_direction"),
            icon: "mdi:compass-outline"),
        .init(
            key: "precipitation_probability", name: "Precipitation chance next hour", unit: { _ in "%" },
            stateClass: "measurement",
            value: "{{ value_json.summary.get('next_hour', {}).get('precipitation_probability') }}",
            icon: "mdi:water-percent"),
        .init(
            key: "precipitation", name: "Precipitation next hour", deviceClass: "precipitation",
            unit: { $0.precipitation }, stateClass: "measurement",
            value: "{{ value_json.summary.get('next_hour', {}).get('precipitation') }}"),
        .init(
            key: "condition", name: "Condition",
            value: "{{ value_json.summary.get('condition', {}).get('text') }}",
            attributes: "{{ value_json.summary.get('condition', {}) | tojson }}", icon: "mdi:weather-partly-cloudy"),
        .init(
            key: "uv_index", name: "UV index", unit: { _ in "UV index" }, stateClass: "measurement",
            value: current("uv_index"), icon: "mdi:sun-wireless"),
        .init(
            key: "air_quality", name: "Air quality index", deviceClass: "aqi", stateClass: "measurement",
            value: "{{ value_json.report.get('air', {}).get('aqi') }}",
            attributes: "{{ value_json.report.get('air', {}) | tojson }}", forCities: false),
        .init(
            key: "warnings", name: "Warnings in force", stateClass: "measurement",
            value: "{{ value_json.summary.get('warnings', {}).get('count', 0) }}",
            attributes: "{{ {'warnings': value_json.summary.get('warnings', {}).get('list', [])} | tojson }}",
            icon: "mdi:alert", forCities: false),
        .init(
            key: "warning_level", name: "Highest warning level", deviceClass: "enum",
            value: "{{ value_json.summary.get('warnings', {}).get('highest', 'none') }}", icon: "mdi:alert-octagon",
            options: ["none"] + WarningSeverity.allCases.sorted().map(\.rawValue), forCities: false),
        .init(
            key: "rain_soon", component: .binarySensor, name: "Rain soon",
            value: "{{ 'ON' if value_json.report.get('nowcast') else 'OFF' }}",
            attributes: "{{ value_json.report.get('nowcast', {}) | tojson }}", icon: "mdi:weather-pouring",
            forCities: false),
        .init(
            key: "forecast_updated", name: "Forecast updated", deviceClass: "timestamp",
            value: "{{ value_json.report.get('provider', {}).get('fetched_at') }}", entityCategory: "diagnostic"),
        .init(
            key: "location_source", name: "Location source", deviceClass: "enum",
            value: "{{ value_json.report.get('location', {}).get('source', 'none') }}",
            attributes: "{{ value_json.report.get('place', {}) | tojson }}", icon: "mdi:crosshairs-gps",
            options: LocationSource.allCases.map(\.rawValue) + ["none"], entityCategory: "diagnostic",
            forCities: false),
    ]
}

/// A config message's options, in Home Assistant's documented names (sensor.mqtt, binary_sensor.mqtt).
struct HomeAssistantConfig: Encodable {
    var name: String
    var uniqueID: String
    var stateTopic: String
    var valueTemplate: String
    var availabilityTopic: String
    var payloadAvailable: String
    var payloadNotAvailable: String
    var deviceClass: String?
    var unitOfMeasurement: String?
    var stateClass: String?
    var options: [String]?
    var icon: String?
    var entityCategory: String?
    var jsonAttributesTopic: String?
    var jsonAttributesTemplate: String?
    var payloadOn: String?
    var payloadOff: String?
    var device: Device
    var origin: Origin

    struct Device: Encodable {
        var identifiers: [String]
        var name: String
        var manufacturer: String
        var model: String
        var swVersion: String
        var viaDevice: String?
        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case swVersion = "sw_version"
            case viaDevice = "via_device"
        }
    }

    struct Origin: Encodable {
        var name: String
        var swVersion: String
        enum CodingKeys: String, CodingKey {
            case name
            case swVersion = "sw_version"
        }
    }

    enum CodingKeys: String, CodingKey {
        case name, icon, options, device, origin
        case uniqueID = "unique_id"
        case stateTopic = "state_topic"
        case valueTemplate = "value_template"
        case availabilityTopic = "availability_topic"
        case payloadAvailable = "payload_available"
        case payloadNotAvailable = "payload_not_available"
        case deviceClass = "device_class"
        case unitOfMeasurement = "unit_of_measurement"
        case stateClass = "state_class"
        case entityCategory = "entity_category"
        case jsonAttributesTopic = "json_attributes_topic"
        case jsonAttributesTemplate = "json_attributes_template"
        case payloadOn = "payload_on"
        case payloadOff = "payload_off"
    }
}
