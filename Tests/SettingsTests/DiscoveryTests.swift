import Foundation
import Testing

@testable import Settings

@Suite("Finding the settings file")
struct DiscoveryTests {
    /// A home with a user file, a system file and a file named by variable, all present.
    struct Layout {
        let directory: TemporaryDirectory
        let userFile: String
        let systemFile: String
        let namedFile: String
        var environment: [String: String]

        init() throws {
            directory = try TemporaryDirectory()
            userFile = try directory.write("units = \"imperial\"\n", to: "config/forecastd/forecastd.toml")
            systemFile = try directory.write("refresh_minutes = 30\n", to: "etc/forecastd/forecastd.toml")
            namedFile = try directory.write("refresh_minutes = 45\n", to: "named.toml")
            environment = [
                "HOME": directory.path + "/home",
                "XDG_CONFIG_HOME": directory.path + "/config",
                "FORECASTD_CONFIG": namedFile,
            ]
        }
    }

    @Test("--config wins over everything")
    func explicitFirst() throws {
        let layout = try Layout()
        let explicit = try layout.directory.write("", to: "explicit.toml")
        let source = try Settings.locate(
            explicit: explicit, environment: layout.environment, systemPath: layout.systemFile)
        #expect(source == .file(path: explicit, origin: .commandLine, searched: [explicit]))
    }

    @Test("then $FORECASTD_CONFIG")
    func environmentSecond() throws {
        let layout = try Layout()
        let source = try Settings.locate(explicit: nil, environment: layout.environment, systemPath: layout.systemFile)
        #expect(source == .file(path: layout.namedFile, origin: .environment, searched: [layout.namedFile]))
        let settings = try Settings.load(source, environment: layout.environment, isSystemService: false)
        #expect(settings.refreshMinutes == 45)
    }

    @Test("then the user's file under XDG_CONFIG_HOME")
    func userThird() throws {
        var layout = try Layout()
        layout.environment["FORECASTD_CONFIG"] = ""
        let source = try Settings.locate(explicit: nil, environment: layout.environment, systemPath: layout.systemFile)
        #expect(source == .file(path: layout.userFile, origin: .userConfiguration, searched: [layout.userFile]))
        #expect(try Settings.load(source, environment: layout.environment, isSystemService: false).units == .imperial)
    }

    @Test("without XDG_CONFIG_HOME the user's file is under ~/.config")
    func homeConfig() throws {
        let layout = try Layout()
        let file = try layout.directory.write("", to: "home/.config/forecastd/forecastd.toml")
        let environment = ["HOME": layout.directory.path + "/home"]
        #expect(Settings.userConfigurationPath(environment: environment) == file)
        let source = try Settings.locate(explicit: nil, environment: environment, systemPath: layout.systemFile)
        #expect(source.path == file)
    }

    @Test("then the system file, after searching the user's")
    func systemFourth() throws {
        let layout = try Layout()
        try FileManager.default.removeItem(atPath: layout.userFile)
        let environment = ["XDG_CONFIG_HOME": layout.directory.path + "/config"]
        let source = try Settings.locate(explicit: nil, environment: environment, systemPath: layout.systemFile)
        #expect(
            source
                == .file(
                    path: layout.systemFile, origin: .systemConfiguration,
                    searched: [layout.userFile, layout.systemFile]
                ))
        #expect(try Settings.load(source, environment: environment, isSystemService: false).refreshMinutes == 30)
    }

    @Test("with no file anywhere the built-in defaults apply, and the search is reported")
    func noneFound() throws {
        let layout = try Layout()
        let environment = ["XDG_CONFIG_HOME": layout.directory.path + "/nowhere"]
        let absentSystem = layout.directory.path + "/no-etc/forecastd.toml"
        let source = try Settings.locate(explicit: nil, environment: environment, systemPath: absentSystem)
        let userPath = layout.directory.path + "/nowhere/forecastd/forecastd.toml"
        #expect(source == .builtInDefaults(searched: [userPath, absentSystem]))
        #expect(source.path == nil)
        #expect(source.searched == [userPath, absentSystem])
    }

    @Test("a directory where the user's file should be is skipped")
    func directorySkipped() throws {
        let layout = try Layout()
        try FileManager.default.removeItem(atPath: layout.userFile)
        try FileManager.default.createDirectory(atPath: layout.userFile, withIntermediateDirectories: false)
        let environment = ["XDG_CONFIG_HOME": layout.directory.path + "/config"]
        let source = try Settings.locate(explicit: nil, environment: environment, systemPath: layout.systemFile)
        #expect(source.path == layout.systemFile)
    }

    @Test("a path named by --config or $FORECASTD_CONFIG must exist")
    func namedPathsMustExist() throws {
        let layout = try Layout()
        let missing = layout.directory.path + "/missing.toml"
        #expect(throws: SettingsError(SettingsProblem(path: missing, message: "no such file"))) {
            try Settings.locate(explicit: missing, environment: layout.environment, systemPath: layout.systemFile)
        }
        var environment = layout.environment
        environment["FORECASTD_CONFIG"] = missing
        #expect(throws: SettingsError(SettingsProblem(path: missing, message: "no such file"))) {
            try Settings.locate(explicit: nil, environment: environment, systemPath: layout.systemFile)
        }
        do {
            _ = try Settings.locate(explicit: missing, environment: [:], systemPath: layout.systemFile)
            Issue.record("expected \(missing) to be rejected")
        } catch {
            #expect(error.description == "\(missing): no such file")
        }
    }
}
