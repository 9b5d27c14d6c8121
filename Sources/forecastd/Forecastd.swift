import ArgumentParser
import CGPSVersion
import Control
import FileStore
import Foundation
import Gazetteer
import Logging
import Settings
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

struct Forecastd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecastd",
        abstract: "Weather for status bars: finds where the machine is, keeps the forecast fresh, publishes it.",
        // The sections after the first paragraph become sections of forecastd(8) (scripts/man-pages):
        // a heading, then entries indented by two spaces and their descriptions by six.
        discussion: """
            Settings come from --config PATH, else $FORECASTD_CONFIG, else \
            $XDG_CONFIG_HOME/forecastd/forecastd.toml (~/.config/…), else /etc/forecastd/forecastd.toml; \
            with none of them the built-in defaults apply. An invalid settings file stops start-up with exit code 78. \
            Edits to the file apply while forecastd runs, and so do SIGHUP and `forecastctl reload`; \
            forecastd.toml(5) describes every setting.

            ENVIRONMENT:
              FORECASTD_CONFIG
                  The settings file to read when --config is not given; it must exist.
              XDG_CONFIG_HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME
                  Where your settings, the report and socket, and the saved state go
                  (see FILES).
              FORECASTD_OPENWEATHERMAP_API_KEY
                  The OpenWeatherMap API key, when the settings file gives none.
              FORECASTD_IP_GEOLOCATION
                  off (or 0, no, false) turns IP geolocation off when no settings file
                  is found.
              FORECASTD_WIFI_GEOLOCATION
                  off (or 0, no, false) turns Wi-Fi positioning off when no settings
                  file is found.
              DBUS_SYSTEM_BUS_ADDRESS
                  The system bus, where NetworkManager is asked for the Wi-Fi access
                  points (default unix:path=/run/dbus/system_bus_socket).
              FORECASTD_GAZETTEER
                  The place data to use instead of the installed gazetteer.bin; it must
                  exist.
              NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID
                  Set by systemd for a Type=notify service: forecastd reports readiness,
                  its status line, reloads and stopping there, and pings the watchdog at
                  half the interval while it answers. A NOTIFY_SOCKET it cannot use is
                  logged once and ignored.
              LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES
                  Set by systemd when forecastd.socket passes the listening socket;
                  forecastd serves it instead of binding its own.

            FILES:
              /etc/forecastd/forecastd.toml
                  Settings for the whole machine, read when no other settings file is
                  found.
              $XDG_CONFIG_HOME/forecastd/forecastd.toml
                  Your settings (~/.config/forecastd/forecastd.toml when XDG_CONFIG_HOME
                  is unset).
              $XDG_RUNTIME_DIR/forecastd/report.json
                  The latest report as JSON, replaced whole on every change. A system
                  service (--system) writes /run/forecastd/report.json; without
                  XDG_RUNTIME_DIR a user's daemon writes in /tmp/forecastd-UID/.
              $XDG_RUNTIME_DIR/forecastd/forecastd.sock
                  The socket forecastctl and status bars talk to
                  (/run/forecastd/forecastd.sock for a system service).
              $XDG_STATE_HOME/forecastd/
                  The last report and position, published at start before any network
                  access, and history.sqlite, the recorded weather of favourite cities
                  (~/.local/state/forecastd/ when unset; /var/lib/forecastd/ for a
                  system service).
              /usr/share/forecastd/gazetteer.bin
                  The offline place names (GeoNames). A program installed in PREFIX/bin
                  reads PREFIX/share/forecastd/gazetteer.bin, then /usr/local/share and
                  /usr/share.

            EXIT STATUS:
              0   forecastd stopped when asked to (SIGTERM or SIGINT).
              1   forecastd stopped on an error it cannot recover from (see the log).
              64  The command line is wrong.
              78  The settings file is invalid; each problem is printed as
                  FILE:LINE:COLUMN. systemd does not restart it
                  (RestartPreventExitStatus=78).

            EXAMPLES:
              Run in the foreground on the built-in defaults, with detailed logs:
                  forecastd --log-level debug
              Run for your session under systemd, and follow its log:
                  systemctl --user enable --now forecastd
                  journalctl --user -u forecastd -f
              Run as a system service for every user of the machine:
                  systemctl enable --now forecastd
              Start only when a bar first connects to the socket:
                  systemctl --user enable --now forecastd.socket
              Apply an edited settings file (one with errors is refused):
                  systemctl --user reload forecastd
            """,
        version: ForecastdVersion.versionLine(
            program: "forecastd", libgpsMajor: forecastd_libgps_api_major(), libgpsMinor: forecastd_libgps_api_minor())
    )

    @Option(name: .long, help: ArgumentHelp("Settings file to read.", valueName: "PATH"), completion: .file(extensions: ["toml"]))
    var config: String?

    @Flag(name: .long, help: "Run as a system service: default paths under /run/forecastd and /var/lib/forecastd.")
    var system = false

    @Option(
        name: .long,
        help: ArgumentHelp("Least severe log level to print: trace, debug, info, notice, warning, error.", valueName: "LEVEL"),
        completion: .list(Logger.Level.allCases.map(\.rawValue)))
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
        let signature: FileSignature?
        do {
            // Read on Blocking's thread like every other file the daemon reads; the file's signature is taken
            // first, so an edit that lands between it and the read is read again by the reloader, never missed.
            let (config, isSystemService) = (config, isSystemService)
            let read = try await Blocking.run { () throws(any Error) in
                let source = try Settings.locate(explicit: config)
                let signature = source.path.map { FileSignature(path: $0) }
                return (source, signature, try Settings.loadWithWarnings(source, isSystemService: isSystemService))
            }
            (source, signature, settings) = (read.0, read.1, read.2.settings)
            for warning in read.2.warnings {
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
            gazetteer = try await Blocking.run { () throws(any Error) in try Gazetteer.loadDefault() }
        } catch {
            // Without place data the forecast still works; the report just has no place name.
            logger.error("Cannot load the place names; reports will have no place.", metadata: ["error": "\(error)"])
            gazetteer = nil
        }

        let daemon = DaemonComposition(
            settings: settings, settingsPath: source.path, settingsSignature: signature, explicitSettingsPath: config,
            isSystemService: isSystemService, places: gazetteer, logger: logger)
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
