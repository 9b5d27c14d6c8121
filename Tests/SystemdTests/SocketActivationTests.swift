import Foundation
import Testing

@testable import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// sd_listen_fds(3): which announced descriptors are taken, and what each one is.
@Suite("socket activation")
struct SocketActivationTests {
    @Test("variables for another process, or broken ones, are ignored with the reason")
    func foreignVariables() {
        let pid = getpid()
        let other = SocketActivation.inspect(environment: ["LISTEN_FDS": "1", "LISTEN_PID": "\(pid + 1)"], processID: pid)
        #expect(other.sockets.isEmpty)
        #expect(other.ignoredBecause == "LISTEN_PID=\(pid + 1) names another process (this one is \(pid))")
        let noPID = SocketActivation.inspect(environment: ["LISTEN_FDS": "1"], processID: pid)
        #expect(noPID.sockets.isEmpty)
        #expect(noPID.ignoredBecause == "LISTEN_FDS is set without a valid LISTEN_PID")
        let badCount = SocketActivation.inspect(environment: ["LISTEN_FDS": "many", "LISTEN_PID": "\(pid)"], processID: pid)
        #expect(badCount.sockets.isEmpty)
        #expect(badCount.ignoredBecause == "LISTEN_FDS=many is not a count of descriptors")
        let none = SocketActivation.inspect(environment: [:], processID: pid)
        #expect(none.sockets.isEmpty && none.ignoredBecause == nil)
    }

    @Test("only a listening Unix stream socket with a path is one forecastd can serve")
    func describesDescriptors() throws {
        let path = "/tmp/fd-activation-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        defer { unlink(path) }
        let listening = try unixSocket(SOCK_STREAM, path: path, listen: true)
        defer { close(listening) }
        #expect(SocketActivation.describe(listening) == (path, "a listening Unix stream socket"))

        let idle = try unixSocket(SOCK_STREAM, path: nil, listen: false)
        defer { close(idle) }
        #expect(SocketActivation.describe(idle).path == nil)
        #expect(SocketActivation.describe(idle).kind == "a stream socket that is not listening")

        let datagram = try unixSocket(SOCK_DGRAM, path: nil, listen: false)
        defer { close(datagram) }
        #expect(SocketActivation.describe(datagram).kind == "not a stream socket")

        let internet = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(internet) }
        #expect(SocketActivation.describe(internet).kind == "not a Unix socket")

        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(SocketActivation.describe(file).kind == "not a socket")
    }

    private func unixSocket(_ type: __socket_type, path: String?, listen shouldListen: Bool) throws -> CInt {
        let descriptor = socket(AF_UNIX, Int32(type.rawValue), 0)
        guard let path else { return descriptor }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        if shouldListen { #expect(listen(descriptor, 4) == 0) }
        return descriptor
    }
}
