import FileStore
import Foundation

/// The way traffic to the internet leaves this machine, for one address family.
public struct Egress: Sendable, Hashable {
    public enum FoundBy: String, Sendable, Hashable {
        /// The kernel's own choice (``EgressProbe``), policy rules included.
        case kernel
        /// The route table's longest prefix, when the kernel could not be asked.
        case routeTable = "route table"
    }

    public var family: RouteTable.Family
    public var interface: String
    public var kind: InterfaceKind
    public var foundBy: FoundBy

    public init(family: RouteTable.Family, interface: String, kind: InterfaceKind, foundBy: FoundBy) {
        self.family = family
        self.interface = interface
        self.kind = kind
        self.foundBy = foundBy
    }
}

/// What the reader found: the way out of each family that has one, and what it could not read.
public struct NetworkPathReport: Sendable, Hashable {
    public var egresses: [Egress]
    /// Sentences for the log: a table that could not be read, a probe the kernel refused.
    public var problems: [String]

    public init(egresses: [Egress], problems: [String] = []) {
        self.egresses = egresses
        self.problems = problems
    }

    /// The first way out that is a tunnel.
    public var tunnel: Egress? { egresses.first { $0.kind.isTunnel } }
}

/// Reads which interface carries traffic to the internet and what kind of link it is, from the kernel's files and,
/// unless told not to, the kernel's own route choice. Synchronous file reads and a few syscalls: the daemon calls
/// it off its event loops.
///
/// The paths are parameters so that tests read fixture trees, or another network namespace's view
/// (`/proc/PID/net` and `/proc/PID/root/sys/class/net` of a process inside it).
public struct NetworkPathReader: Sendable {
    /// Where `route` and `ipv6_route` are (`/proc/self/net`: this process's network namespace).
    public var procNet: String
    /// Where the interfaces' directories are.
    public var sysClassNet: String
    /// Whether to ask the kernel (``EgressProbe``) before the tables. Off for fixture trees, whose interfaces do not
    /// exist here.
    public var asksKernel: Bool

    /// The addresses whose way out is asked for: documentation addresses (RFC 5737, RFC 3849), routed like any
    /// other public address, so no real host is named; nothing is ever sent to them.
    public static let probeAddresses: [RouteTable.Family: [UInt8]] = [
        .ipv4: [192, 0, 2, 1], .ipv6: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    ]
    /// A route table of a laptop is a few kilobytes; one of a megabyte is a router's, whose tables are left to the
    /// kernel's answer.
    static let maxTableBytes = 1 << 20
    static let maxSysfsBytes = 4096

    public init(procNet: String = "/proc/self/net", sysClassNet: String = "/sys/class/net", asksKernel: Bool = true) {
        self.procNet = procNet
        self.sysClassNet = sysClassNet
        self.asksKernel = asksKernel
    }

    public func read() -> NetworkPathReport {
        var report = NetworkPathReport(egresses: [])
        for family in RouteTable.Family.allCases {
            guard let name = egressInterface(family, problems: &report.problems) else { continue }
            report.egresses.append(
                Egress(family: family, interface: name.interface, kind: kind(of: name.interface), foundBy: name.foundBy))
        }
        return report
    }

    private func egressInterface(_ family: RouteTable.Family, problems: inout [String])
        -> (interface: String, foundBy: Egress.FoundBy)?
    {
        let address = Self.probeAddresses[family]!
        if asksKernel {
            switch EgressProbe.interface(toward: address) {
            case .interface(let name): return (name, .kernel)
            case .noRoute: return nil
            case .unavailable(let reason):
                problems.append("the kernel could not be asked for the \(family.rawValue) route (\(reason))")
            }
        }
        let file = family == .ipv4 ? "route" : "ipv6_route"
        let path = (procNet as NSString).appendingPathComponent(file)
        do throws(BoundedFile.Failure) {
            let text = String(decoding: try BoundedFile.read(path, maximumBytes: Self.maxTableBytes), as: UTF8.self)
            let table = family == .ipv4 ? RouteTable.ipv4(text) : RouteTable.ipv6(text)
            return table.route(to: address).map { ($0.interface, .routeTable) }
        } catch {
            // No IPv6 in this kernel leaves no ipv6_route: no way out, not a problem.
            if error != .missing { problems.append("\(path) \(error)") }
            return nil
        }
    }

    /// The kind of the interface `name`, from its sysfs files.
    public func kind(of name: String) -> InterfaceKind {
        // A name from the kernel's own tables; refuse anything that could leave the directory all the same.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return .other }
        let directory = (sysClassNet as NSString).appendingPathComponent(name)
        func text(_ file: String) -> String? {
            let path = (directory as NSString).appendingPathComponent(file)
            return (try? BoundedFile.read(path, maximumBytes: Self.maxSysfsBytes)).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        return InterfaceKind(type: text("type"), tunFlags: text("tun_flags"), uevent: text("uevent"))
    }
}
