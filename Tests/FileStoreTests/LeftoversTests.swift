import FileStore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Leftovers of interrupted writes")
struct LeftoversTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "leftovers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func touch(_ path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
    }

    func names(_ directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    @Test("temporary files of a file's atomic writes are removed; the file and others' temporaries are not")
    func temporaries() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["state.json", ".state.json.tmp-a1B2c3", ".state.json.tmp-zzzzzz", ".forecastd.toml.tmp-q1w2e3", "state.json.bak"] {
            touch(directory + "/" + name)
        }
        let removed = Leftovers.removeTemporaries(of: directory + "/state.json")
        #expect(Set(removed) == [directory + "/.state.json.tmp-a1B2c3", directory + "/.state.json.tmp-zzzzzz"])
        #expect(try names(directory) == ["state.json", ".forecastd.toml.tmp-q1w2e3", "state.json.bak"])
    }

    @Test("of the copies set aside as unreadable, the newest three are kept")
    func setAside() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let times = [1_700_000_000, 1_700_000_500, 1_600_000_000, 1_800_000_000, 1_750_000_000]
        for time in times { touch(directory + "/state.json.corrupt-\(time)") }
        touch(directory + "/state.json.corrupt-notatime")
        touch(directory + "/state.json")
        let removed = Leftovers.pruneSetAside(of: directory + "/state.json")
        #expect(removed.count == 2)
        #expect(
            try names(directory) == [
                "state.json", "state.json.corrupt-notatime", "state.json.corrupt-1800000000",
                "state.json.corrupt-1750000000", "state.json.corrupt-1700000500",
            ])
    }

    @Test("a socket bound under its temporary name is removed when its process is gone, kept while it runs")
    func orphans() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A process that ran and was reaped: its pid is free (pids are not reused this quickly).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let gone = child.processIdentifier
        let alive = getppid()
        for name in [".forecastd.sock.\(gone)", ".forecastd.sock.\(alive)", ".forecastd.sock.\(getpid())", "forecastd.sock"] {
            touch(directory + "/" + name)
        }
        let removed = Leftovers.removeOrphans(prefix: ".forecastd.sock.", in: directory)
        #expect(removed == [directory + "/.forecastd.sock.\(gone)"])
        #expect(try names(directory) == [".forecastd.sock.\(alive)", ".forecastd.sock.\(getpid())", "forecastd.sock"])
    }
}
