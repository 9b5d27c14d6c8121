import Foundation
import Testing
import TestSupport

extension NetworkQuietTests {
    /// The daemon with nothing to do sleeps: no thread of it wakes (libdispatch's worker pool, whose monitor timer
    /// wakes a process every second, runs none of its tasks: Sources/Executors). How often it wakes over minutes is
    /// Benchmarks/idle.sh's to measure; this says that nothing polls.
    @Suite(.serialized) struct IdleWakeupsTests {
        /// Each thread of a process: its name and how often it has woken (voluntary plus involuntary switches).
        func threads(of pid: Int32) -> [Int: (name: String, switches: Int)] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            var result: [Int: (name: String, switches: Int)] = [:]
            for task in tasks {
                guard let id = Int(task),
                    let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
                else { continue }
                var name = ""
                var switches = 0
                for line in status.split(separator: "\n") {
                    if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                    for key in ["voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"] where line.hasPrefix(key) {
                        switches += Int(line.dropFirst(key.count).trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
                result[id] = (name, switches)
            }
            return result
        }

        /// The threads that woke in each 3 s window, up to three windows, stopping at the first in which none did.
        func wokenWindows(of pid: Int32) async throws -> [String] {
            var windows: [String] = []
            for _ in 1...3 {
                let before = threads(of: pid)
                try await Task.sleep(for: .seconds(3))
                let after = threads(of: pid)
                let woken = after.compactMap { id, thread -> String? in
                    let switches = thread.switches - (before[id]?.switches ?? 0)
                    return switches > 0 ? "\(thread.name) (\(id)): \(switches)" : nil
                }
                if woken.isEmpty { break }
                windows.append(woken.sorted().joined(separator: ", "))
            }
            return windows
        }

        @Test("pinned, with its forecast and no readers, no thread of the daemon wakes")
        func pinnedDaemonSleeps() async throws {
            let server = try await ReplayServer.start()
            let daemon = try await startPinnedAtSamara(server: server)
            defer { daemon.removeDirectory() }
            // Settling: the answer written, the asking connection's work done, idle worker threads (if any) gone.
            try await Task.sleep(for: .seconds(6))
            // One quiet window of 3 s in up to three proves that nothing polls (a poll every second or faster
            // wakes a thread in each); the other windows allow for a wakeup the machine causes (a network change
            // reported by rtnetlink, handed to the event loop), which a loaded or busy test machine has.
            let windows = try await wokenWindows(of: daemon.process.processIdentifier)
            #expect(windows.count < 3, "threads that woke in each of three 3 s windows: \(windows.joined(separator: " | "))")
            #expect(await daemon.stop() == 0)
            try await server.shutdown()
        }
        @Test("with Wi-Fi positioning on, once located by Wi-Fi and fetched, no thread wakes while nothing changes")
        func wifiDaemonSleeps() async throws {
            try await withPrivateBus(kind: .system) { bus in
                let directory = try DaemonProcess.makeDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let laptop = try await WiFiLaptop.start(on: bus, in: directory)
                let (manager, server, daemon) = (laptop.manager, laptop.server, laptop.daemon)
                // Settling, as above; then the same windows (the bus and NetworkManager say nothing meanwhile).
                try await Task.sleep(for: .seconds(6))
                let windows = try await wokenWindows(of: daemon.process.processIdentifier)
                #expect(windows.count < 3, "threads that woke in each of three 3 s windows: \(windows.joined(separator: " | "))")
                #expect(server.requests().filter { $0.path == "/v1/geolocate" }.count == 1)
                #expect(await daemon.stop() == 0)
                manager.stop()
                try await server.shutdown()
            }
        }
    }
}
