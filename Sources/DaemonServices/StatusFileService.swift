import DaemonState
import FileStore
import ForecastModel
import Foundation
import Logging
import Rendering
import ServiceLifecycle
import Settings
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one status file atomically, so a bar never reads half a file, and says once per failure
/// streak that it cannot: a full disk must not flood the journal.
struct StatusFileWriter {
    let path: String
    /// The exact mode and group the file gets (nil: 0644, or the mode of the file already there).
    let access: AtomicFile.Access?
    private var failing = false
    /// The text last written, so a report that renders the same is not written again.
    private var written: String?

    init(path: String, access: AtomicFile.Access? = nil) {
        self.path = path
        self.access = access
    }

    /// Writes `text` unless it is what the file holds; returns why it could not (nil: the file holds it).
    @discardableResult
    mutating func write(_ text: String, logger: Logger) async -> String? {
        guard text != written else { return nil }
        let (path, access) = (self.path, self.access)
        do {
            // Two fsyncs: on the blocking thread, never on the event loop that answers the socket.
            try await Blocking.run { () throws(AtomicFile.WriteError) in
                try AtomicFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
                try AtomicFile.write(Array((text + "\n").utf8), to: path, mode: 0o644, access: access)
            }
            written = text
            if failing {
                logger.info("The status file is written again.", metadata: ["path": "\(path)"])
                failing = false
            }
            return nil
        } catch {
            if !failing {
                logger.error(
                    "Cannot write the status file; will retry on the next report.",
                    metadata: ["path": "\(path)", "error": "\(error)"])
                failing = true
            }
            return "Cannot write the status file (\(error)); bars reading it show an old report."
        }
    }

    /// The status file's access: that of the socket, so whoever may not ask the daemon for the
    /// report (it holds the precise position) cannot read it from the file either: 0600, or 0640
    /// and the group `output.socket_group`. An unknown group gives 0600 (the socket service refuses
    /// to start on it, and says why).
    static func access(socketGroup: String?) async -> AtomicFile.Access {
        guard let socketGroup, !socketGroup.isEmpty,
            let group = await Blocking.run({ SystemGroup.id(named: socketGroup) })
        else {
            return AtomicFile.Access(mode: 0o600)
        }
        return AtomicFile.Access(mode: 0o640, group: group)
    }
}

/// Writes every new report to the status file (`[output] status_file`) as its JSON line, stamped with when it
/// was written, how long it holds and which process wrote it (``StatusFileStamp``); writes it again before
/// it stops holding, changed or not; and keeps `forecastd.pid` beside it while the daemon runs.
///
/// A reader that finds the daemon's socket silent (forecastctl; a bar through it) knows from the stamp
/// whether the weather in the file is still true: the process that wrote it is gone (stopped, killed,
/// crashed) or the time it holds has passed (the daemon is wedged). The pid file is for bars that can only
/// ask whether a pid runs (i3status's `run_watch`).
public struct StatusFileService: Service, CustomStringConvertible {
    let path: String
    let socketGroup: String?
    let state: ForecastState
    let logger: Logger
    let published: (@Sendable () -> Void)?
    /// How long the file holds after each write.
    let hold: Duration

    /// - Parameters:
    ///   - socketGroup: `output.socket_group`: the file is readable by that group as the socket is
    ///     (mode 0640), else by its owner only (0600).
    ///   - hold: how long the file holds after each write; it is written again a fifteenth of that earlier
    ///     (one minute of the real fifteen), whether or not the report changed.
    ///   - published: called once the first report has been written (or failed to be: the daemon
    ///     runs without its status file, says why in the log and in the report's errors).
    public init(
        path: String, socketGroup: String? = nil, state: ForecastState, logger: Logger,
        hold: Duration = .seconds(DaemonIntervals.real.statusFileHold), published: (@Sendable () -> Void)? = nil
    ) {
        self.path = path
        self.socketGroup = socketGroup
        self.state = state
        self.logger = logger
        self.hold = hold
        self.published = published
    }

    public var description: String { "StatusFileService(\(path))" }

    /// How long after a failed write the file is tried again, when no new report comes first: the
    /// report may not change for a while after the disk is freed, and the file must not stay old.
    static let retryDelay: Duration = .seconds(30)

    /// `forecastd.pid`, in the status file's directory.
    static func pidFilePath(statusFile: String) -> String {
        URL(fileURLWithPath: statusFile).deletingLastPathComponent().appendingPathComponent("forecastd.pid").path
    }

    /// The report as the status file holds it: its JSON line with the stamp of this write.
    static func stamped(_ report: Report, by writer: ProcessIdentity, at now: Date, hold: Duration) -> String {
        var report = report
        report.written = StatusFileStamp(
            at: Timestamps.rfc3339(now), validUntil: Timestamps.rfc3339(now.addingTimeInterval(seconds(hold))),
            pid: writer.pid, processStart: writer.start, bootId: writer.bootID)
        return ReportJSON.line(report)
    }

    public func run() async throws {
        var writer = StatusFileWriter(path: path, access: await StatusFileWriter.access(socketGroup: socketGroup))
        let identity = ProcessIdentity.current()
        let pidFile = PidFile(path: Self.pidFilePath(statusFile: path), identity: identity, logger: logger)
        await pidFile.write()
        var first = true
        // The report the file holds now (nil before the first good write).
        var written: Report?
        // A new report, the retry after a failed write, or the rewrite before the file stops holding: each
        // means "write the report now".
        let (attempts, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Armed after each write: for the retry after a failure, else for the rewrite before the file stops holding.
        let again = Alarm()
        let rewrite = hold - hold / 15
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in state.published.updates() { continuation.yield() }
                continuation.finish()
            }
            group.addTask { await again.ring { continuation.yield() } }
            for await _ in attempts.cancelOnGracefulShutdown() {
                // The newest published report, stamped for this write.
                let report = state.published.value.report
                let problem = await writer.write(
                    Self.stamped(report, by: identity, at: Date(), hold: hold), logger: logger)
                if problem == nil { written = report }
                await state.setStorageProblem("status file " + path, message: problem)
                let delay = problem == nil ? rewrite : Self.retryDelay
                again.arm(Date().addingTimeInterval(Self.seconds(delay)))
                if first {
                    first = false
                    published?()
                }
            }
            group.cancelAll()
        }
        // A stop ends the loop above at once, even with a write still to do: a report published just before it
        // (a forecast that came in as the user logged out) would be missing from the file that bars and
        // `forecastctl watch` read while the daemon is away. Written here if the file does not hold it yet.
        let newest = state.published.value.report
        if newest != written {
            await writer.write(Self.stamped(newest, by: identity, at: Date(), hold: hold), logger: logger)
        }
        // Nothing above throws: the service always ends here, and the pid file goes with it.
        await pidFile.remove()
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// `forecastd.pid`: the daemon's process id, for bars that can only ask whether a pid runs (i3status's
/// `run_watch`). Written at start, removed at a graceful stop when it still names this process; a killed
/// daemon leaves it behind, naming a process that is gone.
struct PidFile {
    let path: String
    let identity: ProcessIdentity
    let logger: Logger

    func write() async {
        let (path, pid) = (self.path, identity.pid)
        do {
            try await Blocking.run { () throws(AtomicFile.WriteError) in
                try AtomicFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
                try AtomicFile.write(Array("\(pid)\n".utf8), to: path, mode: 0o644)
            }
        } catch {
            logger.warning(
                "Cannot write the pid file; a bar that asks it whether forecastd runs will say it does not.",
                metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// Removes the file if it still names this process (read and unlinked on the blocking thread).
    func remove() async {
        await Blocking.run { [path, pid = identity.pid] in
            guard let data = FileManager.default.contents(atPath: path),
                Int32(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) == pid
            else { return }
            unlink(path)
        }
    }
}

/// Writes the extra status files (`[[output.files]]`) in their bar formats, following the settings:
/// a file added in a reload is written at once, a changed one (format, icons, template, or the
/// `[display]` thresholds) is rewritten at once, a removed one is no longer written (and left in place).
/// On a graceful stop each file is written once more with the report marked stale.
public struct StatusFilesService: Service, CustomStringConvertible {
    let state: ForecastState
    let logger: Logger

    public init(state: ForecastState, logger: Logger) {
        self.state = state
        self.logger = logger
    }

    public var description: String { "StatusFilesService" }

    /// The text of an extra status file for a report.
    static func render(
        _ report: Report, file: Settings.StatusFile, display: Settings.Display, logger: Logger? = nil
    ) -> String {
        let template = file.template.isEmpty ? nil : try? Template(file.template)
        // A file's text stays as written until the next report: times, never ages ("stale since 12:22").
        return Renderer.render(
            report, as: file.format,
            options: display.renderOptions(
                for: file.format, icons: file.icons, template: template, lasting: true, logger: logger))
    }

    public func run() async {
        // Either stream only says "look again": what is written is read from the state in one step.
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in state.published.updates() { continuation.yield() }
            }
            group.addTask {
                for await _ in state.settings.updates() { continuation.yield() }
            }
            var settings: (files: [Settings.StatusFile], display: Settings.Display)?
            var writers: [String: StatusFileWriter] = [:]
            for await _ in changes.cancelOnGracefulShutdown() {
                let (report, inForce) = await state.reportAndSettings
                if settings?.files != inForce.output.files || settings?.display != inForce.display {
                    // A file no longer written no longer has a problem to show.
                    let kept = Set(inForce.output.files.map(\.path))
                    for file in settings?.files ?? [] where !kept.contains(file.path) {
                        await state.setStorageProblem("status file " + file.path, message: nil)
                    }
                    settings = (inForce.output.files, inForce.display)
                    // A file whose settings changed is written anew, even when its text is the same.
                    writers = [:]
                }
                for file in inForce.output.files {
                    var writer = writers[file.path] ?? StatusFileWriter(path: file.path)
                    let problem = await writer.write(
                        Self.render(report, file: file, display: inForce.display), logger: logger)
                    writers[file.path] = writer
                    await state.setStorageProblem("status file " + file.path, message: problem)
                }
            }
            // Stopping: bars that only read these files (tmux, i3status, conky, i3blocks with `cat`) keep the
            // last weather, marked stale, until the daemon is back; nothing will refresh it now.
            if let settings {
                var (report, _) = await state.reportAndSettings
                if report.status == .ok {
                    report.stale = true
                    for file in settings.files {
                        var writer = writers[file.path] ?? StatusFileWriter(path: file.path)
                        await writer.write(Self.render(report, file: file, display: settings.display), logger: logger)
                    }
                }
            }
            continuation.finish()
            group.cancelAll()
        }
    }
}
