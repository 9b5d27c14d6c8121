import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that a reader sees the old bytes or the new bytes, never a mix.
///
/// The bytes go to a temporary file in the same directory, are flushed to disk, and the temporary
/// file is renamed over the target (rename is atomic within a file system). A crash at any point
/// leaves the old file intact and at worst a stray `.NAME.tmp-*` file.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The exact mode and group a written file gets (the group: nil keeps the process's). When the
    /// group cannot be given, the file gets the mode without the group's bits.
    public struct Access: Sendable, Hashable {
        public var mode: mode_t
        public var group: gid_t?

        public init(mode: mode_t, group: gid_t? = nil) {
            self.mode = mode
            self.group = group
        }
    }

    /// Replaces `path` with `bytes`. `mode` applies to a new file; an existing file keeps its mode
    /// and, where this process may set them, its owner and group.
    ///
    /// With `access`, the file gets exactly that mode and group whatever it had: for files the daemon
    /// owns whose readers the daemon decides (the status file follows the socket's access).
    public static func write(
        _ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o644, access: Access? = nil
    ) throws(WriteError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let template = directory + "/." + url.lastPathComponent + ".tmp-XXXXXX"
        var templateBytes = Array(template.utf8CString)
        let fd = templateBytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw WriteError(description: "\(path): cannot create a temporary file in \(directory): \(lastError())") }
        let temporary = String(decoding: templateBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }

        var existing = stat()
        let exists = stat(path, &existing) == 0
        if let access {
            // The group first: fchown may clear set-id bits, and the mode is set after it. A group the
            // process may not give (not a member, or a syscall filter denying chown) leaves the file
            // with the process's group, which must then get no access: never more open than asked.
            var mode = access.mode
            if let group = access.group, fchown(fd, uid_t.max, group) != 0 { mode &= ~0o070 }
            fchmod(fd, mode)
        } else {
            fchmod(fd, exists ? existing.st_mode & 0o7777 : mode)
        }
        if access == nil, exists, existing.st_uid != getuid() || existing.st_gid != getgid() {
            // Only root may give a file away; for others this keeps the group where allowed.
            _ = fchown(fd, existing.st_uid, existing.st_gid)
        }

        let contiguous = Array(bytes)
        var offset = 0
        while offset < contiguous.count {
            let written = contiguous[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = lastError()
                close(fd)
                throw WriteError(description: "\(path): write failed: \(reason)")
            }
            offset += written
        }
        if fsync(fd) != 0 {
            let reason = lastError()
            close(fd)
            throw WriteError(description: "\(path): fsync failed: \(reason)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw WriteError(description: "\(path): rename failed: \(lastError())") }
        succeeded = true
        // Make the rename itself durable: flush the directory entry.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Creates a directory and its parents; new directories get `mode` (0700: runtime files are private).
    ///
    /// A directory that another ordinary user owns is refused: in a shared place like
    /// `/tmp/forecastd-<uid>` it could have been planted to read or redirect forecastd's files.
    public static func makeDirectory(_ path: String, mode: Int = 0o700) throws(WriteError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
        } catch {
            throw WriteError(description: "\(path): cannot create the directory: \(error.localizedDescription)")
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_uid != getuid(), info.st_uid != 0 {
            throw WriteError(description: "\(path): the directory belongs to another user (uid \(info.st_uid)); refusing to use it")
        }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
