import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Removes what interrupted writes leave behind, once at start: temporary files of atomic writes,
/// sockets bound by a process that is gone, and all but the newest copies of files set aside as
/// unreadable. Each function returns the paths it removed, so the caller can say so.
public enum Leftovers {
    /// How many copies of a file set aside as unreadable (`NAME.corrupt-<seconds>`) are kept.
    public static let keptSetAsideCopies = 3

    /// Removes the temporary files of ``AtomicFile/write(_:to:mode:access:)`` for `path`
    /// (`.NAME.tmp-*` beside it). Only for files no other process writes (the daemon's state and
    /// status files, not the settings file that `forecastctl` edits), at a moment none is written.
    @discardableResult
    public static func removeTemporaries(of path: String) -> [String] {
        let (directory, name) = split(path)
        return remove(in: directory) { $0.hasPrefix("." + name + ".tmp-") }
    }

    /// Keeps the newest `keep` copies of `path` set aside as unreadable (`NAME.corrupt-<seconds>`)
    /// and removes the older ones: a file corrupt at every start must not fill the disk.
    @discardableResult
    public static func pruneSetAside(of path: String, keep: Int = keptSetAsideCopies) -> [String] {
        let (directory, name) = split(path)
        let prefix = name + ".corrupt-"
        let copies = entries(of: directory).compactMap { entry -> (name: String, time: Int)? in
            guard entry.hasPrefix(prefix), let time = Int(entry.dropFirst(prefix.count)) else { return nil }
            return (entry, time)
        }
        let old = copies.sorted { ($0.time, $0.name) > ($1.time, $1.name) }.dropFirst(max(keep, 0))
        let names = Set(old.map(\.name))
        return remove(in: directory) { names.contains($0) }
    }

    /// Removes the files `PREFIX<pid>` in `directory` whose process no longer runs (a socket bound
    /// under a temporary name by a daemon killed before it renamed it).
    @discardableResult
    public static func removeOrphans(prefix: String, in directory: String) -> [String] {
        remove(in: directory) { entry in
            guard entry.hasPrefix(prefix), let pid = pid_t(entry.dropFirst(prefix.count)), pid > 0 else { return false }
            return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, url.lastPathComponent)
    }

    private static func entries(of directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    private static func remove(in directory: String, where matches: (String) -> Bool) -> [String] {
        entries(of: directory).filter(matches).map { directory + "/" + $0 }.filter { unlink($0) == 0 }
    }
}
