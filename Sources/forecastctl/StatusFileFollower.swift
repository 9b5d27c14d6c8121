import Control
import ForecastModel
import Foundation
import Rendering
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// What a bar shows from the status file when the daemon does not answer: the last report it wrote,
/// marked stale (nothing refreshes it now), rendered here exactly as the daemon renders it.
struct StatusFileReport {
    let path: String
    /// A listed city instead of here, when asked.
    let city: String?

    /// The report in the file, marked stale; nil when there is no readable report (or not that city).
    func read() -> Report? {
        guard let whole = readWhole() else { return nil }
        guard let city else { return Self.markedStale(whole) }
        return whole.city(city).map { Self.markedStale($0.report) }
    }

    /// Here's report, then each listed city's, as a rotating bar shows them, each marked stale; empty
    /// when there is no readable report.
    func rotation() -> [Report] {
        guard let whole = readWhole() else { return [] }
        return ([whole] + (whole.cities ?? []).map(\.report)).map(Self.markedStale)
    }

    private func readWhole() -> Report? {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.split(separator: "\n").first,
            let whole = try? ReportJSON.decode(text)
        else { return nil }
        return whole
    }

    /// Nothing refreshes a report read from the file: one that held data is old now.
    private static func markedStale(_ report: Report) -> Report {
        var report = report
        if report.status == .ok { report.stale = true }
        return report
    }
}

extension FormatOptions {
    /// Rendering options as the daemon uses them: the asked icons and template, the thresholds of `[display]`.
    func renderOptions(_ settings: Settings) -> RenderOptions {
        RenderOptions(
            icons: icons, template: template.flatMap { try? Template($0) }, hotCelsius: settings.display.hotCelsius,
            coldCelsius: settings.display.coldCelsius, phrases: settings.phrases)
    }

    /// Every line of the format (three for i3blocks).
    func render(_ report: Report, _ settings: Settings) -> String {
        Renderer.render(report, as: format ?? .text, options: renderOptions(settings))
    }
}

/// Waits, without polling, for the status file or the daemon's socket to change: inotify on the
/// directories that hold them (or, while one does not exist yet, on its nearest existing parent).
final class StatusFileFollower {
    private let fd: Int32
    private let paths: [String]
    /// The watch descriptors of the directories watched now.
    private var watches: Set<Int32> = []

    init?(statusFile: String, socket: String) {
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        paths = Array(Set([statusFile, socket].map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }))
        arm()
    }

    deinit { close(fd) }

    /// Watches each directory, or its nearest existing parent until it appears. A directory watched
    /// already keeps its watch (adding it again only returns it), and a watch no longer wanted is removed
    /// only after the new ones are in place: a change made meanwhile is never missed.
    private func arm() {
        let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        var wanted: Set<Int32> = []
        for path in paths {
            var directory = URL(fileURLWithPath: path)
            while !FileManager.default.fileExists(atPath: directory.path), directory.path != "/" {
                directory.deleteLastPathComponent()
            }
            let watch = inotify_add_watch(fd, directory.path, events)
            if watch >= 0 { wanted.insert(watch) }
        }
        for watch in watches.subtracting(wanted) { inotify_rm_watch(fd, watch) }
        watches = wanted
    }

    /// Waits for a change in the watched directories, or `timeout` (nil: none). Returns false on a
    /// timeout.
    func wait(timeout: Duration?) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32($0.components.seconds * 1000) } ?? -1
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 8192)
        _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        // A directory that appeared (or went) changes what must be watched.
        arm()
        return true
    }
}

/// How a watcher waits while the daemon is away: until the status file or the socket's directory changes
/// (inotify), at most a minute so that the age a stale report shows stays true, and sooner, with backoff from
/// 1 s to the minute, while a socket is there that did not serve the watcher (it refused, or it is a
/// leftover): nothing in the socket's directory changes when such a daemon becomes ready, so inotify cannot
/// say. No timed loop otherwise.
struct DaemonAwayWait {
    let statusFile: String
    let socket: String
    private var follower: StatusFileFollower?
    private var retry = Duration.seconds(1)

    init(statusFile: String, socket: String) {
        self.statusFile = statusFile
        self.socket = socket
    }

    /// The daemon served the watcher: the next time it is away, its socket is asked again after 1 s.
    mutating func served() { retry = .seconds(1) }

    /// Starts following the directories, before the status file is read: a change made after the read is
    /// then seen by ``wait(atMost:)``.
    mutating func arm() {
        if follower == nil { follower = StatusFileFollower(statusFile: statusFile, socket: socket) }
    }

    /// Waits for a change, or `limit` at most (less while a socket that did not serve is there). True when
    /// something changed.
    mutating func wait(atMost limit: Duration = .seconds(60)) -> Bool {
        arm()
        var timeout = limit
        if FileManager.default.fileExists(atPath: socket) {
            timeout = min(limit, retry)
            retry = min(retry * 2, .seconds(60))
        }
        guard let follower else {
            // No inotify (out of instances): try again a little later rather than never.
            sleep(UInt32(min(2, max(1, timeout.components.seconds))))
            return false
        }
        return follower.wait(timeout: timeout)
    }
}
