import ArgumentParser
import ForecastModel
import Settings

/// What the shells complete for forecastctl's arguments (`forecastctl --generate-completion-script SHELL`).
///
/// The model's vocabulary (formats, icon sets, units, modes) completes without help: the parser lists the cases of
/// every `CaseIterable` argument type.
enum Completions {
    /// A settings file.
    static let settingsFile = CompletionKind.file(extensions: ["toml"])

    /// `forecastctl units`: a preset or a quantity first, then the units of the quantity before.
    static let units = CompletionKind.custom { words, index, prefix in
        unitWords(previous: index > 0 && index <= words.count ? words[index - 1] : nil).filter { $0.hasPrefix(prefix) }
    }

    /// The words that may follow `previous` in `forecastctl units`: a quantity's units after the quantity,
    /// else the presets and the quantities.
    static func unitWords(previous: String?) -> [String] {
        if let previous, let quantity = UnitQuantity(rawValue: previous) { return quantity.unitNames }
        return UnitSystem.allCases.map(\.rawValue) + UnitQuantity.allCases.map(\.rawValue)
    }

    /// A CSV file of cities.
    static let csvFile = CompletionKind.file(extensions: ["csv"])

    /// The ids of the listed cities: the shell runs forecastctl, which reads the settings file the command
    /// line names (`--config`) or the one it would find, as the command itself will.
    static let cityIDs = CompletionKind.custom { words, _, prefix in
        cityIDs(in: words).filter { $0.hasPrefix(prefix) }
    }

    /// The city ids of the settings named by `--config PATH` or `--config=PATH` in `words`, else of the
    /// settings found by the usual search; none when the file is missing or invalid.
    static func cityIDs(in words: [String]) -> [String] {
        var config: String?
        for (index, word) in words.enumerated() {
            if word == "--config", index + 1 < words.count {
                config = words[index + 1]
            } else if word.hasPrefix("--config=") {
                config = String(word.dropFirst("--config=".count))
            }
        }
        guard let source = try? Settings.locate(explicit: config),
            let settings = try? Settings.load(source, isSystemService: false)
        else { return [] }
        return settings.cities.map(\.id)
    }
}
