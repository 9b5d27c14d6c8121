import FileStore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A small state value with a date, as the daemon's state files have.
struct Sample: VersionedState, Hashable {
    static let version = 2
    var version: Int = Self.version
    var name: String
    var at: Date
}

@Suite("Versioned JSON state files")
struct VersionedJSONFileTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "versioned-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func names(_ directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let sample = Sample(name: "Zürich", at: Date(timeIntervalSince1970: 1_795_852_800))

    @Test("a saved value reads back; a new file is 0600 in a directory made 0700")
    func roundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = VersionedJSONFile<Sample>(path: directory + "/new/state.json", dates: .secondsSince1970, maximumBytes: 1024)
        try file.save(sample)
        guard case .value(let read) = file.load(now: now) else { Issue.record("not read back"); return }
        #expect(read == sample)
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == #"{"at":1795852800,"name":"Zürich","version":2}"#)
        var info = stat()
        #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(directory + "/new", &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("ISO 8601 dates, pretty-printed with sorted keys")
    func iso8601() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = VersionedJSONFile<Sample>(
            path: directory + "/ip-location.json", dates: .iso8601, pretty: true, maximumBytes: 1024)
        try file.save(sample)
        #expect(
            try String(contentsOfFile: file.path, encoding: .utf8)
                == "{\n  \"at\" : \"2026-11-28T08:00:00Z\",\n  \"name\" : \"Zürich\",\n  \"version\" : 2\n}")
        guard case .value(let read) = file.load(now: now) else { Issue.record("not read back"); return }
        #expect(read == sample)
    }

    @Test("nothing at the path is missing, and nothing is set aside")
    func missing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = VersionedJSONFile<Sample>(path: directory + "/state.json", dates: .secondsSince1970, maximumBytes: 1024)
        guard case .missing = file.load(now: now) else { Issue.record("not missing"); return }
        #expect(try names(directory).isEmpty)
    }

    /// Writes `bytes` at the file's path, loads it, and returns what load said; the path must then be free.
    func unusable(
        _ write: (String) throws -> Void, maximumBytes: Int = 1024
    ) throws -> (reason: String, setAsideAs: String?, names: Set<String>) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = VersionedJSONFile<Sample>(
            path: directory + "/state.json", dates: .secondsSince1970, maximumBytes: maximumBytes)
        try write(file.path)
        guard case .unusable(let reason, let aside) = file.load(now: now) else {
            Issue.record("not refused")
            return ("", nil, [])
        }
        // The place is free again: the next save succeeds and reads back.
        try file.save(sample)
        guard case .value = file.load(now: now) else { Issue.record("not saved after setting aside"); return ("", nil, []) }
        return (reason, aside.map { URL(fileURLWithPath: $0).lastPathComponent }, try names(directory))
    }

    @Test("another version is set aside, named after the moment, and the reason names both versions")
    func otherVersion() throws {
        let result = try unusable { path in
            try Data(#"{"version":3,"name":"x","at":0,"newField":[1]}"#.utf8).write(to: URL(fileURLWithPath: path))
        }
        #expect(result.reason == "is of version 3; this forecastd reads version 2")
        #expect(result.setAsideAs == "state.json.corrupt-1800000000")
        #expect(result.names == ["state.json", "state.json.corrupt-1800000000"])
    }

    @Test("not JSON, and JSON of the right version that does not decode, are set aside")
    func undecodable() throws {
        let garbage = try unusable { try Data("{\"version\":2,\"na".utf8).write(to: URL(fileURLWithPath: $0)) }
        #expect(garbage.reason.hasPrefix("is not a Sample file"))
        #expect(garbage.setAsideAs == "state.json.corrupt-1800000000")
        let wrongField = try unusable { try Data(#"{"version":2,"name":5,"at":0}"#.utf8).write(to: URL(fileURLWithPath: $0)) }
        #expect(wrongField.reason.hasPrefix("cannot be decoded"))
        #expect(wrongField.setAsideAs == "state.json.corrupt-1800000000")
    }

    @Test("a 20 MiB file over a 16 MiB limit is set aside unread")
    func tooLarge() throws {
        let result = try unusable(
            { path in
                #expect(FileManager.default.createFile(atPath: path, contents: nil))
                #expect(truncate(path, 20 << 20) == 0)
            }, maximumBytes: 16 << 20)
        #expect(result.reason == "is larger than 16 MiB")
        #expect(result.setAsideAs == "state.json.corrupt-1800000000")
    }

    @Test("a directory in the file's place is set aside, so the state can be saved again")
    func directoryInPlace() throws {
        let result = try unusable { path in
            try FileManager.default.createDirectory(atPath: path + "/inner", withIntermediateDirectories: true)
        }
        #expect(result.reason == "is a directory")
        #expect(result.setAsideAs == "state.json.corrupt-1800000000")
    }

    @Test("setting aside keeps only the newest copies; removeLeftovers removes temporaries and old copies")
    func leftovers() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notifications.json"
        let file = VersionedJSONFile<Sample>(path: path, dates: .secondsSince1970, maximumBytes: 1024)
        for time in [1_700_000_000, 1_700_000_100, 1_700_000_200] {
            #expect(FileManager.default.createFile(atPath: path + ".corrupt-\(time)", contents: Data("x".utf8)))
        }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("nonsense".utf8)))
        guard case .unusable = file.load(now: now) else { Issue.record("not refused"); return }
        #expect(
            try names(directory)
                == ["notifications.json.corrupt-1700000100", "notifications.json.corrupt-1700000200",
                    "notifications.json.corrupt-1800000000"])
        for name in [".notifications.json.tmp-Ab12Cd", "notifications.json.corrupt-1600000000", ".state.json.tmp-Zz99Yy"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("x".utf8)))
        }
        #expect(
            Set(file.removeLeftovers())
                == [directory + "/.notifications.json.tmp-Ab12Cd", directory + "/notifications.json.corrupt-1600000000"])
        #expect(
            try names(directory)
                == ["notifications.json.corrupt-1700000100", "notifications.json.corrupt-1700000200",
                    "notifications.json.corrupt-1800000000", ".state.json.tmp-Zz99Yy"])
    }
}
