import FileStore
import Foundation

/// The page's own files (index.html, pick.js, pick.css) and Leaflet's, read once when the picker starts
/// and served from memory: the server never opens a file a request names.
struct PageFiles: Sendable {
    /// The name of the SwiftPM resource bundle that carries the page (`<package>_<target>`).
    static let resourceBundleName = "forecastd_MapPicker.resources"
    /// `$FORECASTD_PICK_PAGE`: when set, the only directory searched (to try a changed page).
    static let directoryVariable = "FORECASTD_PICK_PAGE"

    /// Every file the page uses, by its path under the page's directory, and its media type.
    static let served: [String: String] = [
        "index.html": "text/html; charset=utf-8",
        "pick.js": "text/javascript; charset=utf-8",
        "pick.css": "text/css; charset=utf-8",
        "leaflet/leaflet.js": "text/javascript; charset=utf-8",
        "leaflet/leaflet.css": "text/css; charset=utf-8",
        "leaflet/images/marker-icon.png": "image/png",
        "leaflet/images/marker-icon-2x.png": "image/png",
        "leaflet/images/marker-shadow.png": "image/png",
    ]

    struct File: Sendable {
        var bytes: [UInt8]
        var mediaType: String
    }

    let files: [String: File]
    /// The directory they were read from.
    let directory: String

    /// Reads the files from the first directory that has them all.
    ///
    /// Looks at `$FORECASTD_PICK_PAGE` alone when it is set; else the SwiftPM resource bundle beside the
    /// executable (`swift build`), `<prefix>/share/forecastd/pick` beside it (`make install`, the .deb),
    /// /usr/local/share/forecastd/pick, /usr/share/forecastd/pick, and the source tree this was compiled from.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PickServerError)
        -> PageFiles
    {
        var candidates: [String] = []
        if let named = environment[directoryVariable], !named.isEmpty {
            candidates = [named]
        } else {
            let place = InstalledResource.Place(
                bundle: resourceBundleName, inBundle: "page", installed: "pick", sourceTree: sourceTreeDirectory)
            candidates = InstalledResource.candidates(
                place, executableDirectories: InstalledResource.executableDirectories())
        }
        var seen: Set<String> = []
        for directory in candidates where seen.insert(directory).inserted {
            var files: [String: File] = [:]
            for (name, mediaType) in served {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { break }
                files[name] = File(bytes: Array(data), mediaType: mediaType)
            }
            if files.count == served.count { return PageFiles(files: files, directory: directory) }
        }
        throw PickServerError(
            "the map page's files were not found (tried \(seen.sorted().joined(separator: ", ")))")
    }

    /// Sources/MapPicker/Resources/page, located from this file's path at compile time.
    static let sourceTreeDirectory = (#filePath as NSString).deletingLastPathComponent + "/Resources/page"
}

/// The picker could not start, or a request could not be answered; a sentence for people.
public struct PickServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
