import Foundation
import Testing
import TestSupport

/// The daemon's threads as the kernel lists them: the descriptors it does not read through NIO (the settings
/// file's and the static file's inotify, rtnetlink, the clock-change timerfd, gpsd's socket) share one thread, `fd-waiter`,
/// instead of a thread each asleep in poll (docs/ARCHITECTURE.md, "The daemon's threads").
@Suite("The daemon's threads", .serialized)
struct DaemonThreadsTests {
    /// poll(2)'s number in /proc/PID/task/TID/syscall (aarch64 has only ppoll).
    #if arch(x86_64)
        static let pollSyscall = "7"
    #else
        static let pollSyscall = "73"
    #endif

    /// The kinds of the descriptors `pid` holds that the waiter watches.
    static func watchedDescriptors(of pid: Int32) -> [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        var kinds: [String: Int] = [:]
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")
            else { continue }
            if target.hasPrefix("anon_inode:") { kinds[target, default: 0] += 1 }
        }
        return kinds
    }

    @Test(
        "auto with the settings watch, a static file, the wake watch and gpsd: one fd-waiter thread, and no other thread in poll",
        .timeLimit(.minutes(2)))
    func oneWaiter() async throws {
        let server = try await ReplayServer.start()
        defer { Task { try? await server.shutdown() } }
        let directory = try DaemonProcess.makeDirectory()
        // gpsd is asked for on a port where nothing listens: its source on the waiter backs off.
        let gpsdPort = 1
        let daemon = try DaemonProcess.start(
            config: settingsText(
                gpsdPort: gpsdPort, openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
                staticFile: directory.path + "/geolocation"),
            in: directory)
        defer { daemon.removeDirectory() }
        try await daemon.waitForSocket()
        let pid = daemon.process.processIdentifier

        // Every watch made: two inotify instances (the settings file, the static file) and the timerfd.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let kinds = Self.watchedDescriptors(of: pid)
            if kinds["anon_inode:inotify", default: 0] >= 2 && kinds["anon_inode:[timerfd]", default: 0] >= 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let kinds = Self.watchedDescriptors(of: pid)
        #expect(kinds["anon_inode:inotify", default: 0] == 2, "descriptors: \(kinds)")
        #expect(kinds["anon_inode:[timerfd]", default: 0] >= 1, "descriptors: \(kinds)")

        // The waiter may be busy for a moment (a watch being added): look until it is back in poll.
        var listing = kernelThreads(of: pid)
        for _ in 0..<50 {
            if listing.contains(where: { $0.name == "fd-waiter" && $0.syscall == Self.pollSyscall }) { break }
            try await Task.sleep(for: .milliseconds(100))
            listing = kernelThreads(of: pid)
        }
        let described = listing.map { "\($0.name) (\($0.syscall))" }.sorted().joined(separator: ", ")
        #expect(listing.filter { $0.name == "fd-waiter" }.count == 1, "threads: \(described)")
        let polling = listing.filter { $0.syscall == Self.pollSyscall }.map(\.name)
        // Before the waiter: the settings watch, the static-file watch and the wake watch were three more threads
        // in poll, named after the event loop that started them, and gpsd's reader a fourth (gpsd:PORT).
        #expect(polling == ["fd-waiter"], "threads in poll: \(polling); all: \(described)")
        #expect(!listing.contains { $0.name.hasPrefix("gpsd:") }, "threads: \(described)")
        // gpsd was tried: its refusal is in the log.
        #expect(daemon.log.contains("gpsd is unavailable"), "log: \(daemon.log)")
        #expect(await daemon.stop() == 0)
    }
}
