import ForecastModel
import Logging
import Rendering
import Settings

/// The `[display]` settings in force, for renderers that cannot wait on an actor: the socket renders
/// each answer as it writes it, and renders again for its watchers whenever these change. The reloader
/// sets it; everyone else reads.
public final class DisplaySettings: Sendable {
    /// The settings in force, and word to the socket's watchers when they change.
    package let changes: Broadcast<Settings.Display>
    /// Where a catalogue's problem is told, the first time the language is asked for.
    private let logger: Logger?

    public init(_ display: Settings.Display, logger: Logger? = nil) {
        changes = Broadcast(display)
        self.logger = logger
        _ = display.phrases(logger: logger)
    }

    public var value: Settings.Display { changes.value }

    package func set(_ display: Settings.Display) {
        guard display != value else { return }
        // Read a newly chosen catalogue now, so that its problems are logged with the reload (and the
        // watchers woken below find it read).
        _ = display.phrases(logger: logger)
        changes.send(display)
    }

    /// The render options of a bar format: the icon set (with "emoji", the setting's default, tmux
    /// keeps its own width-safe default), the hot and cold thresholds, and the language.
    public func renderOptions(for format: OutputFormat) -> RenderOptions {
        let display = value
        return RenderOptions(
            icons: format == .tmux && display.icons == .emoji ? nil : display.icons, hotCelsius: display.hotCelsius,
            coldCelsius: display.coldCelsius, phrases: display.phrases(logger: logger))
    }
}
