import Control
import FileStore
import ForecastModel
import Foundation
import Rendering
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// The report in the status file, judged as it is read: whether it still holds, and if not, why.
struct StatusFileReading {
    /// The whole report (here's, with the listed cities), marked stale when it no longer holds.
    var report: Report
    /// Why nothing keeps it up to date, when the file says (its writer is gone, or has not written it
    /// again in time).
    var absence: DaemonAbsence?
    /// While it holds: when it stops holding unless the daemon writes it again first.
    var holdsUntil: Date?

    /// Judges a report read from a status file at `now`, when the daemon's socket did not answer.
    ///
    /// How a reader knows the daemon is gone: first by its socket, which is how it came to read the file: no
    /// socket, or no one listening on it (`socketSaysNotRunning`), is a daemon that stopped or died (a
    /// stopping daemon closes its socket before anything else). When the socket is there but did not answer
    /// (no place left, too slow, closed mid-answer) or a reader's settings name another socket, the file says
    /// itself (``StatusFileStamp``): the process that wrote it, by its id and start time (an id alone could
    /// be another process's by then), and how long it holds, for a daemon that runs but no longer writes
    /// (wedged, SIGSTOP). While that process runs and that time has not passed, the weather is what the daemon
    /// published; otherwise it is marked stale and `absence` says why. A file without a stamp (an older
    /// daemon's) is stale.
    static func judge(
        _ report: Report, now: Date, socketSaysNotRunning: Bool,
        isRunning: (ProcessIdentity) -> Bool = { $0.isRunning }
    ) -> StatusFileReading {
        if socketSaysNotRunning {
            return StatusFileReading(report: markedStale(report), absence: .notRunning, holdsUntil: nil)
        }
        guard let stamp = report.written else {
            return StatusFileReading(report: markedStale(report), absence: nil, holdsUntil: nil)
        }
        let writer = ProcessIdentity(pid: stamp.pid, start: stamp.processStart, bootID: stamp.bootId)
        guard isRunning(writer) else {
            return StatusFileReading(report: markedStale(report), absence: .notRunning, holdsUntil: nil)
        }
        guard let until = Timestamps.parseUTC(stamp.validUntil), until > now else {
            return StatusFileReading(report: markedStale(report), absence: .notAnswering, holdsUntil: nil)
        }
        return StatusFileReading(report: report, absence: nil, holdsUntil: until)
    }

    /// Nothing refreshes a report that no longer holds: one that held data is old now, and so is each
    /// listed city's.
    static func markedStale(_ report: Report) -> Report {
        var report = report
        if report.status == .ok { report.stale = true }
        report.cities = report.cities?.map { city in
            var city = city
            city.report = markedStale(city.report)
            return city
        }
        return report
    }

    /// The listed city's report instead of here's, judged the same; nil when the report lists no such city.
    func city(_ key: String) -> StatusFileReading? {
        report.city(key).map { StatusFileReading(report: $0.report, absence: absence, holdsUntil: holdsUntil) }
    }
}

/// What a bar shows from the status file when the daemon does not answer: the last report it wrote, judged
/// (``StatusFileReading``), rendered here exactly as the daemon renders it.
struct StatusFileReport {
    let path: String
    /// A listed city instead of here, when asked.
    let city: String?

    /// The report in the file (or the city's), judged now (``StatusFileReading/judge(_:now:socketSaysNotRunning:isRunning:)``);
    /// nil when there is no readable report (or not that city).
    func read(now: Date = Date(), socketSaysNotRunning: Bool) -> StatusFileReading? {
        guard let whole = Self.readWhole(path) else { return nil }
        let reading = StatusFileReading.judge(whole, now: now, socketSaysNotRunning: socketSaysNotRunning)
        guard let city else { return reading }
        return reading.city(city)
    }

    /// Here's report, then each listed city's, as a rotating bar shows them, each judged; empty when there is
    /// no readable report.
    func rotation(now: Date = Date(), socketSaysNotRunning: Bool) -> [StatusFileReading] {
        guard let whole = Self.readWhole(path) else { return [] }
        let reading = StatusFileReading.judge(whole, now: now, socketSaysNotRunning: socketSaysNotRunning)
        return [reading] + (reading.report.cities ?? []).compactMap { reading.city($0.id) }
    }

    static func readWhole(_ path: String) -> Report? {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.split(separator: "\n").first,
            let whole = try? ReportJSON.decode(text)
        else { return nil }
        return whole
    }
}

extension FormatOptions {
    /// Rendering options as the daemon uses them: the asked icons and template, the thresholds of `[display]`;
    /// `lasting` for a line that stays on show (a watcher's), `absence` when the daemon is known to be away.
    func renderOptions(_ settings: Settings, lasting: Bool = false, absence: DaemonAbsence? = nil) -> RenderOptions {
        RenderOptions(
            icons: icons, template: template.flatMap { try? Template($0) }, hotCelsius: settings.display.hotCelsius,
            coldCelsius: settings.display.coldCelsius, phrases: settings.phrases, lasting: lasting, absence: absence)
    }

    /// Every line of the format (three for i3blocks).
    func render(_ report: Report, _ settings: Settings, lasting: Bool = false, absence: DaemonAbsence? = nil) -> String {
        Renderer.render(
            report, as: format ?? .text, options: renderOptions(settings, lasting: lasting, absence: absence))
    }

    /// A report read from the status file, every line of the format.
    func render(_ reading: StatusFileReading, _ settings: Settings, lasting: Bool = false) -> String {
        render(reading.report, settings, lasting: lasting, absence: reading.absence)
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
        let milliseconds =
            timeout.map { Int32(min($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000, 86_400_000)) }
            ?? -1
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
/// (inotify), or the file stops holding (its stamp says when), and sooner, with backoff from 1 s to a minute,
/// while a socket is there that did not serve the watcher (it refused, or it is a leftover): nothing in the
/// socket's directory changes when such a daemon becomes ready, so inotify cannot say. No timed loop
/// otherwise: what a watcher shows says times, not ages, so nothing in it goes out of date by itself.
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

    /// Waits for a change, or until `until` (nil: no limit), or `limit` at most (less while a socket that did
    /// not serve is there). True when something changed.
    mutating func wait(until: Date? = nil, atMost limit: Duration? = nil) -> Bool {
        arm()
        var timeout = limit
        if let until {
            let left = Duration.milliseconds(max(0, Int64((until.timeIntervalSinceNow * 1000).rounded(.up))))
            timeout = timeout.map { min($0, left) } ?? left
        }
        if FileManager.default.fileExists(atPath: socket) {
            timeout = timeout.map { min($0, retry) } ?? retry
            retry = min(retry * 2, .seconds(60))
        }
        guard let follower else {
            // No inotify (out of instances): try again a little later rather than never.
            sleep(UInt32(min(2, max(1, timeout?.components.seconds ?? 2))))
            return false
        }
        return follower.wait(timeout: timeout)
    }
}
