import Foundation

/// Home Assistant's documented MQTT sensor and binary sensor options, and the rules its docs state, as a checker
/// for discovery configs. From home-assistant.io's `source/_integrations/sensor.mqtt.markdown`,
/// `binary_sensor.mqtt.markdown`, `sensor.markdown` (device classes and their units), `mqtt.markdown` (the
/// discovery topic and the origin) and the developer docs' sensor state classes. Discovery ignores unknown
/// keys; this checker refuses them, so that a misspelt key cannot pass unnoticed.
enum HomeAssistantSchema {
    static let common: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "device",
        "device_class", "enabled_by_default", "encoding", "entity_category", "entity_picture", "expire_after",
        "force_update", "icon", "json_attributes_template", "json_attributes_topic", "name", "object_id",
        "payload_available", "payload_not_available", "platform", "qos", "state_topic", "unique_id",
        "value_template",
        // Discovery's own: where the config comes from.
        "origin",
    ]
    static let sensorOnly: Set<String> = [
        "last_reset_value_template", "options", "suggested_display_precision", "state_class", "unit_of_measurement",
    ]
    static let binarySensorOnly: Set<String> = ["off_delay", "payload_off", "payload_on"]
    static let deviceKeys: Set<String> = [
        "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
        "serial_number", "suggested_area", "sw_version", "via_device",
    ]
    static let originKeys: Set<String> = ["name", "sw_version", "support_url"]

    /// Sensor device classes and the units each takes (empty: unitless).
    static let sensorUnits: [String: Set<String>] = [
        "aqi": [], "enum": [], "timestamp": [], "date": [],
        "atmospheric_pressure": ["cbar", "bar", "hPa", "mmHg", "inHg", "kPa", "mbar", "Pa", "psi"],
        "humidity": ["%"],
        "precipitation": ["cm", "in", "mm"],
        "precipitation_intensity": ["in/d", "in/h", "mm/d", "mm/h"],
        "pressure": ["Pa", "kPa", "hPa", "bar", "cbar", "mbar", "mmHg", "inHg", "psi"],
        "temperature": ["°C", "°F", "K"],
        "wind_speed": ["Beaufort", "ft/s", "km/h", "kn", "m/s", "mph"],
        "duration": ["d", "h", "min", "s"],
    ]
    static let stateClasses: Set<String> = ["measurement", "total", "total_increasing"]
    static let binarySensorClasses: Set<String> = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat",
        "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem",
        "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window",
    ]

    /// Every way `config` (the JSON of a config message on `topic`) breaks the documented schema; empty when
    /// none.
    static func problems(topic: String, config: [String: Any]) -> [String] {
        var problems: [String] = []
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let idCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        guard levels.count == 4 || levels.count == 5, levels.last == "config" else {
            return ["\(topic) is not <prefix>/<component>/[<node_id>/]<object_id>/config"]
        }
        let component = levels[1]
        for id in levels[2..<(levels.count - 1)] where id.isEmpty || id.unicodeScalars.contains(where: { !idCharacters.contains($0) }) {
            problems.append("\(topic): \(id) is not of [a-zA-Z0-9_-]")
        }
        let allowed: Set<String>
        switch component {
        case "sensor": allowed = common.union(sensorOnly)
        case "binary_sensor": allowed = common.union(binarySensorOnly)
        default: return ["\(topic): \(component) is not a component this checker knows"]
        }
        for key in config.keys where !allowed.contains(key) { problems.append("\(topic): unknown key \(key)") }
        func string(_ key: String) -> String? { config[key] as? String }
        for key in config.keys where !["device", "origin", "options", "availability", "expire_after", "qos",
            "force_update", "enabled_by_default", "suggested_display_precision", "off_delay"].contains(key) {
            if string(key) == nil { problems.append("\(topic): \(key) is not a string") }
        }
        guard let stateTopic = string("state_topic"), !stateTopic.isEmpty, !stateTopic.contains("+"),
            !stateTopic.contains("#")
        else { return problems + ["\(topic): state_topic is required, without wildcards"] }
        if config["availability"] != nil && config["availability_topic"] != nil {
            problems.append("\(topic): availability and availability_topic together")
        }
        if let icon = string("icon"), !icon.contains(":") { problems.append("\(topic): icon \(icon) is not prefix:name") }
        if let device = config["device"] {
            guard let device = device as? [String: Any] else { return problems + ["\(topic): device is not a map"] }
            for key in device.keys where !deviceKeys.contains(key) { problems.append("\(topic): unknown device key \(key)") }
            if device["identifiers"] == nil && device["connections"] == nil {
                problems.append("\(topic): a device needs identifiers or connections")
            }
            if string("unique_id") == nil { problems.append("\(topic): a device works only with a unique_id") }
        }
        if let origin = config["origin"] as? [String: Any] {
            for key in origin.keys where !originKeys.contains(key) { problems.append("\(topic): unknown origin key \(key)") }
            if origin["name"] as? String == nil { problems.append("\(topic): the origin needs a name") }
        }
        if let category = string("entity_category"), category != "diagnostic" {
            problems.append("\(topic): entity_category must be diagnostic for sensors")
        }
        let deviceClass = string("device_class")
        if component == "binary_sensor" {
            if let deviceClass, !binarySensorClasses.contains(deviceClass) {
                problems.append("\(topic): \(deviceClass) is not a binary sensor device class")
            }
            return problems
        }
        let unit = string("unit_of_measurement")
        if let stateClass = string("state_class"), !stateClasses.contains(stateClass) {
            problems.append("\(topic): \(stateClass) is not a state class")
        }
        if let options = config["options"] {
            if deviceClass != "enum" { problems.append("\(topic): options need device_class enum") }
            if (options as? [String])?.isEmpty != false { problems.append("\(topic): options must be a list of strings") }
            if config["state_class"] != nil || unit != nil {
                problems.append("\(topic): options go with neither state_class nor unit_of_measurement")
            }
        } else if deviceClass == "enum" {
            problems.append("\(topic): device_class enum needs options")
        }
        if let deviceClass {
            guard let units = sensorUnits[deviceClass] else {
                return problems + ["\(topic): \(deviceClass) is not a sensor device class this checker knows"]
            }
            if units.isEmpty, let unit { problems.append("\(topic): \(deviceClass) is unitless, not \(unit)") }
            if !units.isEmpty, !units.contains(unit ?? "") {
                problems.append("\(topic): \(deviceClass) takes \(units.sorted()), not \(unit ?? "no unit")")
            }
            if ["enum", "timestamp", "date"].contains(deviceClass), config["state_class"] != nil {
                problems.append("\(topic): \(deviceClass) is not numeric and takes no state_class")
            }
        }
        return problems
    }
}
