import Foundation
import Testing

@testable import Settings

/// `[map]`: the tile server of `forecastctl pick`.
@Suite("The map's settings")
struct MapSettingsTests {
    let p = settingsPath

    @Test("the defaults are OpenStreetMap's standard tiles and the credit its tile usage policy asks for")
    func defaults() throws {
        let settings = try Settings.decode("", path: p, defaults: userDefaults)
        #expect(settings.map.tilesURL == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        #expect(settings.map.attribution == "© OpenStreetMap contributors")
        #expect(settings.map.attributionURL?.absoluteString == "https://www.openstreetmap.org/copyright")
    }

    @Test(
        "tile templates with {s}, {r} and a port are taken as written",
        arguments: [
            "https://{s}.tile.example.org/{z}/{x}/{y}{r}.png", "http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png",
            "https://tiles.example.org/map.png?z={z}&x={x}&y={y}&key=abc",
        ])
    func goodTemplates(_ template: String) throws {
        let text = "[map]\ntiles_url = \"\(template)\"\nattribution_url = \"\"\n"
        let settings = try Settings.decode(text, path: p, defaults: userDefaults)
        #expect(settings.map.tilesURL == template)
        #expect(settings.map.attributionURL == nil)
    }

    @Test(
        "a template without {z}, {x} and {y}, with other braces, spaces, credentials or another scheme is refused where it is written",
        arguments: [
            "https://tiles.example.org/map.png", "https://tiles.example.org/{z}/{x}.png", "ftp://tiles.example.org/{z}/{x}/{y}.png",
            "https://tiles.example.org/{z}/{x}/{y}.png?k={key}", "https://tiles example.org/{z}/{x}/{y}.png",
            "https://user:secret@tiles.example.org/{z}/{x}/{y}.png", "/{z}/{x}/{y}.png", "",
        ])
    func badTemplates(_ template: String) {
        #expect(
            problems(in: "[map]\ntiles_url = \"\(template)\"\n") == [
                "\(p):2:13: map.tiles_url: \"\(template)\" is not a tile URL with {z}, {x} and {y} (allowed: a URL such as \"https://tile.openstreetmap.org/{z}/{x}/{y}.png\")"
            ])
    }

    @Test("the credit may not be empty")
    func emptyAttribution() {
        #expect(
            problems(in: "[map]\nattribution = \" \"\n") == [
                "\(p):2:15: map.attribution: must not be empty (allowed: the credit the tile server asks for)"
            ])
    }
}
