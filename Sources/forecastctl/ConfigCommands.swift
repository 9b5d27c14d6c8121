import ArgumentParser
import Foundation
import Settings

// `forecastctl config`: which settings file is used, what it sets, whether it is valid, and the
// documented file as shipped.

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show which settings file is used, what it sets, and whether it is valid.",
        subcommands: [PathCommand.self, ShowCommand.self, CheckCommand.self, DefaultCommand.self])

    struct DefaultCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Print the documented settings file: every key at its default, with what it does.",
            discussion: """
                This is config/forecastd.toml as shipped, generated from the settings table: \
                `forecastctl config default > forecastd.toml` starts a settings file.
                """)

        func run() {
            print(Settings.documentedFileText, terminator: "")
        }
    }

    struct PathCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path",
            abstract: "Print the settings file in use (first line) and every path searched, in order.",
            discussion: "Exit codes: 0 success; 78 a file named by --config or $FORECASTD_CONFIG does not exist.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let environment = ProcessInfo.processInfo.environment
                let source: SettingsSource
                do {
                    source = try Settings.locate(explicit: global.config)
                } catch {
                    let named = global.config ?? environment["FORECASTD_CONFIG"] ?? ""
                    let origin = global.config != nil ? "--config" : "$FORECASTD_CONFIG"
                    // "no such file", or what else is in the way (a symbolic link loop, a directory).
                    let problem = (error as? SettingsError)?.problems.first?.message ?? "no such file"
                    print(named)
                    print("searched, in order:")
                    print("  \(named)  (named by \(origin)): \(problem == "no such file" ? "not found" : problem)")
                    throw CommandFailure(message: "\(named): \(problem) (named by \(origin))", exitCode: .configError)
                }
                switch source {
                case .file(let path, let origin, let searched):
                    print(path)
                    print("searched, in order:")
                    for candidate in searched {
                        let found = candidate == path
                        print(
                            "  \(candidate)  (\(describe(origin: found ? origin : nil, path: candidate))): \(found ? "used" : "not found")"
                        )
                    }
                case .builtInDefaults(let searched):
                    print("(none: the built-in defaults apply; edits create \(Settings.userConfigurationPath()))")
                    print("searched, in order:")
                    for candidate in searched {
                        print("  \(candidate)  (\(describe(origin: nil, path: candidate))): not found")
                    }
                }
            }
        }

        private func describe(origin: SettingsSource.Origin?, path: String) -> String {
            switch origin {
            case .commandLine: return "named by --config"
            case .environment: return "named by $FORECASTD_CONFIG"
            case .userConfiguration: return "the user's file"
            case .systemConfiguration: return "the system's file"
            case nil: return path == Settings.systemConfigurationPath ? "the system's file" : "the user's file"
            }
        }
    }

    struct ShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the settings in effect, every key with its value, as TOML.",
            discussion: """
                Keys the file leaves out show their defaults. An API key is never printed: it shows as "(set)", \
                "(from file PATH)" or "(from $VARIABLE)".

                Exit codes: 0 success; 78 the settings file is invalid.
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let source = try locateSettings(global)
                let loaded: LoadedSettings
                do {
                    loaded = try Settings.loadWithWarnings(source, isSystemService: false)
                } catch {
                    throw CommandFailure(message: "invalid settings:\n\(error)", exitCode: .configError)
                }
                loaded.warnings.forEach { warn($0.description) }
                print(
                    loaded.settings.toml(origin: source.path ?? "the built-in defaults (no settings file)"),
                    terminator: "")
            }
        }
    }

    struct CheckCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a settings file: print PATH: OK, or every problem as PATH:LINE:COLUMN: key: problem.",
            discussion: """
                Without PATH, the file forecastd would read is checked. Problems are printed on standard error, \
                one a line, in the format editors jump to.

                Exit codes: 0 the file is valid (or there is none); 78 it has problems, or PATH does not exist.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The file to check (default: the one forecastd reads).", valueName: "PATH"))
        var path: String?

        func run() throws {
            try reportingFailures {
                let source: SettingsSource
                if let path {
                    source = .file(path: path, origin: .commandLine, searched: [path])
                } else {
                    source = try locateSettings(global)
                }
                guard let file = source.path else {
                    print("no settings file: the built-in defaults apply: OK")
                    return
                }
                do throws(SettingsError) {
                    let loaded = try Settings.loadWithWarnings(source, isSystemService: false)
                    loaded.warnings.forEach { warn($0.description) }
                    print("\(file): OK")
                } catch {
                    FileHandle.standardError.write(Data((error.description + "\n").utf8))
                    throw ExitCode.configError
                }
            }
        }
    }
}
