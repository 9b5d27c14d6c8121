/// A kernel routing table as `/proc/net/route` (IPv4, the main table) and `/proc/net/ipv6_route` (IPv6, every
/// table) list it, and the route it picks for an address. Pure: the reader hands it the files' text.
public struct RouteTable: Sendable, Hashable {
    public enum Family: String, Sendable, Hashable, CaseIterable {
        case ipv4 = "IPv4"
        case ipv6 = "IPv6"

        var addressBytes: Int { self == .ipv4 ? 4 : 16 }
    }

    /// One route: where to (a prefix), out of which interface, at which cost.
    public struct Route: Sendable, Hashable {
        public var family: Family
        public var interface: String
        /// The prefix's address, in network order (4 or 16 bytes).
        public var destination: [UInt8]
        public var prefixLength: Int
        public var metric: UInt32

        public init(family: Family, interface: String, destination: [UInt8], prefixLength: Int, metric: UInt32) {
            self.family = family
            self.interface = interface
            self.destination = destination
            self.prefixLength = prefixLength
            self.metric = metric
        }

        /// The default route (`0.0.0.0/0`, `::/0`).
        public var isDefault: Bool { prefixLength == 0 }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == destination.count else { return false }
            var remaining = prefixLength
            for (byte, prefixByte) in zip(address, destination) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard byte & mask == prefixByte & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// The routes that carry traffic: up, and neither a rejection (`unreachable`, `prohibit`, the `::/0` on `lo`
    /// that the kernel lists when IPv6 has no default) nor a local address of this machine.
    public var routes: [Route]

    public init(routes: [Route]) {
        self.routes = routes
    }

    /// The kernel's route flags the tables use (`linux/route.h`, `linux/ipv6_route.h`).
    static let routeUp: UInt32 = 0x0001
    static let routeReject: UInt32 = 0x0200
    static let routeLocal: UInt32 = 0x8000_0000
    /// How many routes are read: a laptop has a dozen; a table longer than this is a router's, and the probe decides.
    public static let maxRoutes = 4096

    /// The route the table picks for `address`: the longest prefix that holds it, then the lowest metric. OpenVPN's
    /// `redirect-gateway def1` (`0.0.0.0/1` and `128.0.0.0/1` through the tunnel, the default left in place) is
    /// picked as the kernel picks it. Nil when no route holds the address.
    public func route(to address: [UInt8]) -> Route? {
        routes.filter { $0.contains(address) }.min { better, worse in
            better.prefixLength != worse.prefixLength
                ? better.prefixLength > worse.prefixLength : better.metric < worse.metric
        }
    }

    // MARK: Reading the tables' text

    /// `/proc/net/route`: a heading, then one line a route of tab-separated columns `Iface Destination Gateway
    /// Flags RefCnt Use Metric Mask MTU Window IRTT`, addresses as the hexadecimal of the 32-bit value in memory.
    /// Lines that cannot be read are left out.
    public static func ipv4(_ text: String) -> RouteTable {
        var routes: [Route] = []
        for line in text.split(separator: "\n").dropFirst().prefix(maxRoutes) {
            let columns = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard columns.count >= 8, let destination = UInt32(columns[1], radix: 16),
                let flags = UInt32(columns[3], radix: 16), let metric = UInt32(columns[6]),
                let mask = UInt32(columns[7], radix: 16)
            else { continue }
            guard flags & routeUp != 0, flags & routeReject == 0 else { continue }
            // The kernel prints the network-order value as the machine's integer: its bytes in memory are the
            // address, whichever the machine's byte order.
            let maskBytes = withUnsafeBytes(of: mask) { Array($0) }
            guard let prefix = prefixLength(maskBytes) else { continue }
            routes.append(
                Route(
                    family: .ipv4, interface: String(columns[0]),
                    destination: withUnsafeBytes(of: destination) { Array($0) }, prefixLength: prefix, metric: metric))
        }
        return RouteTable(routes: routes)
    }

    /// `/proc/net/ipv6_route`: one line a route of space-separated hexadecimal columns `destination prefix-length
    /// source source-length next-hop metric refcount use flags interface`. Every table is listed, the local one
    /// included; rejections and local addresses are left out.
    public static func ipv6(_ text: String) -> RouteTable {
        var routes: [Route] = []
        for line in text.split(separator: "\n").prefix(maxRoutes) {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 10, let destination = hexBytes(columns[0]), destination.count == 16,
                let prefix = Int(columns[1], radix: 16), (0...128).contains(prefix),
                let metric = UInt32(columns[5], radix: 16), let flags = UInt32(columns[8], radix: 16)
            else { continue }
            guard flags & routeUp != 0, flags & routeReject == 0, flags & routeLocal == 0 else { continue }
            routes.append(
                Route(
                    family: .ipv6, interface: String(columns[9]), destination: destination, prefixLength: prefix,
                    metric: metric))
        }
        return RouteTable(routes: routes)
    }

    /// The length of a contiguous network mask; nil for one with holes.
    private static func prefixLength(_ mask: [UInt8]) -> Int? {
        var length = 0
        var ended = false
        for byte in mask {
            for bit in (0..<8).reversed() {
                if byte & (1 << bit) != 0 {
                    if ended { return nil }
                    length += 1
                } else {
                    ended = true
                }
            }
        }
        return length
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
