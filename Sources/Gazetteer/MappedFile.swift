#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A whole file mapped read-only into memory, unmapped when the last reference goes.
///
/// Mapping instead of reading means opening costs no copy and pages count towards the
/// process's resident memory only once a lookup touches them.
final class MappedFile: @unchecked Sendable {
    // Unchecked: the mapping is PROT_READ and never changes after init, so any thread may read it.

    /// The mapped bytes; valid until this object is released.
    let bytes: UnsafeRawBufferPointer
    let path: String

    init(path: String) throws(GazetteerError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: Self.systemMessage())
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .cannotOpen(path: path, reason: Self.systemMessage())
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .invalidFile(path: path, problem: "it is not a regular file")
        }
        let size = Int(status.st_size)
        guard size > 0 else {
            throw .invalidFile(path: path, problem: "the file is empty")
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
            address != UnsafeMutableRawPointer(bitPattern: -1)
        else {
            throw .cannotOpen(path: path, reason: "mmap failed: \(Self.systemMessage())")
        }
        // A nearest-place search reads a few scattered pages; read-ahead would only add to the
        // resident size. Advice is a hint, so its result does not matter.
        _ = madvise(address, size, MADV_RANDOM)
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        if let base = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        }
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
