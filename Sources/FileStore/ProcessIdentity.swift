import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process as the kernel names it for as long as it lives: its id, and the time it started (clock ticks
/// after boot) on this boot. A file that records who wrote it (the status file) lets a reader ask whether
/// that writer still runs: an id alone could be another process's by then, the id and start time cannot.
public struct ProcessIdentity: Sendable, Hashable {
    public var pid: Int32
    /// Field 22 of `/proc/PID/stat`; nil where `/proc` cannot be read.
    public var start: UInt64?
    /// `/proc/sys/kernel/random/boot_id`; nil where it cannot be read.
    public var bootID: String?

    public init(pid: Int32, start: UInt64?, bootID: String?) {
        self.pid = pid
        self.start = start
        self.bootID = bootID
    }

    /// This process.
    public static func current() -> ProcessIdentity {
        let pid = getpid()
        return ProcessIdentity(pid: pid, start: startTime(of: pid), bootID: currentBootID())
    }

    /// Whether the process still runs: on this boot, its id names a live process that started when it did.
    /// Where `/proc` says nothing (not mounted), whether any process has the id (`kill(pid, 0)`).
    public var isRunning: Bool {
        guard pid > 0 else { return false }
        if let bootID, let now = Self.currentBootID(), bootID != now { return false }
        if let running = Self.startTime(of: pid) { return start == nil || running == start }
        // /proc works and has no such process; or it does not, and only the id can be asked after.
        if FileManager.default.fileExists(atPath: "/proc/self/stat") { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// The start time of process `pid` in clock ticks after boot, nil when there is no such process.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        // The command name (field 2) is in parentheses and may hold spaces and parentheses itself: the
        // fields are counted after its last ")". Field 3 is the first after it, so field 22 is the 20th.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 20 else { return nil }
        return UInt64(fields[19])
    }

    static func currentBootID() -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id") else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
