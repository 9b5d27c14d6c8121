import FileStore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The settings reloader and the static location file notice edits by the file's signature alone.
@Suite("File signatures")
struct FileSignatureTests {
    @Test("an in-place write of the same size, a write-and-rename and a re-pointed link each change it; a look alone does not")
    func edits() throws {
        let directory = NSTemporaryDirectory() + "signature-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/forecastd.toml"
        let missing = FileSignature(path: path)
        #expect(!missing.exists)
        #expect(missing == FileSignature(path: nil))

        try Data("units = \"metric\"\n".utf8).write(to: URL(fileURLWithPath: path))
        let first = FileSignature(path: path)
        #expect(first.exists && first != missing)
        _ = try String(contentsOfFile: path, encoding: .utf8)
        #expect(FileSignature(path: path) == first)

        // Same size, written in place: only the times tell (set apart by a whole second, whatever the file system's resolution).
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let touched = FileSignature(path: path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("units = \"imperi\"\n".utf8))
        try handle.close()
        let inPlace = FileSignature(path: path)
        #expect(inPlace != touched)

        // Written beside it and renamed over it: another inode.
        try Data("units = \"metric\"\n".utf8).write(to: URL(fileURLWithPath: directory + "/new"))
        #expect(rename(directory + "/new", path) == 0)
        #expect(FileSignature(path: path) != inPlace)

        // A link re-pointed to another file with the same bytes.
        let link = directory + "/link.toml"
        try FileManager.default.copyItem(atPath: path, toPath: directory + "/other.toml")
        #expect(symlink(path, link) == 0)
        let linked = FileSignature(path: link)
        #expect(unlink(link) == 0 && symlink(directory + "/other.toml", link) == 0)
        #expect(FileSignature(path: link) != linked)
    }
}
