import Foundation
import NIOConcurrencyHelpers

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
package enum FileWatcher {
    // inotify(7) event bits (linux/inotify.h), written out since Glibc's macros do not all import.
    fileprivate static let modify: UInt32 = 0x2
    fileprivate static let attrib: UInt32 = 0x4
    fileprivate static let closeWrite: UInt32 = 0x8
    fileprivate static let movedFrom: UInt32 = 0x40
    fileprivate static let movedTo: UInt32 = 0x80
    fileprivate static let create: UInt32 = 0x100
    fileprivate static let delete: UInt32 = 0x200
    fileprivate static let deleteSelf: UInt32 = 0x400
    fileprivate static let moveSelf: UInt32 = 0x800
    fileprivate static let ignored: UInt32 = 0x8000
    fileprivate static let onlyDirectory: UInt32 = 0x0100_0000
    private static let directoryMask =
        modify | attrib | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf | onlyDirectory

    /// A stream that yields whenever something at one of `paths` may have changed, until the caller
    /// stops iterating or drops the stream. Nil when inotify cannot be used (no descriptors left): the
    /// caller then says so.
    ///
    /// The inotify descriptor is a source of the ``DescriptorWaiter``; no thread of its own.
    package static func changes(of paths: [String]) -> AsyncStream<Void>? {
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Watched before this returns: a change made right after is never missed (inotify queues it until the
        // waiter reads).
        let watches = arm(paths, inotify: inotify, replacing: [:])
        let waiter = DescriptorWaiter.shared
        let token = NIOLockedValueBox<WaitToken?>(nil)
        waiter.execute {
            let source = InotifySource(paths: paths, inotify: inotify, watches: watches) { continuation.yield() }
            token.withLockedValue { $0 = waiter.add(source) }
        }
        // Queued after the addition, so it finds the token; the descriptor is closed only once no source uses it.
        continuation.onTermination = { _ in
            waiter.execute {
                if let added = token.withLockedValue({ $0 }) { waiter.remove(added) }
                close(inotify)
            }
        }
        return stream
    }

    /// The inotify descriptor on the waiter: reads each batch of events and calls `changed` when one concerns
    /// one of `paths`, watching again what the paths need now.
    private final class InotifySource: WaitSource {
        let paths: [String]
        let inotify: Int32
        var watches: [Int32: Set<String>]
        let changed: () -> Void
        /// One read's room, kept between calls.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)

        init(paths: [String], inotify: Int32, watches: [Int32: Set<String>], changed: @escaping () -> Void) {
            self.paths = paths
            self.inotify = inotify
            self.watches = watches
            self.changed = changed
        }

        var interest: (descriptor: Int32, events: Readiness)? { (inotify, .readable) }
        var deadline: ContinuousClock.Instant? { nil }

        func ready(_ events: Readiness) {
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
                    if mask & (FileWatcher.ignored | FileWatcher.deleteSelf | FileWatcher.moveSelf) != 0 {
                        relevant = true
                    } else if let names = watches[descriptor], names.contains(name) {
                        relevant = true
                    }
                    offset += 16 + length
                }
            }
            if relevant {
                watches = FileWatcher.arm(paths, inotify: inotify, replacing: watches)
                changed()
            }
        }
    }

    /// Watches the directories `paths` need now (``directoriesToWatch(_:)``) and drops the watches of
    /// `replacing` no longer needed. Returns each watch with the names in its directory that matter.
    fileprivate static func arm(_ paths: [String], inotify: Int32, replacing old: [Int32: Set<String>]) -> [Int32: Set<String>] {
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
