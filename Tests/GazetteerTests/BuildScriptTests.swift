import Foundation
import TestSupport
import Testing

/// The repository's root, found from this file's real path (a development package may link to it).
private let repositoryURL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent()  // GazetteerTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

/// The GeoNames extract the script reads by default, kept in the repository beside the target it feeds.
private let geodataURL = repositoryURL.appendingPathComponent("Sources/Gazetteer/GeoNames")

private let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("Build script")
struct BuildScriptTests {
    @Test(
        "scripts/build-gazetteer.py rebuilds the shipped file byte for byte",
        .enabled(if: python != nil, "needs python3"),
        .timeLimit(.minutes(2))
    )
    func reproducible() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("rebuilt.bin")
        // Seconds of waiting for python: off the cooperative pool (``onOwnThread(_:)``).
        let (status, message) = try await onOwnThread { () throws -> (Int32, String) in
            try Self.runScript(output: output)
        }
        #expect(status == 0, "\(message)")
        let rebuilt = try Data(contentsOf: output)
        let shipped = try Data(contentsOf: shippedDataURL)
        #expect(rebuilt.count == shipped.count)
        #expect(rebuilt == shipped, "the shipped gazetteer.bin is not what the script builds from Sources/Gazetteer/GeoNames")
    }

    /// Runs scripts/build-gazetteer.py into `output`; returns its exit status and what it said on stderr.
    static func runScript(output: URL) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python!)
        process.arguments = [
            repositoryURL.appendingPathComponent("scripts/build-gazetteer.py").path, geodataURL.path, "-o", output.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }
}
