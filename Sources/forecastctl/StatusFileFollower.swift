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
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.split(separator: "\n").first,
            let whole = try? ReportJSON.decode(text)
        else { return nil }
        guard var report = city.map({ whole.city($0)?.report }) ?? whole else { return nil }
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
    private var watches: [Int32] = []

    init?(statusFile: String, socket: String) {
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        paths = Array(Set([statusFile, socket].map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }))
        arm()
    }

    deinit { close(fd) }

    /// Watches each directory, or its nearest existing parent until it appears.
    private func arm() {
        for watch in watches { inotify_rm_watch(fd, watch) }
        watches = []
        let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        for path in paths {
            var directory = URL(fileURLWithPath: path)
            while !FileManager.default.fileExists(atPath: directory.path), directory.path != "/" {
                directory.deleteLastPathComponent()
            }
            let watch = inotify_add_watch(fd, directory.path, events)
            if watch >= 0 { watches.append(watch) }
        }
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
