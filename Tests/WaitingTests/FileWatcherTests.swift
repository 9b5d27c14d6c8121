import Waiting
import Foundation
import Testing

/// Every way an editor or a user changes a file arrives as a change, through inotify.
@Suite("File watcher", .timeLimit(.minutes(3)))
struct FileWatcherTests {
    /// A fresh directory, removed afterwards.
    static func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "fd-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    /// Does `change`, then waits for the watcher to say so (the suite's time limit fails a missed change).
    static func arrives(
        _ changes: inout AsyncStream<Void>.AsyncIterator, _ change: () throws -> Void
    ) async throws {
        try change()
        #expect(await changes.next() != nil)
    }

    @Test("in place, rename-over, delete then create, a new directory, and a re-pointed symlink and its target all arrive")
    func everyPattern() async throws {
        try await Self.withDirectory { directory in
            let config = directory + "/config/forecastd.toml"
            let targets = directory + "/targets"
            try FileManager.default.createDirectory(atPath: targets, withIntermediateDirectories: true)
            // The stream is kept: dropping it ends the watch.
            let stream = try #require(FileWatcher.changes(of: [config]))
            defer { withExtendedLifetime(stream) {} }
            var changes = stream.makeAsyncIterator()

            // The directory does not exist yet: its creation and the file's arrive.
            try await Self.arrives(&changes) {
                try FileManager.default.createDirectory(atPath: directory + "/config", withIntermediateDirectories: true)
            }
            try await Self.arrives(&changes) { try Data("a = 1\n".utf8).write(to: URL(fileURLWithPath: config)) }
            // In place: truncated and written through the same descriptor.
            try await Self.arrives(&changes) {
                let handle = try #require(FileHandle(forWritingAtPath: config))
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: Data("a = 2\n".utf8))
                try handle.close()
            }
            // A new file renamed over the old one.
            try await Self.arrives(&changes) {
                try Data("a = 3\n".utf8).write(to: URL(fileURLWithPath: config + ".new"))
                #expect(rename(config + ".new", config) == 0)
            }
            // Deleted, then created again.
            try await Self.arrives(&changes) { try FileManager.default.removeItem(atPath: config) }
            try await Self.arrives(&changes) { try Data("a = 4\n".utf8).write(to: URL(fileURLWithPath: config)) }
            // A symbolic link to a file in another directory, re-pointed, then its target edited.
            try Data("a = 5\n".utf8).write(to: URL(fileURLWithPath: targets + "/one.toml"))
            try Data("a = 6\n".utf8).write(to: URL(fileURLWithPath: targets + "/two.toml"))
            try await Self.arrives(&changes) {
                try FileManager.default.removeItem(atPath: config)
                try FileManager.default.createSymbolicLink(atPath: config, withDestinationPath: targets + "/one.toml")
            }
            try await Self.arrives(&changes) {
                try FileManager.default.createSymbolicLink(atPath: config + ".new", withDestinationPath: targets + "/two.toml")
                #expect(rename(config + ".new", config) == 0)
            }
            try await Self.arrives(&changes) {
                let handle = try #require(FileHandle(forWritingAtPath: targets + "/two.toml"))
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: Data("a = 7\n".utf8))
                try handle.close()
            }
        }
    }

    @Test("watches are sources of the one waiter: no thread each, and 1,000 dropped leave no descriptor behind")
    func noThreadNoLeak() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/forecastd.toml"
            await DescriptorWaiter.shared.perform {}
            do {
                // 32 watches held at once: a thread each (as before the waiter) would add 32 threads.
                let threadsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
                let held = (0..<32).compactMap { _ in FileWatcher.changes(of: [path]) }
                #expect(held.count == 32)
                let threadsWhileHeld = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
                #expect(threadsWhileHeld < threadsBefore + 32)
                #expect(try Self.inotifyInstances(watching: directory) == 32)
                withExtendedLifetime(held) {}
            }
            for _ in 0..<1000 {
                // Dropped at once: the stream's end takes the source off the waiter and closes its descriptor.
                _ = FileWatcher.changes(of: [path])
            }
            // Queued after every removal.
            await DescriptorWaiter.shared.perform {}
            #expect(try Self.inotifyInstances(watching: directory) == 0)
        }
    }

    /// How many of this process's inotify descriptors watch `directory` (/proc/self/fdinfo names each watch's
    /// inode). Other tests running beside this one open inotify descriptors of their own, on other directories.
    static func inotifyInstances(watching directory: String) throws -> Int {
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: directory)[.systemFileNumber] as? UInt64)
        let needle = "ino:\(String(inode, radix: 16)) "
        var count = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + name, encoding: .utf8)
            else { continue }
            if info.contains(needle) { count += 1 }
        }
        return count
    }
}
