import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The listening sockets a socket unit passed (sd_listen_fds(3)), taken once at start.
public enum SocketActivation {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: CInt = 3

    /// One passed descriptor and what it is.
    public struct PassedSocket: Sendable, Hashable {
        public var descriptor: CInt
        /// Its name from `$LISTEN_FDNAMES` (`FileDescriptorName=`, by default the socket unit's name).
        public var name: String
        /// The path of a listening Unix stream socket; nil for any other kind of descriptor.
        public var unixPath: String?
        /// What it is, for messages about descriptors forecastd cannot serve.
        public var kind: String
    }

    /// What systemd passed, and whether the variables were meant for this process.
    public struct Passed: Sendable {
        public var sockets: [PassedSocket] = []
        /// Why the variables were ignored (another process's `LISTEN_PID`, a bad number), if they were.
        public var ignoredBecause: String?
    }

    /// Takes the passed sockets: checks that `$LISTEN_PID` names this process, marks the
    /// descriptors close-on-exec, and removes `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` from
    /// the environment so that no child process takes them for its own.
    ///
    /// Call once, early, before other threads read the environment.
    public static func take(processID: pid_t = getpid()) -> Passed {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        return inspect(environment: environment, processID: processID)
    }

    /// Reads the variables from `environment` and inspects the descriptors they announce.
    static func inspect(environment: [String: String], processID: pid_t) -> Passed {
        var passed = Passed()
        guard let countText = environment["LISTEN_FDS"], !countText.isEmpty else { return passed }
        guard let pidText = environment["LISTEN_PID"], let pid = pid_t(pidText) else {
            passed.ignoredBecause = "LISTEN_FDS is set without a valid LISTEN_PID"
            return passed
        }
        guard pid == processID else {
            passed.ignoredBecause = "LISTEN_PID=\(pid) names another process (this one is \(processID))"
            return passed
        }
        guard let count = Int(countText), count >= 0, count < 4096 else {
            passed.ignoredBecause = "LISTEN_FDS=\(countText) is not a count of descriptors"
            return passed
        }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        for index in 0..<count {
            let descriptor = firstDescriptor + CInt(index)
            let flags = fcntl(descriptor, F_GETFD)
            guard flags >= 0 else { continue }
            _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC)
            let name = names.flatMap { index < $0.count ? $0[index] : nil } ?? "unknown"
            let (path, kind) = describe(descriptor)
            passed.sockets.append(PassedSocket(descriptor: descriptor, name: name, unixPath: path, kind: kind))
        }
        return passed
    }

    /// The path of a listening Unix stream socket, or nil and what the descriptor is instead.
    static func describe(_ descriptor: CInt) -> (path: String?, kind: String) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return (nil, "a closed descriptor") }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return (nil, "not a socket") }
        func option(_ name: CInt) -> CInt? {
            var value: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_DOMAIN) == AF_UNIX else { return (nil, "not a Unix socket") }
        guard option(SO_TYPE) == CInt(SOCK_STREAM.rawValue) else { return (nil, "not a stream socket") }
        guard option(SO_ACCEPTCONN) == 1 else { return (nil, "a stream socket that is not listening") }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return (nil, "an unnamed Unix socket") }
        let base = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let pathLength = Int(length) - base
        guard pathLength > 0 else { return (nil, "an unnamed Unix socket") }
        let bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(pathLength)) }
        guard bytes.first != 0 else {
            return (nil, "an abstract Unix socket (@\(String(decoding: bytes.dropFirst(), as: UTF8.self)))")
        }
        return (String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self), "a listening Unix stream socket")
    }
}
