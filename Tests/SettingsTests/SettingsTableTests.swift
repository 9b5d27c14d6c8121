import ForecastModel
import Foundation
import Testing

@testable import Settings

/// The settings table: one row per key, from which the documented file, `config show`, the change
/// lists and a new settings file are all made.
@Suite("The settings table")
struct SettingsTableTests {
    /// Settings that differ from the defaults in every kind of key and table.
    static var everything: Settings {
        var settings = userDefaults
        settings.units = .imperial
        settings.location.mode = .pinned
        settings.location.staticFile = nil
        settings.location.pin = Pin(coordinate: Coordinate(latitude: -34.9011, longitude: -56.1645))
        settings.location.ip.enabled = false
        settings.location.ip.services = [.ipAPI]
        settings.location.ip.ipAPIURL = URL(string: "http://127.0.0.1:9/json/")!
        settings.providers.order = [.metNorway]
        settings.providers.openMeteo.geocodingURL = URL(string: "https://geocoding-api.open-meteo.com/v1/search")!
        settings.providers.metNorway.contact = "me@example.org"
        settings.output.socket = "/run/forecastd-test/f.sock"
        settings.output.socketGroup = "forecastd"
        settings.output.files = [
            Settings.StatusFile(path: "/run/w.json", format: .waybar),
            Settings.StatusFile(path: "/run/t.txt", format: .template, template: "%c %t", icons: .emojiSafe),
        ]
        settings.display.hotCelsius = 25.5
        settings.history.retentionDays = 30
        settings.cities = [
            Settings.City(name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85, longitude: 2.35)),
            Settings.City(
                name: "Springfield", admin1: "Illinois", countryCode: "US",
                coordinate: Coordinate(latitude: 39.8, longitude: -89.64), favorite: true,
                added: CalendarDate(year: 2026, month: 1, day: 2), explicitID: "springfield-il-us"),
        ]
        return settings
    }

    @Test("the documented file holding other settings reads back as those settings")
    func documentedTextRoundTrip() throws {
        for settings in [userDefaults, Self.everything] {
            let text = Settings.documentedText(settings: settings, defaults: userDefaults)
            #expect(try Settings.decode(text, path: "created", defaults: userDefaults) == settings)
        }
        // Keys whose defaults depend on the environment are written only when they differ from them.
        let text = Settings.documentedText(settings: Self.everything, defaults: userDefaults)
        #expect(text.contains("\n# status_file = \"/run/user/1000/forecastd/report.json\"\n"))
        #expect(text.contains("\nsocket = \"/run/forecastd-test/f.sock\"\n"))
        #expect(text.contains("\n[location.pin]\nlatitude = -34.9011\nlongitude = -56.1645\n"))
        #expect(text.contains("\n[[output.files]]\npath = \"/run/w.json\"\nformat = \"waybar\"\ntemplate = \"\"\n"))
    }

    @Test("a secret is never written into a file, only the file that holds it")
    func secretNotWritten() throws {
        var settings = userDefaults
        settings.providers.openWeatherMap.apiKey = Secret("sk-123", origin: .settingsFile)
        let text = Settings.documentedText(settings: settings, defaults: userDefaults)
        #expect(!text.contains("sk-123"))
        #expect(text.contains("\napi_key = \"\"\n"))
    }

    @Test("every placeholder is filled, every line fits in 100 columns, and every key says when it applies")
    func documentation() {
        let text = Settings.documentedFileText
        #expect(!text.contains("{allowed"))
        for (number, line) in text.split(separator: "\n").enumerated() {
            #expect(line.count <= 100, "line \(number + 1) is \(line.count) characters long")
        }
        for key in SettingsTable.keys where key.application == .restart && !key.isElementKey {
            // Looked for in its own table: two tables may have keys of one name (`url`, `enabled`).
            let table = key.path.count > 1
                ? text.range(of: "\n[\(key.path.dropLast().joined(separator: "."))]\n")?.upperBound ?? text.endIndex
                : text.startIndex
            let line = text.range(
                of: "\n\(key.documented == .value ? "" : "# ")\(key.name) = ", range: (table == text.startIndex ? table : text.index(before: table))..<text.endIndex)
            let before = line.map { text[..<$0.lowerBound].suffix(200) } ?? ""
            #expect(before.hasSuffix("# Read at start: a change takes effect when forecastd restarts."), "\(key)")
        }
    }

    @Test("a reload applies the live keys and keeps the running values of those read at start")
    func applicable() {
        let running = userDefaults
        var edited = running
        edited.units = .imperial
        edited.display.icons = .nerd
        edited.output.maxClients = 3
        edited.output.files = [Settings.StatusFile(path: "/run/w.json", format: .waybar)]
        let changes = SettingsTable.changes(from: running, to: edited)
        #expect(changes.filter { $0.application == .live }.map(\.key) == ["units", "display.icons", "output.files"])
        #expect(changes.filter { $0.application == .restart }.map(\.key) == ["output.max_clients"])
        var expected = edited
        expected.output.maxClients = running.output.maxClients
        #expect(SettingsTable.applicable(edited, running: running) == expected)
    }

    @Test("config show and the value of each key come from the same rows")
    func values() {
        let settings = Self.everything
        for key in SettingsKey.all {
            #expect(settings.value(at: key.path) == key.value(in: settings))
        }
        #expect(settings.value(at: ["location", "ip", "ip_api_url"]) == .string("http://127.0.0.1:9/json/"))
        #expect(settings.value(at: ["location", "pin", "name"]) == nil)
        #expect(settings.value(at: ["cities", "name"]) == nil)
        #expect(
            settings.cities[1].tomlLines == [
                "name = \"Springfield\"", "admin1 = \"Illinois\"", "country = \"US\"", "latitude = 39.8",
                "longitude = -89.64", "favorite = true", "added = 2026-01-02", "id = \"springfield-il-us\"",
            ])
        #expect(settings.cities[0].tomlLines.last == "favorite = false")
    }
}
