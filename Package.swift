// swift-tools-version: 6.1
//
// forecastd: a weather daemon for Linux status bars.
//
// Dependencies point one way:
//   everything that shows words → ForecastModel → Localization (the catalogues) → FileStore (Foundation only).
//   executables → command lines (ForecastdCommand, ForecastctlCommands). ForecastdCommand is also the daemon's
//   composition root: it builds the providers and sources from the settings and runs DaemonServices' services and
//   ControlServer's socket around DaemonState's one state actor. DaemonServices → DaemonState and ControlServer →
//   DaemonState, never one to the other (the socket gets the settings reloader's work as closures); DaemonState →
//   (Location, WeatherProviders, Rendering, Settings, Control) → ForecastModel; Notifications → Settings. The command lines
//   also use Gazetteer (the state gets it as ForecastModel's PlaceNaming and PlaceSearching). The daemon talks to
//   systemd through Systemd (which uses swift-log, NIOConcurrencyHelpers and Waiting, for its watchdog's wait).
//   Rendering builds on ForecastModel only (its words are ForecastModel's Phrases).
//   Every weather provider, warning source and IP geolocation service talks HTTP through Fetching (its
//   Fetcher: deadline, User-Agent, caps, failures classified once), which builds on ForecastModel, FileStore
//   and Waiting. Waiting (the one timer, Alarm; the one blocking thread, Blocking) builds on Executors.
//   Settings and the daemon's modules write files through FileStore; Settings and Localization read theirs
//   through its bounded reader, and every refusal that names a size writes it with its ByteCount.
//   CitiesCSV (favourites as CSV) builds on Settings; History (the SQLite database of favourites'
//   readings) on ForecastModel only, so the daemon writes it and forecastctl reads it.
//   DesktopNotifications, NetworkManager and GeoClue → DBus → CSDBus (libsystemd's sd-bus): no forecastd types.
//   NetworkPath (which interface carries traffic out, and whether it is a tunnel) builds on FileStore only.
//   WiFiLocation (the Wi-Fi position source) builds on Location and NetworkManager, GeoClueLocation on Location
//   and GeoClue; ForecastdCommand uses both.
//   Notifications (what to notify, remembered in the state directory) builds on DesktopNotifications,
//   ForecastModel and FileStore; the daemon uses it and Warnings.
//   MapPicker (forecastctl pick's page and its server on 127.0.0.1) builds on Gazetteer, Localization and SwiftNIO;
//   forecastctl uses it.
//   MQTT → CMosquitto (libmosquitto) and Waiting (its socket is a source of the descriptor waiter): no forecastd
//   types. MQTTPayloads (the topics, the shared report, Home Assistant's discovery) builds on ForecastModel and
//   FileStore only, so its decoding fuzzes alone.
// Each library target has a test target of the same name; EndToEndTests runs the built executables.

import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "forecastd",
    // No `platforms:`: forecastd is a Linux daemon (libgps, sd-bus, inotify, timerfd), and SwiftPM has no Linux
    // minimum to declare; the Linux requirements are the ones scripts/deps installs.
    products: [
        .executable(name: "forecastd", targets: ["forecastd"]),
        .executable(name: "forecastctl", targets: ["forecastctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
    ],
    targets: [
        // MARK: C

        /// libgps, the gpsd client library, read through accessor functions (`shim.h`). Only `Location` imports it.
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        /// rtnetlink, a cancel-on-set timerfd and the suspended time, for the daemon's wake watch; header only.
        .systemLibrary(name: "CSystemEvents"),
        /// The libgps API version from `gps.h`, for the executables' `--version`; header only, links nothing.
        .systemLibrary(name: "CGPSVersion"),
        /// glibc's `malloc_trim`: the socket gives back what departed connections held; header only.
        .systemLibrary(name: "CHeap"),
        /// prctl's thread name, gettid and an eventfd, for the descriptor waiter; header only.
        .systemLibrary(name: "CWaiting"),

        // MARK: Languages

        /// The words in every language: gettext `.po` catalogues (po/, shipped as they are) read by a small
        /// parser, plural rules, placeholders, the language from the settings or the locale. Reads its files
        /// through FileStore's bounded reader (Foundation only besides).
        .target(name: "Localization", dependencies: ["FileStore"], resources: [.copy("po")], swiftSettings: strict),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization"], swiftSettings: strict),

        // MARK: Model

        /// Pure values: coordinates, places, conditions, forecasts, units, the report; the words people read
        /// (`Phrases`, looked up in Localization's catalogues). No I/O of its own.
        .target(name: "ForecastModel", dependencies: ["Localization"], swiftSettings: strict),
        .testTarget(name: "ForecastModelTests", dependencies: ["ForecastModel"], swiftSettings: strict),

        // MARK: Files

        /// Crash-safe file writes (temp + fsync + rename) for settings, state and status files; bounded reads of
        /// files anyone may have put in place (settings, catalogues); sizes as every refusal writes them.
        .target(name: "FileStore", swiftSettings: strict),
        .testTarget(name: "FileStoreTests", dependencies: ["FileStore", "TestSupport"], swiftSettings: strict),

        // MARK: Settings

        /// The TOML settings file: the settings table (every key once), discovery, decoding and validation
        /// with file:line errors, the documented file, and the one edit API forecastctl and the socket share.
        .target(
            name: "Settings",
            dependencies: [
                "ForecastModel", "FileStore", "Localization", "MQTTPayloads",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "SettingsTests", dependencies: ["Settings", "ForecastModel", "TestSupport"], swiftSettings: strict),

        // MARK: Cities as CSV

        /// Favourite cities exported to and imported from RFC 4180 CSV, with per-line reports.
        .target(
            name: "CitiesCSV",
            dependencies: [
                "Settings", "ForecastModel", "FileStore",
                .product(name: "CSV", package: "CSV.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CitiesCSVTests", dependencies: ["CitiesCSV", "Settings", "ForecastModel"], swiftSettings: strict),

        // MARK: History

        /// Favourite cities' readings and issued forecasts in SQLite (WAL), with versioned migrations.
        .target(
            name: "History",
            dependencies: [
                "ForecastModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HistoryTests",
            dependencies: [
                "History", "ForecastModel", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),

        // MARK: Gazetteer

        /// Offline place names: the GeoNames table and an exact nearest-place search.
        .target(
            name: "Gazetteer",
            dependencies: ["ForecastModel", "FileStore"],
            // GeoNames/ is the extract scripts/build-gazetteer.py builds gazetteer.bin from; not shipped.
            exclude: ["GeoNames"],
            resources: [.copy("Resources/gazetteer.bin")],
            swiftSettings: strict
        ),
        .testTarget(name: "GazetteerTests", dependencies: ["Gazetteer", "TestSupport"], swiftSettings: strict),

        // MARK: Location

        /// Where the machine is: gpsd (through libgps), the static file, IP geolocation, the pin, and the
        /// policy that picks one. IP lookups go through a Fetcher per service (Fetching) on the daemon's client.
        .target(
            name: "Location",
            dependencies: [
                "ForecastModel",
                "FileStore",
                "Fetching",
                "Waiting",
                "CGPS",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LocationTests",
            dependencies: [
                "Location", "ForecastModel", "Fetching", "TestSupport", "Waiting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        /// Positions from the Wi-Fi access points NetworkManager already knows (read on the system bus, no
        /// privileges), located by an Ichnaea-compatible service (beaconDB) through Location's
        /// WiFiGeolocationClient, asked by WiFiQueryRule: once per place, on NetworkManager's signals.
        .target(
            name: "WiFiLocation",
            dependencies: [
                "Location", "NetworkManager", "DBus", "ForecastModel", "FileStore", "Waiting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WiFiLocationTests",
            dependencies: [
                "WiFiLocation", "Location", "NetworkManager", "DBus", "ForecastModel", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        /// Positions from GeoClue 2 (one fix at a time, where the desktop runs its agent).
        .target(
            name: "GeoClueLocation",
            dependencies: [
                "Location", "GeoClue", "DBus", "ForecastModel", "Waiting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GeoClueLocationTests",
            dependencies: [
                "GeoClueLocation", "Location", "GeoClue", "DBus", "ForecastModel", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: HTTP

        /// The one way forecastd talks HTTP (`Fetcher`): a deadline for the whole exchange, the User-Agent,
        /// body caps, transport failures classified once, one status meaning, one `Retry-After` parser, one
        /// conditional GET; query URLs. Every provider, warning source and IP service fetches through it.
        .target(
            name: "Fetching",
            dependencies: [
                "ForecastModel", "FileStore", "Waiting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FetchingTests",
            dependencies: [
                "Fetching", "ForecastModel", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Network path

        /// Which interface carries traffic to the internet (the kernel's own choice, the route tables) and whether it
        /// is a tunnel: what decides that an IP geolocation answer is a VPN's exit, not a place.
        .target(name: "NetworkPath", dependencies: ["FileStore"], swiftSettings: strict),
        .testTarget(name: "NetworkPathTests", dependencies: ["NetworkPath", "TestSupport"], swiftSettings: strict),

        // MARK: Weather providers

        /// Weather services over HTTP, each mapped onto the model.
        .target(
            name: "WeatherProviders",
            dependencies: [
                "ForecastModel", "Fetching", "FileStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WeatherProvidersTests",
            dependencies: [
                "WeatherProviders", "Fetching", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Warnings

        /// Official weather warnings for a position (NWS, MET Norway, DWD through Bright Sky, ECCC,
        /// MeteoAlarm): decoders, geometry, matching, merging, and the sources over HTTP. Ships MeteoAlarm's
        /// region shapes and Eurostat's NUTS regions (Resources/*.jsonl, docs/warnings.md).
        .target(
            name: "Warnings",
            dependencies: [
                "ForecastModel", "Fetching", "FileStore", "Waiting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/meteoalarm-areas.jsonl"), .copy("Resources/nuts-regions.jsonl")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WarningsTests",
            dependencies: [
                "Warnings", "ForecastModel", "Fetching", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Rendering

        /// Turns a report into what readers see: JSON and the human summary.
        .target(name: "Rendering", dependencies: ["ForecastModel", "Localization"], swiftSettings: strict),
        .testTarget(
            name: "RenderingTests", dependencies: ["Rendering", "ForecastModel", "Localization"], swiftSettings: strict),

        // MARK: Control

        /// The socket protocol's types and a blocking client, shared by forecastctl and tests.
        .target(name: "Control", dependencies: ["ForecastModel"], swiftSettings: strict),
        .testTarget(name: "ControlTests", dependencies: ["Control"], swiftSettings: strict),

        // MARK: systemd

        /// The service manager's protocols, written directly: sd_notify(3) (readiness, status, reload,
        /// watchdog) and sd_listen_fds(3) (socket activation).
        .target(
            name: "Systemd",
            dependencies: [
                "Waiting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // MARK: The daemon

        /// The one state owner (`ForecastState`) and its clock-free parts: the position policy, the schedules,
        /// the cities, the report's problems, the published report and its JSON line, the saved state's value.
        .target(
            name: "DaemonState",
            dependencies: [
                "ForecastModel", "FileStore", "Settings", "Location", "WeatherProviders", "Control", "Rendering",
                "Localization", "Waiting", "NetworkPath", "MQTTPayloads",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DaemonStateTests",
            dependencies: [
                "DaemonState", "ForecastModel", "Location", "Settings", "WeatherProviders", "TestSupport", "NetworkPath",
                "MQTTPayloads",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        /// The daemon's services, each under the ServiceGroup and each feeding or following the state: location,
        /// forecast, warnings and air, notifications, history, status files, settings reload, saved state, wake
        /// watch, systemd.
        .target(
            name: "DaemonServices",
            dependencies: [
                "DaemonState", "ForecastModel", "FileStore", "Settings", "Location", "WeatherProviders", "Warnings",
                "Notifications", "History", "Systemd", "Rendering", "Control", "CSystemEvents", "Executors", "Waiting",
                "MQTT", "MQTTPayloads", "NetworkPath", "NetworkManager", "DBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DaemonServicesTests",
            dependencies: [
                "DaemonServices", "DaemonState", "TestSupport", "Settings", "Location", "ForecastModel",
                "WeatherProviders", "Notifications", "DesktopNotifications", "FileStore", "NetworkPath",
                "CSystemEvents", "NetworkManager", "DBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        /// The Unix socket server (protocol version 1, docs/protocol.md): answers from the published report on
        /// the event loop, watchers, and the requests that act, handed to the handlers the composition lends.
        .target(
            name: "ControlServer",
            dependencies: [
                "DaemonState", "Control", "Rendering", "Settings", "Systemd", "FileStore", "ForecastModel", "CHeap", "Waiting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ControlServerTests",
            dependencies: [
                "ControlServer", "DaemonState", "TestSupport", "Settings", "Control", "ForecastModel", "Rendering",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // MARK: D-Bus

        /// libsystemd's sd-bus, the D-Bus client library. Only `DBus` imports it.
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        /// A small, Sendable D-Bus client over sd-bus: typed values, method calls, signals as async sequences,
        /// each connection a source of Waiting's descriptor waiter (no thread of its own).
        .target(name: "DBus", dependencies: ["CSDBus", "Waiting"], swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport", "Waiting"], swiftSettings: strict),
        /// NetworkManager over the system bus, read without privileges: Wi-Fi devices, the access points of their
        /// scans, the active connections (VPNs among them), and the signals that say when these change.
        .target(name: "NetworkManager", dependencies: ["DBus"], swiftSettings: strict),
        .testTarget(
            name: "NetworkManagerTests", dependencies: ["NetworkManager", "DBus", "TestSupport"],
            swiftSettings: strict),
        /// GeoClue 2 over the system bus: one position from the desktop's location service, where its agent runs.
        .target(name: "GeoClue", dependencies: ["DBus"], swiftSettings: strict),
        .testTarget(name: "GeoClueTests", dependencies: ["GeoClue", "DBus", "TestSupport"], swiftSettings: strict),
        /// The freedesktop desktop notifications client (org.freedesktop.Notifications, spec 1.2).
        .target(name: "DesktopNotifications", dependencies: ["DBus", "Localization"], swiftSettings: strict),
        .testTarget(
            name: "DesktopNotificationsTests",
            dependencies: ["DesktopNotifications", "DBus", "Localization", "TestSupport"],
            swiftSettings: strict
        ),
        /// What to notify and when (warnings, rain soon, the morning summary, quiet hours), remembered in the
        /// state directory so nothing goes out twice, and the `Notifier` that sends it.
        .target(
            name: "Notifications",
            dependencies: [
                "ForecastModel", "Settings", "FileStore", "DesktopNotifications", "DBus", "Waiting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "NotificationsTests",
            dependencies: [
                "Notifications", "DesktopNotifications", "DBus", "ForecastModel", "Settings", "TestSupport", "Localization",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: MQTT

        /// libmosquitto, the Eclipse Mosquitto project's MQTT client library (Debian's libmosquitto-dev). Only
        /// `MQTT` imports it.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        /// An MQTT 5 client over libmosquitto whose socket is a source of the descriptor waiter (its descriptor,
        /// whether it wants to write, one step per readiness, the keep-alive as the deadline): no thread of
        /// libmosquitto's. No forecastd types.
        .target(name: "MQTT", dependencies: ["CMosquitto", "Waiting"], swiftSettings: strict),
        .testTarget(
            name: "MQTTTests", dependencies: ["MQTT", "MQTTPayloads", "ForecastModel", "TestSupport", "Waiting"],
            swiftSettings: strict),
        /// What forecastd says on MQTT, pure: the topics, the shared report (the report and the model values a
        /// follower renders its own from) and its bounded decoding, Home Assistant's discovery configs.
        .target(name: "MQTTPayloads", dependencies: ["ForecastModel", "FileStore"], swiftSettings: strict),
        .testTarget(
            name: "MQTTPayloadsTests",
            dependencies: ["MQTTPayloads", "ForecastModel", "Localization", "WeatherProviders", "TestSupport"],
            swiftSettings: strict),

        // MARK: Executors

        /// Swift concurrency's executors for the programs: NIO's event loops and the main thread instead of
        /// libdispatch, whose worker pool wakes the process every second for as long as it runs; and
        /// `EventLoopSleep`, a sleep whose cancellation takes its loop timer away (what Waiting's `Alarm` sleeps with).
        .target(
            name: "Executors",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ExecutorsTests",
            dependencies: ["Executors", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),

        // MARK: Waiting

        /// The daemon's one way to wait. `DescriptorWaiter`: one thread, `fd-waiter`, asleep in poll(2) on the
        /// descriptors a C library or the kernel reads itself (gpsd's socket through libgps, each sd-bus connection,
        /// inotify, rtnetlink, the clock-change timerfd), each a `WaitSource`. `Alarm`: the one timer (re-armable, and the one-shot
        /// `Alarm.sleep`), on NIO's event loop timers through Executors' `EventLoopSleep`. `Blocking`: one thread for
        /// the work that blocks (fsync, flock, NSS look-ups), so nothing blocks an event loop.
        .target(
            name: "Waiting",
            dependencies: [
                "CWaiting", "Executors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WaitingTests",
            dependencies: [
                "Waiting", "CWaiting", "Executors", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // MARK: Map picker

        /// `forecastctl pick`'s page: a server on 127.0.0.1 (SwiftNIO) that serves the map (Leaflet, shipped in
        /// Resources/page, never from a CDN), the gazetteer's places, name search and nearest place, and hands the
        /// choice to forecastctl; a one-time token, loopback Host and same Origin only, every input bounded.
        .target(
            name: "MapPicker",
            dependencies: [
                "ForecastModel", "Gazetteer", "Localization", "FileStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // README.md says where the page's Leaflet comes from; only page/ is shipped.
            exclude: ["Resources/README.md"],
            resources: [.copy("Resources/page")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MapPickerTests",
            dependencies: [
                "MapPicker", "Gazetteer", "ForecastModel", "Localization", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // MARK: Command lines

        /// forecastd's command line and the composition root: flags, logging, the concrete providers, sources
        /// and services wired together under one ServiceGroup, running.
        .target(
            name: "ForecastdCommand",
            dependencies: [
                "DaemonServices", "ControlServer", "DaemonState", "Settings", "Control", "Gazetteer", "CGPSVersion",
                "ForecastModel", "FileStore", "Location", "WeatherProviders", "Warnings", "Notifications",
                "DesktopNotifications", "Systemd", "Executors", "Fetching", "Waiting", "WiFiLocation", "GeoClueLocation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/forecastd",
            swiftSettings: strict
        ),
        /// forecastctl's commands: the user's command line.
        .target(
            name: "ForecastctlCommands",
            dependencies: [
                "Control", "CGPSVersion", "Settings", "Gazetteer", "Rendering", "ForecastModel", "FileStore", "CitiesCSV", "History",
                "WeatherProviders", "Fetching", "Localization", "MapPicker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/forecastctl",
            swiftSettings: strict
        ),

        // MARK: Executables

        /// forecastd, which is forecastctl too when started under that name: the release installs forecastctl
        /// as a link to it, so both share one copy of the Swift runtime, Foundation and ICU (scripts/release).
        .executableTarget(
            name: "forecastd",
            dependencies: ["ForecastdCommand", "ForecastctlCommands", "Executors"],
            path: "Sources/Programs/forecastd",
            // main.swift names the executors (`typealias DefaultExecutorFactory`); Swift 6.3 on Linux emits the
            // call that installs them only with availability checking off (it judges the hook unavailable on
            // every Linux runtime). This target is that one file.
            swiftSettings: strict + [.unsafeFlags(["-Xfrontend", "-disable-availability-checking"])]
        ),
        /// forecastctl on its own, for `swift run forecastctl` and the tests.
        .executableTarget(
            name: "forecastctl",
            dependencies: ["ForecastctlCommands"],
            path: "Sources/Programs/forecastctl",
            swiftSettings: strict
        ),

        // MARK: Tests that run the real programs

        /// Real peers for tests: a replaying HTTP server, gpsfake + gpsd, the daemon as a child process,
        /// a private D-Bus daemon with python-dbusmock services, and the recorded fixtures under Tests/Fixtures.
        .target(
            name: "TestSupport",
            dependencies: [
                "DBus", "Executors",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EndToEndTests",
            // The executables are dependencies so that `swift test` builds them before running.
            dependencies: [
                "TestSupport", "Control", "ForecastModel", "Rendering", "History", "DBus", "forecastd", "forecastctl",
            ],
            swiftSettings: strict
        ),
    ]
)
