import ForecastModel
import FileStore
import Foundation
import Logging
import Rendering
import ServiceLifecycle
import Settings

/// Writes every new report to the status file, atomically, so a bar never reads half a file.
public struct StatusFileService: Service, CustomStringConvertible {
    let path: String
    let state: ForecastState
    let logger: Logger
    let render: (@Sendable (Report) -> String)?
    let published: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - render: the file's text for a report; nil (the default) writes the report's JSON line as
    ///     the state already encoded it once for every reader.
    ///   - published: called once the first report has been written (or failed to be: the daemon
    ///     runs without its status file, and says why in the log).
    public init(
        path: String, state: ForecastState, logger: Logger, render: (@Sendable (Report) -> String)? = nil,
        published: (@Sendable () -> Void)? = nil
    ) {
        self.path = path
        self.state = state
        self.logger = logger
        self.render = render
        self.published = published
    }

    /// The renderer of an extra status file (`[[output.files]]`).
    public static func renderer(for file: Settings.StatusFile, display: Settings.Display) -> @Sendable (Report) -> String {
        let format = file.format
        // `emoji` is the setting's default; tmux then keeps its own width-safe default.
        let icons = format == .tmux && file.icons == .emoji ? nil : file.icons
        let template = file.template.isEmpty ? nil : try? Template(file.template)
        let hot = display.hotCelsius
        let cold = display.coldCelsius
        return { report in
            Renderer.render(
                report, as: format,
                options: RenderOptions(icons: icons, template: template, hotCelsius: hot, coldCelsius: cold))
        }
    }

    public var description: String { "StatusFileService(\(path))" }

    public func run() async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var failing = false
        var first = true
        for await report in await state.subscribe().cancelOnGracefulShutdown() {
            do {
                try AtomicFile.makeDirectory(directory)
                let text = if let render { render(report) } else { await state.reportLine }
                try AtomicFile.write(Array((text + "\n").utf8), to: path, mode: 0o644)
                if failing {
                    logger.info("The status file is written again.", metadata: ["path": "\(path)"])
                    failing = false
                }
            } catch {
                // Logged once per failure streak: a full disk must not flood the journal.
                if !failing {
                    logger.error("Cannot write the status file; will retry on the next report.", metadata: ["error": "\(error)"])
                    failing = true
                }
            }
            if first {
                first = false
                published?()
            }
        }
    }
}
