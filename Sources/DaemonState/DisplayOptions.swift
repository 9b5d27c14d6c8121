import ForecastModel
import Localization
import Logging
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
}
