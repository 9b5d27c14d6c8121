// swift-tools-version: 6.1
//
// libFuzzer targets for forecastd's parsers of untrusted input: the settings file, the translation catalogues
// (with their Plural-Forms), socket requests, every weather provider's answer, every warning feed, the Wi-Fi
// geolocation service's answer and the report a follower receives on MQTT. Built and run by scripts/fuzz, never
// by `swift build` of the main package (libFuzzer supplies `main`, so these executables link only with
// -sanitize=fuzzer).
//
// The main package exports no library products, so the code under test is the main package's own sources,
// reached through symlinks in Sources/: whole modules where they have no network code (Localization,
// ForecastModel, FileStore, Settings, Control, MQTTPayloads), and the decoder files alone of WeatherProviders,
// Warnings and Location, which would otherwise drag in AsyncHTTPClient, SwiftNIO and libgps.

import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// A fuzz target: one file defining `LLVMFuzzerTestOneInput` and `<Target>_main` (see FuzzSupport), parsed
/// as a library (no top-level code).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + ["FuzzSupport"],
        path: "Targets/\(name)",
        swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]
    )
}

let package = Package(
    name: "forecastd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0")
    ],
    targets: [
        // MARK: The code under test (symlinks to ../../Sources)

        .target(name: "Localization", dependencies: ["FileStore"], resources: [.copy("po")], swiftSettings: strict),
        .target(name: "ForecastModel", dependencies: ["Localization"], swiftSettings: strict),
        .target(name: "FileStore", swiftSettings: strict),
        .target(
            name: "Settings",
            dependencies: [
                "ForecastModel", "FileStore", "Localization", "MQTTPayloads", .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strict
        ),
        .target(name: "Control", dependencies: ["ForecastModel"], swiftSettings: strict),
        .target(name: "ProviderDecoders", dependencies: ["ForecastModel"], swiftSettings: strict),
        .target(name: "WarningDecoders", dependencies: ["ForecastModel"], swiftSettings: strict),
        .target(name: "MQTTPayloads", dependencies: ["ForecastModel", "FileStore"], swiftSettings: strict),
        .target(name: "LocationDecoders", dependencies: ["ForecastModel"], swiftSettings: strict),

        // MARK: Fuzz targets

        .target(name: "FuzzSupport", swiftSettings: strict),
        .target(name: "WarningFuzzing", dependencies: ["WarningDecoders", "ForecastModel"], swiftSettings: strict),

        fuzzTarget("FuzzSettings", ["Settings"]),
        fuzzTarget("FuzzCatalogue", ["Localization"]),
        fuzzTarget("FuzzControlRequest", ["Control"]),
        fuzzTarget("FuzzOpenMeteo", ["ProviderDecoders", "ForecastModel"]),
        fuzzTarget("FuzzMetNorway", ["ProviderDecoders", "ForecastModel"]),
        fuzzTarget("FuzzOpenWeatherMap", ["ProviderDecoders", "ForecastModel"]),
        fuzzTarget("FuzzAirQuality", ["ProviderDecoders", "ForecastModel"]),
        fuzzTarget("FuzzNWS", ["WarningFuzzing", "WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzMetAlerts", ["WarningFuzzing", "WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzMeteoAlarm", ["WarningFuzzing", "WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzBrightSky", ["WarningFuzzing", "WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzECCC", ["WarningFuzzing", "WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzGeometry", ["WarningDecoders", "ForecastModel"]),
        fuzzTarget("FuzzSharedReport", ["MQTTPayloads", "ForecastModel"]),
        fuzzTarget("FuzzWiFiAnswer", ["LocationDecoders", "ForecastModel"]),
    ]
)
