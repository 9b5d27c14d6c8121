import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of a test's own (`ip netns add`), for interfaces and routes made for real (TUN, TAP, veth,
/// policy rules) without touching the machine's own network. Needs root, iproute2 and a kernel that allows it;
/// ``unavailableReason`` says when not, so a test can say what it could not run.
///
/// What a test reads of it: `/proc/PID/net` and `/proc/PID/root/sys/class/net` of ``resident`` (a process living in
/// the namespace, whose mount namespace `ip netns exec` gave a sysfs of the namespace's own); and what code sees from
/// inside, on a thread moved into it (``inside(_:)``).
public final class NetworkNamespace: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let name: String
    /// A process inside the namespace, for its `/proc/PID` views.
    public let residentPID: pid_t
    private let resident: Process

    /// Why namespaces cannot be made here, or nil when they can.
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "not root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip")
        else { return "iproute2's ip is not installed" }
        do {
            let probe = try NetworkNamespace()
            probe.destroy()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    public init() throws {
        name = "fctest-\(UUID().uuidString.prefix(8).lowercased())"
        try Self.ip(["netns", "add", name])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.ipPath)
        process.arguments = ["netns", "exec", name, "sleep", "600"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? Self.ip(["netns", "delete", name])
            throw error
        }
        resident = process
        residentPID = process.processIdentifier
        // `ip netns exec` sets the namespace and the sysfs up before it becomes sleep; wait until it has.
        let deadline = Date(timeIntervalSinceNow: 10)
        while (try? String(contentsOfFile: "/proc/\(residentPID)/comm", encoding: .utf8))?.hasPrefix("sleep") != true {
            guard Date() < deadline else {
                destroy()
                throw Failure(description: "the process in namespace \(name) did not start within 10 s")
            }
            usleep(10_000)
        }
    }

    deinit {
        destroy()
    }

    /// `/proc/PID/net` of the resident: the namespace's route tables.
    public var procNet: String { "/proc/\(residentPID)/net" }
    /// The namespace's `/sys/class/net`, through the resident's root.
    public var sysClassNet: String { "/proc/\(residentPID)/root/sys/class/net" }

    /// Runs shell commands inside the namespace; throws with what they wrote to stderr when one fails.
    public func run(_ script: String) throws {
        try Self.ip(["netns", "exec", name, "sh", "-e", "-c", script])
    }

    /// Runs `work` on a thread of its own moved into the namespace (setns applies to the calling thread only), so that
    /// the sockets it makes are the namespace's.
    public func inside<T: Sendable>(_ work: @escaping @Sendable () -> T) throws -> T {
        let path = "/run/netns/\(name)"
        let result = LockedResult<T>()
        let thread = Thread {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                result.set(.failure(Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))")))
                return
            }
            defer { close(descriptor) }
            guard Self.setNetworkNamespace(descriptor) == 0 else {
                result.set(.failure(Failure(description: "setns: \(String(cString: strerror(errno)))")))
                return
            }
            result.set(.success(work()))
        }
        thread.start()
        return try result.wait().get()
    }

    public func destroy() {
        if resident.isRunning {
            kill(residentPID, SIGKILL)
            resident.waitUntilExit()
        }
        try? Self.ip(["netns", "delete", name])
    }

    /// setns(2) for a network namespace (`CLONE_NEWNET`). Glibc declares it only for _GNU_SOURCE, which Swift's
    /// Glibc module does not define, so it is looked up by name.
    private static func setNetworkNamespace(_ descriptor: Int32) -> Int32 {
        typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            errno = ENOSYS
            return -1
        }
        let cloneNewNet: Int32 = 0x4000_0000
        return unsafeBitCast(symbol, to: SetNamespace.self)(descriptor, cloneNewNet)
    }

    private static var ipPath: String {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip"
    }

    private static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = arguments
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "ip \(arguments.joined(separator: " ")) failed: "
                    + String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}

/// A result handed from one thread to another.
private final class LockedResult<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        condition.withLock {
            result = value
            condition.signal()
        }
    }

    func wait() -> Result<T, any Error> {
        condition.withLock {
            while result == nil { condition.wait() }
            return result!
        }
    }
}
