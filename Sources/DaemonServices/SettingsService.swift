import Control
import DaemonState
import ForecastModel
import FileStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import Settings
import Systemd
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// What a reload did, for the log and for `forecastctl reload`.
public enum ReloadOutcome: Sendable, Hashable {
    /// New settings are in force; the keys that changed, and the changed keys read only at start,
    /// which wait for a restart (the settings table says which: ``SettingsApplication``).
    case applied(source: String, changed: [String], waitingForRestart: [String])
    /// The file is unchanged in meaning, but for keys that wait for a restart.
    case unchanged(source: String, waitingForRestart: [String])
    /// The file has problems; the last good settings stay in force.
    case invalid(problems: [String])
    /// The file kept changing while it was read (an editor still saving): nothing was applied; it is
    /// read again when it next changes.
    case unsettled(source: String)

    /// One line for people.
    public var summary: String {
        switch self {
        case .applied(let source, let changed, let waiting):
            "reloaded \(source): changed \(changed.joined(separator: ", "))" + Self.restartNote(waiting)
        case .unchanged(let source, let waiting): "reloaded \(source): nothing changed" + Self.restartNote(waiting)
        case .invalid(let problems): "the settings file has errors; the last good settings stay in force:\n" + problems.joined(separator: "\n")
        case .unsettled(let source): "\(source) is being written; it is read again once it holds still"
        }
    }

    private static func restartNote(_ keys: [String]) -> String {
        keys.isEmpty ? "" : "; read at start, waiting for a restart: " + keys.joined(separator: ", ")
    }

    /// The answer to a `reload` request on the socket: the summary, and the keys that changed and wait.
    public var answer: ControlAnswer {
        var answer = ControlAnswer(.reload, ok: true, message: summary)
        switch self {
        case .applied(_, let changed, let waiting):
            (answer.changed, answer.waitingForRestart) = (changed, waiting)
        case .unchanged(_, let waiting):
            (answer.changed, answer.waitingForRestart) = ([], waiting)
        case .invalid:
            answer.ok = false
        case .unsettled:
            break
        }
        return answer
    }
}

/// Follows the settings file: notices edits as they happen (inotify), on SIGHUP and on `reload` requests,
/// and applies what changed. A bad edit keeps the last good settings running and is reported once.
public actor SettingsReloader {
    private let explicitPath: String?
    private let isSystemService: Bool
    private let state: ForecastState
    nonisolated let logger: Logger
    private var settings: Settings
    private var sourcePath: String?
    private var signature: FileSignature?
    private var reportedProblems: [String] = []
    private var reportedWaiting: [String] = []
    /// How long a settings file must hold still between two reads to count as saved: an editor that
    /// saves in place truncates the file, then writes it, and what is read in between is no settings.
    private let settle: Duration
    /// Reads of a changing file before the reloader leaves it until its next change.
    private static let settleReads = 10
    /// Agreeing reads of an empty file before it counts as emptied: empty is what every in-place save
    /// looks like between its truncate and its write, and on a loaded machine (or a slow SD card) the
    /// write can come much later than one ``settle``, so an empty file must stay empty this long (1 s at
    /// the default 50 ms) before the report says so.
    private static let emptyReads = 20
    /// Told when a reload begins and ends (`RELOADING=1` … `READY=1`).
    private let notifier: SystemdNotifier?

    public init(
        initial: Settings, sourcePath: String?, sourceSignature: FileSignature?, explicitPath: String?,
        isSystemService: Bool, state: ForecastState,
        logger: Logger, notifier: SystemdNotifier? = nil, settle: Duration = .milliseconds(50)
    ) {
        self.notifier = notifier
        self.settle = settle
        self.settings = initial
        self.sourcePath = sourcePath
        self.explicitPath = explicitPath
        self.isSystemService = isSystemService
        self.state = state
        self.logger = logger
        self.signature = sourceSignature
    }

    /// The settings the daemon runs on, and the built-in defaults of its environment: what a settings
    /// file created by an edit on the socket must hold so that nothing but the edit changes.
    public var inEffect: (settings: Settings, defaults: Settings) {
        (settings, Settings.defaults(isSystemService: isSystemService))
    }

    /// Where a settings file is or may appear, in the order they are searched: what to watch.
    nonisolated var watchedPaths: [String] {
        if let explicitPath { return [explicitPath] }
        if let named = ProcessInfo.processInfo.environment["FORECASTD_CONFIG"], !named.isEmpty { return [named] }
        return [Settings.userConfigurationPath(), Settings.systemConfigurationPath]
    }

    /// Which settings file is found now and its signature (nil when none is found or the search fails):
    /// stats, on the blocking thread, since this actor's jobs run on the event loops.
    private func look() async -> (path: String?, signature: FileSignature) {
        await Blocking.run { [explicitPath] in
            let path = (try? Settings.locate(explicit: explicitPath))?.path
            return (path, FileSignature(path: path))
        }
    }

    /// Reloads if the file (or which file is found) changed since the last look.
    public func checkForChanges() async {
        let (path, current) = await look()
        guard path != sourcePath || current != signature else { return }
        _ = await reload(reason: "the settings file changed")
    }

    /// Reads the settings again and applies them, telling systemd while it does.
    @discardableResult
    public func reload(reason: String) async -> ReloadOutcome {
        // Every way in (SIGHUP, `reload`, an edit of the file, a settings request) is a reload to
        // systemd; whatever the outcome, the daemon is ready again afterwards.
        let told = notifier?.reloading() ?? false
        defer { if told { notifier?.reloaded() } }
        return await readAndApply(reason: reason)
    }

    private func readAndApply(reason: String) async -> ReloadOutcome {
        let source: SettingsSource
        let new: Settings
        do throws(SettingsError) {
            let located = try await Blocking.run { [explicitPath] () throws(SettingsError) in
                let source = try Settings.locate(explicit: explicitPath)
                return (source, FileSignature(path: source.path))
            }
            source = located.0
            signature = located.1
            guard let path = source.path else {
                return await apply(Settings.defaults(isSystemService: isSystemService), from: source, reason: reason)
            }
            switch try await settledText(of: path) {
            case .text(let text):
                new = try Settings.decode(text, path: path, defaults: Settings.defaults(isSystemService: isSystemService))
            case .changing:
                logger.debug("The settings file is still being written; reading it when it holds still.", metadata: ["path": "\(path)"])
                return .unsettled(source: path)
            case .empty:
                // A file that exists is never the defaults: emptied by mistake or by a save still under
                // way, it must not cost the user their pin, providers and opt-outs.
                throw SettingsError(
                    SettingsProblem(
                        path: path,
                        message: "is empty; the last good settings stay in force (delete the file to run on the built-in defaults)"))
            }
        } catch {
            signature = await look().signature
            let problems = error.problems.map(\.description)
            if problems != reportedProblems {
                // Said once per distinct problem set, not on every look at the file.
                logger.error(
                    "The settings file has errors; keeping the last good settings.",
                    metadata: ["problems": "\(problems.joined(separator: "; "))", "reason": "\(reason)"])
                reportedProblems = problems
            }
            await state.setConfigurationProblems(problems.map { ReportError(kind: .config, message: $0) })
            return .invalid(problems: problems)
        }
        return await apply(new, from: source, reason: reason)
    }

    /// What a read of the settings file found once it held still (or did not).
    private enum SettledRead {
        case text(String)
        /// The file holds nothing (zero bytes, or only white space).
        case empty
        /// It changed between every two reads.
        case changing
    }

    /// Reads the file until two reads ``settle`` apart agree, and the file was not touched between
    /// them: what an editor saving in place leaves between truncating and writing is never taken for
    /// the file, even when two reads happen to meet it empty (an empty file must stay so for
    /// ``emptyReads`` reads).
    private func settledText(of path: String) async throws(SettingsError) -> SettledRead {
        // Each read on the blocking thread: this actor's jobs run on the event loops, and the file may be on a
        // slow or stalled mount.
        func read() async -> (signature: FileSignature, text: Result<String, SettingsError>) {
            await Blocking.run {
                let signature = FileSignature(path: path)
                return (signature, Result { () throws(SettingsError) in try Settings.readSettingsFile(path) })
            }
        }
        var last = await read()
        var emptyAgreed = 0
        for _ in 0..<(Self.settleReads + Self.emptyReads) {
            try? await Alarm.sleep(for: settle)
            let again = await read()
            defer { last = again }
            guard again.signature == last.signature else {
                emptyAgreed = 0
                continue
            }
            switch (last.text, again.text) {
            case (.success(let before), .success(let text)) where before == text:
                guard text.allSatisfy(\.isWhitespace) else { return .text(text) }
                emptyAgreed += 1
                if emptyAgreed == Self.emptyReads { return .empty }
            case (.failure(let before), .failure(let error)) where before.problems == error.problems:
                throw error
            default:
                continue
            }
        }
        return .changing
    }

    private func apply(_ new: Settings, from source: SettingsSource, reason: String) async -> ReloadOutcome {
        let label = source.path ?? "built-in defaults"
        if source.path == nil, sourcePath != nil {
            logger.notice("The settings file is gone; using the built-in defaults.", metadata: ["was": "\(sourcePath!)"])
        }
        sourcePath = source.path
        if !reportedProblems.isEmpty {
            logger.notice("The settings file is valid again.", metadata: ["path": "\(label)"])
            reportedProblems = []
        }
        await state.setConfigurationProblems([])

        // The settings table says which keys apply live; the others keep their running values.
        let changes = SettingsTable.changes(from: settings, to: new)
        let changed = changes.filter { $0.application == .live }.map(\.key)
        let waiting = changes.filter { $0.application == .restart }.map(\.key)
        if waiting != reportedWaiting, !waiting.isEmpty {
            logger.warning(
                "Some changed settings are read at start; they take effect when the daemon restarts.",
                metadata: ["keys": "\(waiting.joined(separator: ", "))", "path": "\(label)"])
        }
        reportedWaiting = waiting
        settings = SettingsTable.applicable(new, running: settings)
        guard !changed.isEmpty else {
            logger.debug("Settings read again; nothing changed.", metadata: ["path": "\(label)", "reason": "\(reason)"])
            return .unchanged(source: label, waitingForRestart: waiting)
        }
        logger.info(
            "Settings reloaded.", metadata: ["path": "\(label)", "changed": "\(changed.joined(separator: ", "))", "reason": "\(reason)"])
        // A new language's catalogue is read here, on the blocking thread, so the renders that follow find it
        // in memory rather than reading it on an event loop.
        await Blocking.run { [settings, logger] in _ = settings.display.phrases(logger: logger) }
        await state.apply(settings)
        return .applied(source: label, changed: changed, waitingForRestart: waiting)
    }
}

/// Runs the settings reloader: a look at the file whenever inotify says something changed where a
/// settings file is or may appear, and a reload on SIGHUP. Nothing is polled.
public struct SettingsService: Service, CustomStringConvertible {
    let reloader: SettingsReloader

    public init(reloader: SettingsReloader) {
        self.reloader = reloader
    }

    public var description: String { "SettingsService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup) {
                        await reloader.reload(reason: "SIGHUP")
                    }
                }
                guard let changes = FileWatcher.changes(of: reloader.watchedPaths) else {
                    reloader.logger.warning(
                        "Cannot watch the settings file (inotify is not available); edits apply on SIGHUP or `forecastctl reload`.")
                    return
                }
                // A change between the start-up read and the first watch.
                await reloader.checkForChanges()
                for await _ in changes {
                    await reloader.checkForChanges()
                }
                group.cancelAll()
            }
        }
    }
}
