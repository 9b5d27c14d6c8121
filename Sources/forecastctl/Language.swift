import ForecastModel
import Localization
import Settings

extension Settings {
    /// The words of `[display] language` for what forecastctl prints itself (the summary, the tables); with
    /// "auto", forecastctl's own locale. A catalogue problem is one line on stderr, and English is used.
    var phrases: Phrases {
        let (translation, notes) = CatalogueLibrary.translation(for: display.language)
        notes.forEach(note)
        return Phrases(translation)
    }
}
