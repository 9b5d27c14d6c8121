import Foundation
import Testing

@testable import Settings

/// `[mqtt]`: the broker, the topics and who this client is.
@Suite("The MQTT settings")
struct MQTTSettingsTests {
    let p = settingsPath

    @Test("off by default, a local broker on 1883, discovery under homeassistant, the host name's topic")
    func defaults() throws {
        let settings = try Settings.decode("", path: p, defaults: userDefaults)
        #expect(!settings.mqtt.enabled)
        #expect(settings.mqtt.broker == MQTTBroker(host: "localhost", port: 1883, tls: false))
        #expect(settings.mqtt.topic == nil && settings.mqtt.clientID == nil && settings.mqtt.username == nil)
        #expect(settings.mqtt.discovery && settings.mqtt.discoveryPrefix == "homeassistant")
    }

    @Test(
        "mqtt and mqtts URLs, with the scheme's port when none is written and IPv6 in brackets",
        arguments: [
            ("mqtt://broker.lan", MQTTBroker(host: "broker.lan", port: 1883, tls: false)),
            ("mqtts://broker.lan", MQTTBroker(host: "broker.lan", port: 8883, tls: true)),
            ("mqtt://127.0.0.1:1884", MQTTBroker(host: "127.0.0.1", port: 1884, tls: false)),
            ("mqtts://[::1]:8884/", MQTTBroker(host: "::1", port: 8884, tls: true)),
        ])
    func goodURLs(_ url: String, _ broker: MQTTBroker) throws {
        let settings = try Settings.decode("[mqtt]\nurl = \"\(url)\"\n", path: p, defaults: userDefaults)
        #expect(settings.mqtt.broker == broker)
        // Written back as it is read: `config show` and edits keep it.
        let shown = settings.toml(origin: "test")
        #expect((try? Settings.decode(shown, path: p, defaults: userDefaults))?.mqtt.broker == broker, "\(shown)")
    }

    @Test(
        "another scheme, no host, a path, a query or credentials in the URL are refused where they are written",
        arguments: ["http://broker.lan", "mqtt://", "mqtt://broker.lan/topic", "mqtt://broker.lan?x=1",
                    "mqtt://user:pw@broker.lan", "broker.lan:1883", ""])
    func badURLs(_ url: String) {
        #expect(
            problems(in: "[mqtt]\nurl = \"\(url)\"\n") == [
                "\(p):2:7: mqtt.url: \"\(url)\" is not an mqtt or mqtts URL (allowed: a URL such as "
                    + "\"mqtt://localhost:1883\" or \"mqtts://broker.example:8883\")"
            ])
    }

    @Test("a topic with a wildcard, an empty level or $ at its start is refused with the reason")
    func badTopics() throws {
        #expect(
            problems(in: "[mqtt]\ntopic = \"forecastd/+\"\n") == [
                "\(p):2:9: mqtt.topic: the topic \"forecastd/+\" contains a wildcard (+ or #), which only "
                    + "subscriptions may (allowed: a topic such as \"forecastd/pi-van\": no + or #, no empty level)"
            ])
        #expect(problems(in: "[mqtt]\ndiscovery_prefix = \"home//assistant\"\n").first?.contains("empty level") == true)
        #expect(problems(in: "[mqtt]\ntopic = \"$SYS/x\"\n").first?.contains("starts with $") == true)
        #expect(try Settings.decode("[mqtt]\ntopic = \"\"\n", path: p, defaults: userDefaults).mqtt.topic == nil)
    }

    @Test("follow takes another forecastd's topic; \"\" (the default) fetches, a wildcard is refused where it is written")
    func follow() throws {
        #expect(try Settings.decode("", path: p, defaults: userDefaults).mqtt.follow == nil)
        let settings = try Settings.decode("[mqtt]\nfollow = \"forecastd/pi-van\"\n", path: p, defaults: userDefaults)
        #expect(settings.mqtt.follow == "forecastd/pi-van")
        #expect(try Settings.decode("[mqtt]\nfollow = \"\"\n", path: p, defaults: userDefaults).mqtt.follow == nil)
        #expect(
            problems(in: "[mqtt]\nfollow = \"forecastd/#\"\n") == [
                "\(p):2:10: mqtt.follow: the topic \"forecastd/#\" contains a wildcard (+ or #), which only "
                    + "subscriptions may (allowed: a topic such as \"forecastd/pi-van\": no + or #, no empty level)"
            ])
    }

    @Test("a password file must be an absolute path; \"\" is none")
    func passwordFile() throws {
        #expect(problems(in: "[mqtt]\npassword_file = \"secret.txt\"\n").first?.contains("not an absolute path") == true)
        let settings = try Settings.decode(
            "[mqtt]\nusername = \"van\"\npassword_file = \"/etc/forecastd/mqtt-password\"\n", path: p,
            defaults: userDefaults)
        #expect(settings.mqtt.username == "van")
        #expect(settings.mqtt.passwordFile == "/etc/forecastd/mqtt-password")
    }
}
