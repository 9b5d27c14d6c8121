import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Identifies a version of a file cheaply, to notice an edit without reading it: which file (device, inode),
/// its size, modification and change times, and, for a symbolic link, where it points. Catches in-place
/// writes, write-and-rename and re-pointed links. All missing files are equal.
public struct FileSignature: Hashable, Sendable {
    public private(set) var exists = false
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = 0
    var modified: Int = 0
    var modifiedNanoseconds: Int = 0
    var changed: Int = 0
    var changedNanoseconds: Int = 0
    var linkTarget: String?

    /// The signature of what is at `path` now (following links); a missing file's for nil or nothing there.
    public init(path: String?) {
        guard let path else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        exists = true
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
        changed = info.st_ctim.tv_sec
        changedNanoseconds = info.st_ctim.tv_nsec
        linkTarget = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }
}
