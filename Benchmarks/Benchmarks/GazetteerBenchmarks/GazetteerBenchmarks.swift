import Benchmark
import ForecastModel
import Foundation
import Gazetteer

/// The repository's gazetteer.bin, or the file named by FORECASTD_GAZETTEER.
let dataURL: URL = {
    if let override = ProcessInfo.processInfo.environment[Gazetteer.pathVariable], !override.isEmpty {
        return URL(fileURLWithPath: override)
    }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // GazetteerBenchmarks
        .deletingLastPathComponent()  // Benchmarks/Benchmarks
        .deletingLastPathComponent()  // Benchmarks
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Gazetteer/Resources/gazetteer.bin")
}()

/// SplitMix64, so every run asks about the same points.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Points spread uniformly over the whole sphere (most of them at sea, like the reference's
/// benchmark would see from random input), the same on every run.
func randomPoints(_ count: Int, seed: UInt64) -> [Coordinate] {
    var generator = SeededGenerator(state: seed)
    return (0..<count).map { _ in
        let z = Double.random(in: -1...1, using: &generator)
        return Coordinate(latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &generator))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .instructions],
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    Benchmark("Gazetteer open (map the file, check the header)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try Gazetteer(contentsOf: dataURL))
        }
    }

    Benchmark("Gazetteer verify (checksum and every reference)", configuration: .init(maxIterations: 20)) {
        benchmark in
        let gazetteer = try Gazetteer(contentsOf: dataURL)
        benchmark.startMeasurement()
        try gazetteer.verify()
    }

    // One shared file and point set for the lookups; opening is measured above.
    guard let gazetteer = try? Gazetteer(contentsOf: dataURL) else {
        fatalError("cannot open \(dataURL.path); build it with scripts/build-gazetteer.py")
    }
    let points = randomPoints(4096, seed: 0xBE7C_4000)

    Benchmark("Nearest place, one lookup (random point, full Place)") { benchmark in
        var next = 0
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: points[next]))
            next = (next + 1) & 4095
        }
    }

    Benchmark("Nearest index, one lookup (search only, no strings)") { benchmark in
        var next = 0
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestIndex(to: points[next]))
            next = (next + 1) & 4095
        }
    }

    Benchmark("Nearest place, batch of 1000 lookups", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var next = 0
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: points[next]))
            next = (next + 1) & 4095
        }
    }
}
