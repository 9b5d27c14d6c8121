import FileStore
import ForecastModel
import Foundation
import Logging
import Rendering
import ServiceLifecycle
import Settings

/// Writes one status file atomically, so a bar never reads half a file, and says once per failure
/// streak that it cannot: a full disk must not flood the journal.
struct StatusFileWriter {
    let path: String
    private var failing = false
    /// The text last written, so a report that renders the same is not written again.
    private var written: String?

    init(path: String) {
        self.path = path
    }

    mutating func write(_ text: String, logger: Logger) {
        guard text != written else { return }
        do {
            try AtomicFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
            try AtomicFile.write(Array((text + "\n").utf8), to: path, mode: 0o644)
            written = text
            if failing {
                logger.info("The status file is written again.", metadata: ["path": "\(path)"])
                failing = false
            }
        } catch {
            if !failing {
                logger.error(
                    "Cannot write the status file; will retry on the next report.",
                    metadata: ["path": "\(path)", "error": "\(error)"])
                failing = true
            }
        }
    }
}

/// Writes every new report to the status file (`[output] status_file`) as its JSON line.
public struct StatusFileService: Service, CustomStringConvertible {
    let path: String
    let state: ForecastState
    let logger: Logger
    let published: (@Sendable () -> Void)?

    /// - Parameter published: called once the first report has been written (or failed to be: the
    ///   daemon runs without its status file, and says why in the log).
    public init(path: String, state: ForecastState, logger: Logger, published: (@Sendable () -> Void)? = nil) {
        self.path = path
        self.state = state
        self.logger = logger
        self.published = published
    }

    public var description: String { "StatusFileService(\(path))" }

    public func run() async throws {
        var writer = StatusFileWriter(path: path)
        var first = true
        for await _ in await state.subscribe().cancelOnGracefulShutdown() {
            // The line the state already encoded once for every reader.
            writer.write(await state.reportLine, logger: logger)
            if first {
                first = false
                published?()
            }
        }
    }
}

/// Writes the extra status files (`[[output.files]]`) in their bar formats, following the settings:
/// a file added in a reload is written at once, a changed one (format, icons, template, or the
/// `[display]` thresholds) is rewritten at once, a removed one is no longer written (and left in place).
public struct StatusFilesService: Service, CustomStringConvertible {
    let state: ForecastState
    let logger: Logger

    public init(state: ForecastState, logger: Logger) {
        self.state = state
        self.logger = logger
    }

    public var description: String { "StatusFilesService" }

    /// The text of an extra status file for a report.
    static func render(_ report: Report, file: Settings.StatusFile, display: Settings.Display) -> String {
        // `emoji` is the setting's default; tmux then keeps its own width-safe default.
        let icons = file.format == .tmux && file.icons == .emoji ? nil : file.icons
        let template = file.template.isEmpty ? nil : try? Template(file.template)
        return Renderer.render(
            report, as: file.format,
            options: RenderOptions(
                icons: icons, template: template, hotCelsius: display.hotCelsius, coldCelsius: display.coldCelsius))
    }

    public func run() async {
        // Either stream only says "look again": what is written is read from the state in one step.
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in await state.subscribe() { continuation.yield() }
            }
            group.addTask {
                for await _ in await state.configurationUpdates() { continuation.yield() }
            }
            var settings: (files: [Settings.StatusFile], display: Settings.Display)?
            var writers: [String: StatusFileWriter] = [:]
            for await _ in changes.cancelOnGracefulShutdown() {
                let (report, configuration) = await state.reportAndConfiguration
                if settings?.files != configuration.statusFiles || settings?.display != configuration.display {
                    settings = (configuration.statusFiles, configuration.display)
                    // A file whose settings changed is written anew, even when its text is the same.
                    writers = [:]
                }
                for file in configuration.statusFiles {
                    var writer = writers[file.path] ?? StatusFileWriter(path: file.path)
                    writer.write(Self.render(report, file: file, display: configuration.display), logger: logger)
                    writers[file.path] = writer
                }
            }
            continuation.finish()
            group.cancelAll()
        }
    }
}
