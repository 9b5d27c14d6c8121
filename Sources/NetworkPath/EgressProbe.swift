import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the kernel which interface a packet to an address would leave by, policy routing included: a UDP socket is
/// connected to the address (which sends nothing: UDP's connect only chooses the route and the source address), the
/// source address the kernel chose is read back, and the interface that holds it is looked up.
///
/// The route tables in `/proc` show only the main table for IPv4; WireGuard's usual full tunnel (`wg-quick` with
/// `AllowedIPs = 0.0.0.0/0`, and NetworkManager's WireGuard connections) leaves the main table's default route in
/// place and sends everything through a table of its own by a rule, which only this question sees.
public enum EgressProbe {
    public enum Answer: Sendable, Hashable {
        case interface(String)
        /// The kernel has no route there (ENETUNREACH): no way out for that family.
        case noRoute
        /// The question could not be asked (sockets of that family refused to this process); the reason.
        case unavailable(String)
    }

    /// The interface a packet to `address` (4 or 16 bytes, network order) would leave by.
    public static func interface(toward address: [UInt8]) -> Answer {
        let family = address.count == 4 ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .unavailable("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let connected: Int32
        if family == AF_INET {
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = UInt16(9).bigEndian
            withUnsafeMutableBytes(of: &target.sin_addr) { $0.copyBytes(from: address) }
            connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var target = sockaddr_in6()
            target.sin6_family = sa_family_t(AF_INET6)
            target.sin6_port = UInt16(9).bigEndian
            withUnsafeMutableBytes(of: &target.sin6_addr) { $0.copyBytes(from: address) }
            connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        if connected != 0 {
            switch errno {
            case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return .noRoute
            default: return .unavailable("connect: \(String(cString: strerror(errno)))")
            }
        }
        guard let source = sourceAddress(of: descriptor, family: family) else {
            return .unavailable("getsockname: \(String(cString: strerror(errno)))")
        }
        guard let name = interface(holding: source, family: family) else {
            return .unavailable("no interface holds the source address the kernel chose")
        }
        return .interface(name)
    }

    private static func sourceAddress(of descriptor: Int32, family: Int32) -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: &storage) { bytes in
            family == AF_INET
                ? Array(bytes[MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!...].prefix(4))
                : Array(bytes[MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!...].prefix(16))
        }
    }

    /// The name of the interface that has `address`.
    private static func interface(holding address: [UInt8], family: Int32) -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let socketAddress = current.pointee.ifa_addr, Int32(socketAddress.pointee.sa_family) == family,
                let name = current.pointee.ifa_name
            else { continue }
            let held: [UInt8] =
                family == AF_INET
                ? socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
                : socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
            if held == address { return String(cString: name) }
        }
        return nil
    }
}
