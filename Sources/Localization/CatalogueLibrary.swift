import FileStore
import Foundation
import Synchronization

/// Where the catalogues are, which languages have one, and each language's ``Translation``, read once
/// per process.
///
/// The `.po` files are read as they are (no `msgfmt` step): Sources/Localization/po in the source tree,
/// copied into the SwiftPM resource bundle by `swift build` and into `share/forecastd/po` by `make install`.
public enum CatalogueLibrary {
    /// `$FORECASTD_LOCALEDIR`: when set, the only directory searched (tests, and users trying a catalogue).
    public static let directoryVariable = "FORECASTD_LOCALEDIR"
    /// The name of the SwiftPM resource bundle that carries the catalogues (`<package>_<target>`).
    static let resourceBundleName = "forecastd_Localization.resources"

    /// The first directory holding catalogues: `$FORECASTD_LOCALEDIR` alone when set; else the resource
    /// bundle beside the executable, `<prefix>/share/forecastd/po` beside it, /usr/local/share/forecastd/po,
    /// /usr/share/forecastd/po, and the source tree this was compiled from. Nil when none exists.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let place = InstalledResource.Place(bundle: resourceBundleName, inBundle: "po", sourceTree: sourceTreeDirectory)
        return try? InstalledResource.locate(
            place, kind: .directory, overrideVariable: directoryVariable, environment: environment
        ).path
    }

    /// Sources/Localization/po, located from this file's path at compile time.
    public static let sourceTreeDirectory = (#filePath as NSString).deletingLastPathComponent + "/po"

    /// The languages with a catalogue in `directory` (`es` for es.po), and English, which needs none.
    public static func languages(in directory: String?) -> Set<String> {
        let names = directory.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0) } ?? []
        return Set(names.filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) } + ["en"])
    }

    /// The languages with a catalogue where this process finds them, English included.
    public static var available: Set<String> { cache.withLock { $0.available } }

    /// The translation of `choice`, and sentences for the log the first time a problem shows: an
    /// environment asking for a language with no catalogue, a catalogue that is missing or cannot be
    /// read (English is used then). Catalogues are read once per process and kept.
    public static func translation(
        for choice: LanguageChoice, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (translation: Translation, notes: [String]) {
        cache.withLock { cache in
            var notes: [String] = []
            let language: String
            switch choice {
            case .code(let code): language = code
            case .auto:
                let (chosen, note) = LanguageChoice.fromEnvironment(environment, available: cache.available)
                language = chosen
                if let note, cache.noted.insert(note).inserted { notes.append(note) }
            }
            guard language != "en" else { return (.english, notes) }
            if let loaded = cache.loaded[language] { return (loaded, notes) }
            let translation: Translation
            switch load(language, from: cache.directory) {
            case .success(let catalogue): translation = Translation(catalogue)
            case .failure(let problem):
                translation = .english
                notes.append(problem.description)
            }
            cache.loaded[language] = translation
            return (translation, notes)
        }
    }

    /// Reads `<directory>/<language>.po`.
    public static func load(_ language: String, from directory: String?) -> Result<Catalogue, CatalogueProblem> {
        guard let directory else {
            return .failure(CatalogueProblem("No catalogue directory was found for language \(language); using English."))
        }
        let path = directory + "/" + language + ".po"
        let data: Data
        do {
            // Opened without blocking, a regular file only, never more than a catalogue may be: a FIFO or a
            // huge file in its place must neither hang the daemon nor fill its memory.
            data = try BoundedFile.read(path, maximumBytes: POFile.maximumFileBytes)
        } catch {
            let what = error == .missing ? "cannot be read (no such file)" : error.description
            return .failure(CatalogueProblem("The catalogue \(path) \(what); using English."))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(CatalogueProblem("The catalogue \(path) is not UTF-8; using English."))
        }
        do {
            return .success(try Catalogue(language: language, poText: text))
        } catch {
            return .failure(CatalogueProblem("The catalogue \(path) is damaged (\(error)); using English."))
        }
    }

    private struct Cache {
        let directory: String?
        let available: Set<String>
        var loaded: [String: Translation] = [:]
        var noted: Set<String> = []
    }

    private static let cache: Mutex<Cache> = {
        let found = directory()
        return Mutex(Cache(directory: found, available: languages(in: found)))
    }()
}

/// Why a catalogue could not be used, as a sentence for the log.
public struct CatalogueProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
