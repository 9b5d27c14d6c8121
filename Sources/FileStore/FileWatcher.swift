import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when the files at some paths may have changed, with inotify: no polling, no timer.
///
/// Each path's directory is watched rather than the file itself, so that every way a file changes
/// arrives: a write in place, a new file renamed over the old one, delete-then-create, a symbolic
/// link re-pointed (and, through the link's target directory, a write to the file it points to). A
/// directory that does not exist yet is watched through its nearest existing ancestor, so a settings
/// directory created later is followed too. The watches are worked out again after every event.
///
/// A change is only a hint: readers compare what they find with what they last read.
public enum FileWatcher {
    // inotify(7) event bits (linux/inotify.h), written out since Glibc's macros do not all import.
    private static let modify: UInt32 = 0x2
    private static let attrib: UInt32 = 0x4
    private static let closeWrite: UInt32 = 0x8
    private static let movedFrom: UInt32 = 0x40
    private static let movedTo: UInt32 = 0x80
    private static let create: UInt32 = 0x100
    private static let delete: UInt32 = 0x200
    private static let deleteSelf: UInt32 = 0x400
    private static let moveSelf: UInt32 = 0x800
    private static let ignored: UInt32 = 0x8000
    private static let onlyDirectory: UInt32 = 0x0100_0000
    private static let directoryMask =
        modify | attrib | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf | onlyDirectory

    /// A stream that yields whenever something at one of `paths` may have changed, until the caller
    /// stops iterating or drops the stream. Nil when inotify cannot be used (no descriptors left): the
    /// caller then says so.
    public static func changes(of paths: [String]) -> AsyncStream<Void>? {
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { return nil }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(inotify)
            return nil
        }
        let (stopReader, stopWriter) = (pipeEnds[0], pipeEnds[1])
        for end in [stopReader, stopWriter] {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The thread leaves only through the stop pipe, so the writer is closed here, after its byte.
        continuation.onTermination = { _ in
            var byte: UInt8 = 1
            _ = write(stopWriter, &byte, 1)
            close(stopWriter)
        }
        // Watched before this returns: a change made right after is never missed.
        let watches = arm(paths, inotify: inotify, replacing: [:])
        let thread = Thread {
            watch(paths, inotify: inotify, watches: watches, stop: stopReader) { continuation.yield() }
            close(inotify)
            close(stopReader)
        }
        thread.name = "forecastd file watcher"
        thread.start()
        return stream
    }

    /// Waits in poll(2) on the inotify descriptor and the stop pipe; calls `changed` for each batch
    /// of events that concerns one of `paths`. Returns when the stop pipe is written to.
    private static func watch(
        _ paths: [String], inotify: Int32, watches: [Int32: Set<String>], stop: Int32, changed: () -> Void
    ) {
        var watches = watches
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            // Fails only for signals and a lack of kernel memory: both pass, so wait again.
            guard poll(&descriptors, 2, -1) > 0 else { continue }
            if descriptors[1].revents != 0 { return }
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                var offset = 0
                while offset + 16 <= count {
                    let (descriptor, mask, length) = buffer.withUnsafeBytes { raw in
                        (
                            raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                            raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                            Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if mask & (ignored | deleteSelf | moveSelf) != 0 {
                        relevant = true
                    } else if let names = watches[descriptor], names.contains(name) {
                        relevant = true
                    }
                    offset += 16 + length
                }
            }
            if relevant {
                watches = arm(paths, inotify: inotify, replacing: watches)
                changed()
            }
        }
    }

    /// Watches the directories `paths` need now (``directoriesToWatch(_:)``) and drops the watches of
    /// `replacing` no longer needed. Returns each watch with the names in its directory that matter.
    private static func arm(_ paths: [String], inotify: Int32, replacing old: [Int32: Set<String>]) -> [Int32: Set<String>] {
        var next: [Int32: Set<String>] = [:]
        for (directory, names) in directoriesToWatch(paths) {
            let descriptor = inotify_add_watch(inotify, directory, directoryMask)
            guard descriptor >= 0 else { continue }
            next[descriptor, default: []].formUnion(names)
        }
        for descriptor in old.keys where next[descriptor] == nil {
            _ = inotify_rm_watch(inotify, descriptor)
        }
        return next
    }

    /// The directories to watch for `paths`, each with the names in it that matter: the file's name,
    /// and for a symbolic link the target's; for a missing directory, its nearest existing ancestor
    /// with the name of the first missing component.
    static func directoriesToWatch(_ paths: [String]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        func add(_ path: String) {
            let url = URL(fileURLWithPath: path)
            var name = url.lastPathComponent
            var directory = url.deletingLastPathComponent().path
            while !isDirectory(directory), directory != "/" {
                let parent = URL(fileURLWithPath: directory)
                name = parent.lastPathComponent
                directory = parent.deletingLastPathComponent().path
            }
            result[directory, default: []].insert(name)
        }
        for path in paths {
            var current = path
            add(current)
            // A chain of symbolic links: each link's target directory too (at most 8 hops).
            for _ in 0..<8 {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { break }
                current =
                    target.hasPrefix("/")
                    ? target : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target).path
                add(current)
            }
        }
        return result
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
