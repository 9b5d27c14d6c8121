// swift-tools-version: 6.1
//
// Benchmarks for forecastd, kept out of the main package so that building or testing forecastd
// never fetches or builds the benchmark tooling. Run them with Benchmarks/run.sh.
//
// The main package exports no library products, so the targets measured here are the main
// package's own sources, reached through the symlinks in Sources/.

import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "forecastd-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // MARK: The measured code (symlinks to ../Sources)

        // ForecastModel's words come from Localization's catalogues, which it reads through FileStore.
        .target(name: "FileStore", swiftSettings: strict),
        .target(name: "Localization", dependencies: ["FileStore"], resources: [.copy("po")], swiftSettings: strict),
        .target(name: "ForecastModel", dependencies: ["Localization"], swiftSettings: strict),
        .target(
            name: "Gazetteer",
            dependencies: ["ForecastModel"],
            // GeoNames/ is the extract scripts/build-gazetteer.py builds gazetteer.bin from; not shipped.
            exclude: ["GeoNames"],
            resources: [.copy("Resources/gazetteer.bin")],
            swiftSettings: strict
        ),

        // MARK: Benchmarks

        /// Gazetteer open, single nearest-place lookups and batches of 1000.
        .executableTarget(
            name: "GazetteerBenchmarks",
            dependencies: [
                "Gazetteer",
                "ForecastModel",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/GazetteerBenchmarks",
            swiftSettings: strict,
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),

        /// Prints the process's resident memory before and after opening the gazetteer and
        /// after lookups: what the gazetteer adds to the daemon's footprint.
        .executableTarget(
            name: "GazetteerMemory",
            dependencies: ["Gazetteer", "ForecastModel"],
            swiftSettings: strict
        ),
    ]
)
