import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking stream socket connected to the Unix socket at `path` (a test's raw client of the daemon's socket);
/// the caller closes it.
///
/// `connect` waits while the server's accept backlog is full, so call it off the event loops (`onOwnThread`):
/// the server under test accepts on a loop, perhaps the very one the calling task runs on.
public func connectedUnixSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        close(fd)
        throw TestFailure("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw TestFailure("connect to \(path) failed: \(reason)")
    }
    return fd
}
