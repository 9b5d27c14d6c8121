import Foundation
import Gazetteer

/// The gazetteer.bin that ships in the repository, found from this file's path.
let shippedDataURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // GazetteerTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()
    .appendingPathComponent("Sources/Gazetteer/Resources/gazetteer.bin")

func openShipped() throws -> Gazetteer {
    try Gazetteer(contentsOf: shippedDataURL)
}

/// SplitMix64: a small seeded generator, so every run checks the same points.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("GazetteerTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `data` to a file named `name` in this directory and returns its URL.
    func write(_ data: Data, named name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }
}
