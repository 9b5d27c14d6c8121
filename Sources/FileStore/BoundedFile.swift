import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file that anyone may have put at a path (the settings file, a translation catalogue): opened
/// without blocking, a regular file only, and never more than a given number of bytes.
///
/// A FIFO, a device or a socket at the path is refused at once instead of waiting for a writer forever or
/// reading without end; a file larger than the limit is refused before it is read, and read no further than
/// one byte past the limit should it grow meanwhile. Each refusal says what the path holds, so the caller's
/// message can name it (`is a FIFO`, `is a symbolic link loop`).
public enum BoundedFile {
    /// What a path holds when it is not a regular file.
    public enum Kind: String, Sendable, Hashable, CustomStringConvertible {
        case directory = "a directory"
        case fifo = "a FIFO"
        case socket = "a socket"
        case device = "a device"

        /// `nil` for a regular file.
        public init?(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: return nil
            case S_IFDIR: self = .directory
            case S_IFIFO: self = .fifo
            case S_IFSOCK: self = .socket
            default: self = .device
            }
        }

        public var description: String { rawValue }
    }

    /// Why a file was not read.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing at the path (ENOENT).
        case missing
        /// The path is a symbolic link that leads back to itself (ELOOP).
        case symbolicLinkLoop
        /// The path holds something other than a regular file.
        case notARegularFile(Kind)
        /// The file is larger than the limit (`limit` bytes).
        case tooLarge(limit: Int)
        /// It could not be opened or read: the system's reason.
        case unreadable(String)

        /// The failure as the end of a sentence that starts with the path: `is a FIFO`.
        public var description: String {
            switch self {
            case .missing: "no such file"
            case .symbolicLinkLoop: "is a symbolic link loop (too many levels of symbolic links)"
            case .notARegularFile(let kind): "is \(kind)"
            case .tooLarge(let limit): "is larger than \(ByteCount(limit))"
            case .unreadable(let reason): "cannot be read: \(reason)"
            }
        }
    }

    /// The bytes of the regular file at `path`, at most `maximumBytes` of them.
    public static func read(_ path: String, maximumBytes: Int) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno: errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        if let kind = Kind(mode: info.st_mode) { throw .notARegularFile(kind) }
        guard info.st_size <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        let data: Data
        do {
            // One byte more than allowed, in case the file grew since fstat.
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw .unreadable("\(error)")
        }
        guard data.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        return data
    }

    /// What is at `path` when it cannot be opened or looked at: missing, a link loop, or the system's reason.
    public static func failure(errno code: Int32) -> Failure {
        switch code {
        case ENOENT: .missing
        case ELOOP: .symbolicLinkLoop
        default: .unreadable(String(cString: strerror(code)))
        }
    }
}
