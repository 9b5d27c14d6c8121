import ForecastModel
import Foundation
import Localization
import MQTTPayloads
import TestSupport
import Testing

/// Home Assistant's discovery configs: valid by its documented schema, in the user's units and language, their
/// templates giving the report's values when Jinja renders them against a real payload.
struct HomeAssistantDiscoveryTests {
    static let discovery = try! HomeAssistantDiscovery(
        prefix: "homeassistant", topics: try! ShareTopics(base: "forecastd/pi-van"), deviceName: "forecastd pi-van",
        version: "0.9.0")

    static func json(_ message: HomeAssistantDiscovery.Message) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    }

    static let unitChoices: [UnitPreferences] = [
        .metric, .imperial, .uk, .si, UnitPreferences(preset: .metric, wind: .bft, pressure: .mmhg),
        UnitPreferences(preset: .imperial, wind: .kn, pressure: .kpa),
    ]

    @Test func everyConfigKeepsToHomeAssistantsDocumentedSchema() throws {
        for units in Self.unitChoices {
            let here = try Self.discovery.configs(units: ReportUnits(units), phrases: .english)
            let city = try Self.discovery.configs(
                city: ("paris-fr", "Paris"), units: ReportUnits(units), phrases: .english)
            for message in here + city {
                let problems = HomeAssistantSchema.problems(topic: message.topic, config: try Self.json(message))
                #expect(problems.isEmpty, "\(problems)")
            }
            let ids = try (here + city).map { try #require(Self.json($0)["unique_id"] as? String) }
            #expect(Set(ids).count == ids.count)
        }
    }

    /// The checker is not a rubber stamp: the mistakes it exists for are caught.
    @Test func theCheckerRefusesWhatHomeAssistantWould() throws {
        let message = try #require(
            try Self.discovery.configs(units: ReportUnits(.metric), phrases: .english).first { $0.topic.hasSuffix("/temperature/config") })
        var config = try Self.json(message)
        config["unit_of_measurment"] = "°C"
        #expect(HomeAssistantSchema.problems(topic: message.topic, config: config) == ["\(message.topic): unknown key unit_of_measurment"])
        config = try Self.json(message)
        config["unit_of_measurement"] = "Bft"
        #expect(!HomeAssistantSchema.problems(topic: message.topic, config: config).isEmpty)
        config = try Self.json(message)
        config["options"] = ["a"]
        #expect(!HomeAssistantSchema.problems(topic: message.topic, config: config).isEmpty)
        #expect(!HomeAssistantSchema.problems(topic: "homeassistant/sensor/forecastd/pi-van/x/config", config: config).isEmpty)
    }

    @Test func theEntitiesAreOneDeviceInTheUsersUnits() throws {
        let units = ReportUnits(UnitPreferences(preset: .imperial, wind: .bft))
        let configs = try Self.discovery.configs(units: units, phrases: .english)
        var byKey: [String: [String: Any]] = [:]
        for message in configs {
            let key = message.topic.split(separator: "/").dropLast().last.map(String.init) ?? ""
            byKey[key] = try Self.json(message)
        }
        #expect(byKey.keys.sorted() == [
            "air_quality", "apparent_temperature", "condition", "dew_point", "forecast_updated", "humidity",
            "location_source", "precipitation", "precipitation_probability", "pressure", "rain_soon", "temperature",
            "uv_index", "warning_level", "warnings", "wind_direction", "wind_gusts", "wind_speed",
        ])
        #expect(byKey["temperature"]?["unit_of_measurement"] as? String == "°F")
        #expect(byKey["wind_speed"]?["unit_of_measurement"] as? String == "Beaufort")
        #expect(byKey["pressure"]?["unit_of_measurement"] as? String == "inHg")
        #expect(byKey["precipitation"]?["unit_of_measurement"] as? String == "in")
        for config in byKey.values {
            #expect(config["state_topic"] as? String == "forecastd/pi-van/report")
            #expect(config["availability_topic"] as? String == "forecastd/pi-van/status")
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["forecastd_pi-van"])
            #expect(device["name"] as? String == "forecastd pi-van")
        }
        #expect(configs.first { $0.topic == "homeassistant/binary_sensor/forecastd_pi-van/rain_soon/config" } != nil)
    }

    @Test func namesAreInTheUsersLanguage() throws {
        let german = Phrases(CatalogueLibrary.translation(for: .code("de")).translation)
        let configs = try Self.discovery.configs(units: ReportUnits(.metric), phrases: german)
        let names = try configs.map { try #require(Self.json($0)["name"] as? String) }
        #expect(names.contains("Temperatur"))
        #expect(names.contains("Gefühlte Temperatur"))
        // Every name has its translation in every catalogue (an untranslated one would show in English).
        for language in CatalogueLibrary.available where language != "en" {
            let phrases = Phrases(CatalogueLibrary.translation(for: .code(language)).translation)
            let translated = try Self.discovery.configs(units: ReportUnits(.metric), phrases: phrases)
            let english = try Self.discovery.configs(units: ReportUnits(.metric), phrases: .english)
            for (one, other) in zip(translated, english) {
                let name = try Self.json(one)["name"] as? String
                #expect(name != (try Self.json(other)["name"] as? String), "\(language): \(name ?? "")")
            }
        }
    }

    @Test func aCityIsADeviceOfItsOwnBehindThePublisher() throws {
        let configs = try Self.discovery.configs(city: ("paris-fr", "Paris"), units: ReportUnits(.metric), phrases: .english)
        #expect(configs.count == 13)
        for message in configs {
            #expect(message.topic.hasPrefix("homeassistant/sensor/forecastd_pi-van_city_paris-fr/"))
            let config = try Self.json(message)
            #expect(config["state_topic"] as? String == "forecastd/pi-van/cities/paris-fr/report")
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["name"] as? String == "forecastd pi-van: Paris")
            #expect(device["via_device"] as? String == "forecastd_pi-van")
        }
    }

    @Test func removalEmptiesEveryConfigTopic() throws {
        let here = try Self.discovery.configs(units: ReportUnits(.metric), phrases: .english)
        let removals = Self.discovery.removals(city: nil)
        #expect(removals.map(\.topic) == here.map(\.topic))
        #expect(removals.allSatisfy { $0.payload.isEmpty })
        let city = try Self.discovery.configs(city: ("paris-fr", "Paris"), units: ReportUnits(.metric), phrases: .english)
        #expect(Self.discovery.removals(city: "paris-fr").map(\.topic) == city.map(\.topic))
    }

    // MARK: The templates, rendered

    /// Renders each template with Jinja2's sandbox (Home Assistant's template engine; Debian's python3-jinja2)
    /// against `payload`, as Home Assistant does with `value_json`.
    static func render(_ templates: [String: String], payload: [UInt8]) throws -> [String: String] {
        let script = """
            import json, sys
            from jinja2.sandbox import ImmutableSandboxedEnvironment
            job = json.load(sys.stdin)
            environment = ImmutableSandboxedEnvironment()
            value = job["payload"]
            out = {key: environment.from_string(t).render(value=value, value_json=json.loads(value))
                   for key, t in job["templates"].items()}
            json.dump(out, sys.stdout)
            """
        let job = try JSONSerialization.data(withJSONObject: [
            "payload": String(decoding: payload, as: UTF8.self), "templates": templates,
        ])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(job)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw JinjaFailed(description: "python3 with jinja2 (Debian's python3-jinja2) failed: "
                + String(decoding: complaint, as: UTF8.self))
        }
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
    }

    struct JinjaFailed: Error, CustomStringConvertible { var description: String }

    @Test func theTemplatesReadTheReportsValues() throws {
        let now = PayloadFixtures.samaraFetched.addingTimeInterval(300)
        let units = UnitPreferences(preset: .imperial, wind: .bft)
        let inputs = try PayloadFixtures.samara(
            units: units, warnings: [PayloadFixtures.windWarning(start: now.addingTimeInterval(-3600), severity: .severe)])
        let report = Report(inputs, now: now)
        let payload = try SharedReport(
            publishedAt: now, publisher: PayloadFixtures.publisher, model: SharedModel(inputs, now: now)
        ).payload(report: report)
        var templates: [String: String] = [:]
        var configs: [String: [String: Any]] = [:]
        for message in try Self.discovery.configs(units: report.units, phrases: .english) {
            let key = message.topic.split(separator: "/").dropLast().last.map(String.init) ?? ""
            let config = try Self.json(message)
            configs[key] = config
            templates[key] = try #require(config["value_template"] as? String)
            if let attributes = config["json_attributes_template"] as? String { templates[key + ".attributes"] = attributes }
        }
        let values = try Self.render(templates, payload: payload)
        let current = try #require(report.current)
        func number(_ key: String) -> Double? { values[key].flatMap(Double.init) }
        #expect(number("temperature") == current.temperature)
        #expect(number("apparent_temperature") == current.apparentTemperature)
        #expect(number("humidity") == current.humidity)
        #expect(number("pressure") == current.pressure)
        #expect(number("wind_speed") == current.windSpeed)
        #expect(number("wind_direction") == current.windDirection)
        // Values the report does not have are None, which Home Assistant takes as unknown.
        #expect(values["dew_point"] == "None")
        #expect(values["uv_index"] == "None")
        #expect(values["air_quality"] == "None")
        #expect(values["precipitation"] == "None")  // Samara's recording has no hours
        #expect(values["condition"] == "Overcast")
        #expect(values["warnings"] == "1")
        #expect(values["warning_level"] == "severe")
        #expect(values["rain_soon"] == "OFF")
        #expect(values["location_source"] == "pinned")
        #expect(values["forecast_updated"] == report.provider?.fetchedAt)
        for (key, config) in configs {
            if let options = config["options"] as? [String] {
                #expect(options.contains(values[key] ?? ""), "\(key): \(values[key] ?? "")")
            }
            if config["json_attributes_template"] != nil {
                let attributes = try #require(values[key + ".attributes"])
                #expect((try? JSONSerialization.jsonObject(with: Data(attributes.utf8))) is [String: Any], "\(key)")
            }
        }
        let condition = try JSONSerialization.jsonObject(with: Data(try #require(values["condition.attributes"]).utf8))
        #expect((condition as? [String: Any])?["mdi_icon"] as? String == "mdi:weather-cloudy")
        let warnings = try JSONSerialization.jsonObject(with: Data(try #require(values["warnings.attributes"]).utf8))
        #expect(((warnings as? [String: Any])?["warnings"] as? [[String: Any]])?.first?["event"] as? String == "wind")
    }

    @Test func theNextHourAndRainSoonComeFromTheSummary() throws {
        let now = PayloadFixtures.bromsgroveFetched.addingTimeInterval(180)
        let inputs = try PayloadFixtures.bromsgrove()
        let report = Report(inputs, now: now)
        let payload = try SharedReport(
            publishedAt: now, publisher: PayloadFixtures.publisher, model: SharedModel(inputs, now: now)
        ).payload(report: report)
        var templates: [String: String] = [:]
        for message in try Self.discovery.configs(units: report.units, phrases: .english) {
            let key = message.topic.split(separator: "/").dropLast().last.map(String.init) ?? ""
            templates[key] = try #require(try Self.json(message)["value_template"] as? String)
        }
        let values = try Self.render(templates, payload: payload)
        let nextHour = try #require(report.hourly.first { $0.time == "2026-02-23T14:00:00Z" })
        #expect(values["precipitation_probability"].flatMap(Double.init) == nextHour.precipitationProbability)
        #expect(values["warnings"] == "0")
        #expect(values["warning_level"] == "none")
    }
}
