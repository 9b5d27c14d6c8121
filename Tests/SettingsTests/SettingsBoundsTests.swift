import FileStore
import Foundation
import Testing

@testable import Settings

/// What a settings file or a `set` cannot slip past: a contact with a line break (it would end the User-Agent
/// header and fail every MET Norway request), a symbolic link loop reported as a missing file, sizes written
/// one way here and another there.
@Suite("Settings bounds")
struct SettingsBoundsTests {
    @Test(
        "a contact with a line break or another control character is refused, in the file and through set",
        arguments: [
            ("me@example.org\\r\\nX-Injected: 1", "me@example.org\r\nX-Injected: 1", "a carriage return (\\r) at character 15"),
            ("me@example.org\\nsecond line", "me@example.org\nsecond line", "a line feed (\\n) at character 15"),
            ("me\\u0007@example.org", "me\u{7}@example.org", "the control character U+0007 at character 3"),
            ("me@exa\\tmple.org", "me@exa\tmple.org", "a tab (\\t) at character 7"),
        ])
    func contactControlCharacters(_ escaped: String, _ value: String, _ what: String) throws {
        let text = "[providers.met_norway]\ncontact = \"\(escaped)\"\n"
        #expect(
            problems(in: text) == [
                "\(settingsPath):2:11: providers.met_norway.contact: holds \(what), which an HTTP header cannot "
                    + "carry (allowed: an e-mail address or a URL on one line, or \"\")"
            ])

        // forecastctl set and the socket's set: the characters themselves, as a shell passes them.
        let directory = try TemporaryDirectory()
        let original = "[providers.met_norway]\ncontact = \"me@example.org\"\n"
        let path = try directory.write(original, to: "forecastd.toml")
        let error = #expect(throws: SettingsEditError.self) {
            try SettingsFileEditor.apply(
                .set(key: "providers.met_norway.contact", value: value),
                to: SettingsEditTarget(path: path, whenMissing: .refuse), places: nil, environment: userEnvironment)
        }
        #expect(error?.description.contains("holds \(what)") == true, "\(String(describing: error))")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
    }

    @Test("a contact on one line, with spaces around it trimmed, is taken")
    func contactOnOneLine() throws {
        let settings = try Settings.decode(
            "[providers.met_norway]\ncontact = \"  Ops <ops@example.org> https://example.org/about  \"\n",
            path: settingsPath, defaults: userDefaults)
        #expect(settings.providers.metNorway.contact == "Ops <ops@example.org> https://example.org/about")
    }

    @Test("a symbolic link loop as the settings file is called that, not \"no such file\"")
    func symbolicLinkLoop() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/forecastd.toml"
        #expect(symlink("forecastd.toml", path) == 0)
        let loop = "is a symbolic link loop (too many levels of symbolic links)"
        #expect(throws: SettingsError(SettingsProblem(path: path, message: loop))) {
            try Settings.locate(explicit: path, environment: userEnvironment, systemPath: "/nonexistent")
        }
        #expect(
            throws: SettingsError(SettingsProblem(path: path, message: loop + ", not a settings file"))
        ) {
            try Settings.load(from: path, environment: userEnvironment, isSystemService: false)
        }
        // The user's file a loop: chosen, so that reading it says so, rather than the defaults without a word.
        try FileManager.default.createDirectory(atPath: directory.path + "/config/forecastd", withIntermediateDirectories: true)
        #expect(symlink("forecastd.toml", directory.path + "/config/forecastd/forecastd.toml") == 0)
        let source = try Settings.locate(
            explicit: nil, environment: ["XDG_CONFIG_HOME": directory.path + "/config"], systemPath: "/nonexistent")
        #expect(source.path == directory.path + "/config/forecastd/forecastd.toml")
    }

    @Test("sizes in refusals are written one way: bytes below 1 KiB, else KiB, MiB or GiB")
    func sizes() {
        #expect(ByteCount(1).description == "1 byte")
        #expect(ByteCount(107).description == "107 bytes")
        #expect(ByteCount(1024).description == "1 KiB")
        #expect(ByteCount(64 * 1024).description == "64 KiB")
        #expect(ByteCount(1 << 20).description == "1 MiB")
        #expect(ByteCount(4 << 20).description == "4 MiB")
        #expect(ByteCount(1536).description == "1.5 KiB")
        // Just over a limit never reads as the limit.
        #expect(ByteCount((10 << 20) + 1).description == "10.1 MiB")
        #expect(ByteCount(3 << 30).description == "3 GiB")
    }
}
