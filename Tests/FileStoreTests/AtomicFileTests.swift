import FileStore
import Foundation
import TestSupport
import Testing

@Suite("Atomic file writes")
struct AtomicFileTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a reader sees the old or the new content, never a mix, while a writer replaces the file")
    func neverPartial() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/report.json"
        let contents = (0..<2).map { String(repeating: $0 == 0 ? "a" : "b", count: 256 * 1024) }
        try AtomicFile.write(Array(contents[0].utf8), to: path)

        // Reader and writer each on a thread of their own: 400 reads of 256 KiB and 200 writes of two fsyncs each
        // would otherwise hold both of the cooperative pool's threads, and every other test's awaits, for seconds.
        async let reader = onOwnThread { () throws -> Set<String> in
            var seen = Set<String>()
            for _ in 0..<400 {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                seen.insert(text.count == contents[0].count && (text == contents[0] || text == contents[1]) ? "whole" : "mixed")
            }
            return seen
        }
        async let writer: Void = onOwnThread {
            for round in 0..<200 {
                try AtomicFile.write(Array(contents[round % 2].utf8), to: path)
            }
        }
        try await writer
        let seen = try await reader
        #expect(seen == ["whole"])
        // No temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.json"])
    }

    @Test("an existing file keeps its mode; a new one gets the asked mode")
    func modes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/file"
        try AtomicFile.write(Array("one".utf8), to: path, mode: 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        chmod(path, 0o640)
        try AtomicFile.write(Array("two".utf8), to: path, mode: 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
    }

    @Test("a write into a missing directory fails with the path in the message and changes nothing")
    func missingDirectory() {
        #expect {
            try AtomicFile.write(Array("x".utf8), to: "/nonexistent-dir-forecastd/report.json")
        } throws: { error in
            "\(error)".contains("/nonexistent-dir-forecastd/report.json")
        }
    }
}

@Suite("Atomic file writes with a given access")
struct AtomicFileAccessTests {
    @Test("an exact access replaces the mode of the file already there, and sets the group")
    func exactAccess() throws {
        let directory = NSTemporaryDirectory() + "atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/report.json"
        try AtomicFile.write(Array("one".utf8), to: path, mode: 0o644)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o644)
        try AtomicFile.write(Array("two".utf8), to: path, access: AtomicFile.Access(mode: 0o600))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        try AtomicFile.write(Array("three".utf8), to: path, access: AtomicFile.Access(mode: 0o640, group: getgid()))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value == getgid())
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "three")
    }
}
