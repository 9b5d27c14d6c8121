import ArgumentParser
import Control
import Daemon
import Foundation
import Gazetteer
import Logging
import Settings

#if canImport(Glibc)
    import Glibc
#endif

struct Forecastd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecastd",
        abstract: "Weather for status bars: finds where the machine is, keeps the forecast fresh, publishes it.",
        discussion: """
            Settings come from --config PATH, else $FORECASTD_CONFIG, else \
            $XDG_CONFIG_HOME/forecastd/forecastd.toml (~/.config/…), else /etc/forecastd/forecastd.toml; \
            with none of them the built-in defaults apply. An invalid settings file stops start-up with exit code 78.
            """,
        version: ForecastdVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("Settings file to read.", valueName: "PATH"))
    var config: String?

    @Flag(name: .long, help: "Run as a system service: default paths under /run/forecastd and /var/lib/forecastd.")
    var system = false

    @Option(name: .long, help: ArgumentHelp("Least severe log level to print: trace, debug, info, notice, warning, error.", valueName: "LEVEL"))
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level \(logLevel): not a level (allowed: trace, debug, info, notice, warning, error, critical)")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level) }
        let logger = Logger(label: "forecastd")

        let settings: Settings
        let source: SettingsSource
        do {
            source = try Settings.locate(explicit: config)
            let loaded = try Settings.loadWithWarnings(source, isSystemService: isSystemService)
            settings = loaded.settings
            for warning in loaded.warnings {
                logger.warning("\(warning)")
            }
        } catch {
            // Printed as is: each line is `PATH:LINE:COLUMN: key: problem (allowed: …)`.
            FileHandle.standardError.write(Data("forecastd: invalid settings:\n\(error)\n".utf8))
            throw ExitCode(78)
        }
        logger.info(
            "Starting forecastd.",
            metadata: [
                "version": "\(ForecastdVersion.current)",
                "settings": "\(source.path ?? "none found, using the built-in defaults")",
            ])

        let gazetteer: Gazetteer?
        do {
            gazetteer = try Gazetteer.loadDefault()
        } catch {
            // Without place data the forecast still works; the report just has no place name.
            logger.error("Cannot load the place names; reports will have no place.", metadata: ["error": "\(error)"])
            gazetteer = nil
        }

        let daemon = Daemon(
            settings: settings, settingsPath: source.path, explicitSettingsPath: config, isSystemService: isSystemService,
            places: gazetteer, logger: logger)
        do {
            try await daemon.run()
        } catch {
            logger.critical("forecastd stopped.", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        logger.info("forecastd stopped.")
    }

    /// A system service gets system paths: asked for with --system, or started by systemd as root.
    private var isSystemService: Bool {
        system || Settings.isLikelySystemService()
    }
}
