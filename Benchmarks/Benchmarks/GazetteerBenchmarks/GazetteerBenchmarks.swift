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

/// Walks round a list of queries across measured iterations.
final class QueryCursor: @unchecked Sendable {
    // Unchecked: the harness runs one benchmark at a time on one thread.
    private let queries: [String]
    private var next = 0

    init(_ queries: [String]) {
        self.queries = queries
    }

    func advance() -> String {
        let query = queries[next]
        next = next + 1 == queries.count ? 0 : next + 1
        return query
    }
}

/// What people type into `forecastctl pin` and `cities add`: plain, accented and unaccented,
/// qualified, partial, ambiguous and unknown names.
let typedNames = [
    "Paris", "Paris, FR", "Paris, Texas", "Paris, TX", "São Paulo", "Sao Paulo", "Hamilton", "London, UK",
    "Madrid", "Zurich", "Malmo", "Frankfurt", "New York City", "Saint-Ouen", "Oulu", "Atlantisville",
]

/// Walks round a list of points across measured iterations, so that each one-lookup sample asks
/// about the next point rather than the same one again.
final class PointCursor: @unchecked Sendable {
    // Unchecked: the harness runs one benchmark at a time on one thread.
    private let points: [Coordinate]
    private var next = 0

    init(_ points: [Coordinate]) {
        self.points = points
    }

    func advance() -> Coordinate {
        let point = points[next]
        next = next + 1 == points.count ? 0 : next + 1
        return point
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .instructions],
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    // The floor under the one-lookup figures: what the harness itself costs per measured iteration
    // (its clock reads and bookkeeping, including the mallocs counted in every one-lookup row).
    Benchmark("Harness overhead (empty iteration)") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(index)
        }
    }

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
    // Where a receiver usually is: within a few kilometres of a populated place.
    var generator = SeededGenerator(state: 0xBE7C_4001)
    let nearPlaces = (0..<4096).map { _ in
        let place = gazetteer.coordinate(at: Int.random(in: 0..<gazetteer.count, using: &generator))
        return Coordinate(
            latitude: max(-90, min(90, place.latitude + Double.random(in: -0.05...0.05, using: &generator))),
            longitude: max(-180, min(180, place.longitude + Double.random(in: -0.05...0.05, using: &generator))))
    }

    // One lookup per sample, through 4096 different points. Only clocks are read around each sample:
    // the CPU-time metric makes a system call per sample, which leaves the caches and TLB colder
    // than a lookup would find them. Allocations are counted in the batches below instead.
    let oneLookup = Benchmark.Configuration(metrics: [.wallClock, .throughput], maxDuration: .seconds(3))

    let randomCursor = PointCursor(points)
    Benchmark("Nearest place, one lookup (random point, full Place)", configuration: oneLookup) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: randomCursor.advance()))
        }
    }

    let nearCursor = PointCursor(nearPlaces)
    Benchmark("Nearest place, one lookup (near a populated place, full Place)", configuration: oneLookup) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: nearCursor.advance()))
        }
    }

    let indexCursor = PointCursor(points)
    Benchmark("Nearest index, one lookup (random point, search only)", configuration: oneLookup) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestIndex(to: indexCursor.advance()))
        }
    }

    // 1000 lookups per sample, moving on through the 4096 points from one sample to the next;
    // figures are per lookup.
    let batchIndexCursor = PointCursor(points)
    Benchmark(
        "Nearest index, batch of 1000 lookups (random points, search only)",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestIndex(to: batchIndexCursor.advance()))
        }
    }

    let batchCursor = PointCursor(points)
    Benchmark("Nearest place, batch of 1000 lookups (random points)", configuration: .init(scalingFactor: .kilo)) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: batchCursor.advance()))
        }
    }

    // Name search: one query per sample, walking through `typedNames`.
    let oneQuery = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(3))

    let searchCursor = QueryCursor(typedNames)
    Benchmark("Name search, one query (16 typed names in turn, up to 10 results)", configuration: oneQuery) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.search(searchCursor.advance()))
        }
    }

    Benchmark("Name search, one query (\"Paris\", 10 results)", configuration: oneQuery) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.search("Paris"))
        }
    }

    Benchmark("Name search, one query (\"Paris, TX\", qualified)", configuration: oneQuery) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.search("Paris, TX"))
        }
    }

    Benchmark("Name search, one query (\"S\", widest prefix)", configuration: oneQuery) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.search("S"))
        }
    }

    let resolveCursor = QueryCursor(typedNames)
    Benchmark("Name resolve, one query (16 typed names in turn)", configuration: oneQuery) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.resolve(resolveCursor.advance()))
        }
    }

    // The name a person would use: the nearest search plus the search for covering cities.
    let peopleNearCursor = PointCursor(nearPlaces)
    Benchmark("Place for people (.city), one lookup (near a populated place)", configuration: oneLookup) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.placeForPeople(at: peopleNearCursor.advance(), rule: .city))
        }
    }

    let peopleRandomCursor = PointCursor(points)
    Benchmark("Place for people (.city), one lookup (random point)", configuration: oneLookup) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.placeForPeople(at: peopleRandomCursor.advance(), rule: .city))
        }
    }

    let batchNearCursor = PointCursor(nearPlaces)
    Benchmark(
        "Nearest place, batch of 1000 lookups (near populated places)",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(gazetteer.nearestPlace(to: batchNearCursor.advance()))
        }
    }
}
