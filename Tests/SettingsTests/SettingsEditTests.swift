import ForecastModel
import Foundation
import Testing

@testable import Settings

/// A place search that knows two Hamiltons and one Paris, as the gazetteer would answer.
struct KnownPlaces: PlaceSearching {
    static func place(
        _ name: String, _ admin1: String, _ code: String, _ latitude: Double, _ longitude: Double
    )
        -> Place
    {
        Place(
            name: name, admin1: admin1, country: code, countryCode: code, population: 500_000,
            coordinate: Coordinate(latitude: latitude, longitude: longitude), timezone: nil, distanceKm: 0)
    }

    func resolve(_ name: String) -> NameResolution {
        switch name {
        case "Paris": .unique(Self.place("Paris", "Île-de-France", "FR", 48.85341, 2.3488))
        case "Hamilton":
            .ambiguous([
                Self.place("Hamilton", "Ontario", "CA", 43.25, -79.85),
                Self.place("Hamilton", "Waikato", "NZ", -37.78, 175.28),
            ])
        default: .notFound
        }
    }
}

@Suite("The settings-edit API forecastctl and the socket share")
struct SettingsEditTests {
    func target(_ path: String) -> SettingsEditTarget { SettingsEditTarget(path: path, whenMissing: .refuse) }

    func apply(_ request: SettingsEditRequest, _ path: String) throws(SettingsEditError) -> SettingsEditOutcome {
        try SettingsFileEditor.apply(request, to: target(path), places: KnownPlaces(), environment: userEnvironment)
    }

    @Test("units, mode and set change only the value's bytes and say what changed")
    func valueRequests() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        #expect(try apply(.units("imperial"), path).lines == ["units: metric → imperial (\(path))"])
        #expect(try apply(.units("imperial"), path).lines == ["units: imperial, unchanged (\(path))"])
        #expect(
            try apply(.set(key: "location.gpsd.port", value: "2948"), path).lines == [
                "location.gpsd.port: 2947 → 2948 (\(path))"
            ])
        let expected =
            commentedFile
            .replacingOccurrences(of: #"units   =   "metric""#, with: #"units   =   "imperial""#)
            .replacingOccurrences(of: "# local gpsd\n", with: "# local gpsd\nport = 2948\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        #expect(throws: SettingsEditError.self) { try apply(.mode("gps"), path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }

    @Test("set with a value toml++ would abort on is refused, the file unchanged, not a crash")
    func setStrayBrace() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(commentedFile, to: "forecastd.toml")
        for value in ["[}", "[\"open-meteo\", }"] {
            #expect(throws: SettingsEditError.self) { try apply(.set(key: "providers.order", value: value), path) }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == commentedFile)
    }

    @Test("pin takes coordinates, links and place names; a name's place is noted, an ambiguous one listed")
    func pin() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("[location]\nmode = \"auto\"\n", to: "forecastd.toml")
        let byName = try apply(.pin("Paris", name: nil), path)
        #expect(byName.lines == [#"location.pin: (none) → 48.85341, 2.3488 "Paris" (\#(path))"#])
        #expect(
            byName.notes == [
                "Paris is Paris, Île-de-France, FR (48.8534, 2.3488; 500 k people)",
                "mode is \"auto\": the pin is used when no other source knows the position; "
                    + "`forecastctl mode pinned` uses it always",
            ])
        let byLink = try apply(.pin("geo:-34.9011,-56.1645", name: "Home"), path)
        #expect(byLink.lines == [#"location.pin: 48.85341, 2.3488 "Paris" → -34.9011, -56.1645 "Home" (\#(path))"#])
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let ambiguous = #expect(throws: SettingsEditError.self) { try apply(.pin("Hamilton", name: nil), path) }
        #expect(ambiguous?.message.hasPrefix("\"Hamilton\" matches several places; name one more precisely") == true)
        #expect(ambiguous?.message.contains("Hamilton, Waikato, NZ") == true)
        #expect(throws: SettingsEditError(.invalidRequest, "latitude 95 is out of range (allowed: -90...90)")) {
            try apply(.pin("95,10", name: nil), path)
        }
        // Without a place search, a name is not a place.
        #expect(
            throws: SettingsEditError(
                .invalidRequest,
                "\"Paris\" is not a coordinate, a map link or a known place (places of 1000 inhabitants and more)")
        ) {
            try SettingsFileEditor.apply(
                .pin("Paris", name: nil), to: target(path), places: nil, environment: userEnvironment)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
    }

    @Test("unpin in pinned mode goes back to auto, and gives back the bytes from before the pin")
    func unpinWhilePinned() throws {
        let directory = try TemporaryDirectory()
        let original = "[location]\nmode = \"auto\"  # for now\n"
        let path = try directory.write(original, to: "forecastd.toml")
        _ = try apply(.pin("61.5, 23.7", name: nil), path)
        _ = try apply(.mode("pinned"), path)
        let outcome = try apply(.unpin, path)
        #expect(
            outcome.lines == [
                "location.pin: 61.5, 23.7 → (none) (\(path))", "location.mode: pinned → auto (\(path))",
            ])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
        #expect(
            outcome.message == "location.pin: 61.5, 23.7 → (none) (\(path)); location.mode: pinned → auto (\(path))")
    }

    @Test("a missing file that was named is refused and not created; unpin without any file changes nothing")
    func missingFileRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/gone.toml"
        let error = #expect(throws: SettingsEditError.self) { try apply(.units("imperial"), path) }
        #expect(error?.kind == .invalidFile)
        #expect(
            error?.message
                == "\(path) does not exist, so nothing was written: the settings in effect may have come from it, and a "
                + "new file would undo them. Restore it, or start one with `forecastctl config default > \(path)`")
        #expect(!FileManager.default.fileExists(atPath: path))

        let create = SettingsEditTarget(path: path, whenMissing: .create(from: userDefaults, defaults: userDefaults))
        let unpin = try SettingsFileEditor.apply(.unpin, to: create, places: nil, environment: userEnvironment)
        #expect(unpin.lines == ["location.pin: (none), unchanged (there is no settings file)"])
        #expect(unpin.edit == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a file created from the settings in effect holds them all, so the edit is the only change")
    func createdFromSettingsInEffect() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/config/forecastd.toml"
        var inEffect = userDefaults
        inEffect.location.ip.enabled = false
        inEffect.location.pin = Pin(coordinate: Coordinate(latitude: 59.91, longitude: 10.75), name: "Oslo")
        inEffect.providers.openMeteo.url = URL(string: "http://127.0.0.1:8080/v1/forecast")!
        let target = SettingsEditTarget(path: path, whenMissing: .create(from: inEffect, defaults: userDefaults))
        let outcome = try SettingsFileEditor.apply(
            .units("imperial"), to: target, places: nil, environment: userEnvironment)
        #expect(outcome.lines == ["created \(path) from the settings in effect", "units: metric → imperial (\(path))"])
        var expected = inEffect
        expected.units = .imperial
        #expect(outcome.edit?.settings == expected)
        #expect(try Settings.load(from: path, environment: userEnvironment, isSystemService: false) == expected)
    }

    @Test("the file to edit: a named file as named, else the file in use, else the user's file to create")
    func whichFile() throws {
        let directory = try TemporaryDirectory()
        let environment = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.path + "/config"]
        let system = directory.path + "/etc/forecastd.toml"
        func locate(_ explicit: String?, _ environment: [String: String]) -> SettingsEditTarget {
            SettingsEditTarget.locate(
                explicit: explicit, environment: environment, systemPath: system, inEffect: userDefaults,
                defaults: userDefaults)
        }
        let userFile = directory.path + "/config/forecastd/forecastd.toml"
        let create = MissingSettingsFile.create(from: userDefaults, defaults: userDefaults)
        #expect(locate(nil, environment) == SettingsEditTarget(path: userFile, whenMissing: create))
        #expect(locate("/x/named.toml", environment) == SettingsEditTarget(path: "/x/named.toml", whenMissing: .refuse))
        var named = environment
        named["FORECASTD_CONFIG"] = "/x/variable.toml"
        #expect(locate(nil, named) == SettingsEditTarget(path: "/x/variable.toml", whenMissing: .refuse))
        try directory.write("units = \"metric\"\n", to: "etc/forecastd.toml")
        #expect(locate(nil, environment) == SettingsEditTarget(path: system, whenMissing: .refuse))
        try directory.write("units = \"metric\"\n", to: "config/forecastd/forecastd.toml")
        #expect(locate(nil, environment) == SettingsEditTarget(path: userFile, whenMissing: .refuse))
    }
}
