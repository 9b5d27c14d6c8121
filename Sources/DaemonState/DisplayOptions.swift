import ForecastModel
import Localization
import Logging
import Rendering
import Settings

extension Settings.Display {
    /// The words of `[display] language`. The catalogue is read the first time a language is asked for
    /// and kept; a problem (a locale naming a language without a catalogue, a missing or damaged catalogue,
    /// which means English) is logged that first time only, so a bar redrawn every second logs it once.
    package func phrases(logger: Logger?) -> Phrases {
        let (translation, notes) = CatalogueLibrary.translation(for: language)
        for note in notes {
            logger?.warning("\(note)", metadata: ["language": "\(language)"])
        }
        return Phrases(translation)
    }

    /// How a bar format is rendered in these settings: the icon set (``icons``, or a status file's own),
    /// the hot and cold thresholds and the language. With "emoji", the setting's default, tmux keeps its own
    /// width-safe default. The socket and the status files both render through this.
    package func renderOptions(
        for format: OutputFormat, icons: IconSet? = nil, template: Template? = nil, lasting: Bool = false,
        logger: Logger? = nil
    ) -> RenderOptions {
        let icons = icons ?? self.icons
        return RenderOptions(
            icons: format == .tmux && icons == .emoji ? nil : icons, template: template, hotCelsius: hotCelsius,
            coldCelsius: coldCelsius, phrases: phrases(logger: logger), lasting: lasting)
    }
}
