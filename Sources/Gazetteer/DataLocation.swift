import FileStore
import Foundation

extension Gazetteer {
    /// The name of the SwiftPM resource bundle that carries gazetteer.bin (`<package>_<target>`).
    static let resourceBundleName = "forecastd_Gazetteer.resources"
    static let fileName = "gazetteer.bin"

    /// Finds gazetteer.bin and returns its URL (``InstalledResource``).
    ///
    /// Looks, in order, at:
    /// 1. `$FORECASTD_GAZETTEER`: when set, only there; a missing file is an error rather than
    ///    a silent fall-back to other data.
    /// 2. The SwiftPM resource bundle beside the running executable (found through
    ///    /proc/self/exe, then `CommandLine.arguments[0]`, then `Bundle.main`), which is where
    ///    `swift build` and `swift test` put it. `Bundle.module` is not used: its generated
    ///    accessor stops the process when the bundle is missing.
    /// 3. `<executable's directory>/../share/forecastd/gazetteer.bin`, for installs under a prefix
    ///    such as ~/.local.
    /// 4. /usr/local/share/forecastd/gazetteer.bin, then /usr/share/forecastd/gazetteer.bin.
    /// 5. The source tree this module was compiled from, for development builds run elsewhere.
    ///
    /// Throws `GazetteerError.dataNotFound` listing every path tried.
    public static func locateDefaultData() throws -> URL {
        try locateData(
            environment: ProcessInfo.processInfo.environment,
            executableDirectories: executableDirectories()
        )
    }

    /// Where gazetteer.bin is in a build, an install and the source tree.
    static let place = InstalledResource.Place(
        bundle: resourceBundleName, inBundle: fileName, sourceTree: sourceTreeDataPath)

    /// `locateDefaultData()` with its inputs passed in, so tests can control them.
    static func locateData(
        environment: [String: String],
        executableDirectories: [String],
        fileExists: ((String) -> Bool)? = nil
    ) throws(GazetteerError) -> URL {
        do {
            return try InstalledResource.locate(
                place, kind: .regularFile, overrideVariable: pathVariable, environment: environment,
                executableDirectories: executableDirectories, accepts: fileExists)
        } catch {
            throw .dataNotFound(tried: error.tried)
        }
    }

    /// The resource in the source tree, located from this file's path at compile time.
    static let sourceTreeDataPath: String = {
        let sources = (#filePath as NSString).deletingLastPathComponent
        return NSString.path(withComponents: [sources, "Resources", fileName])
    }()

    /// Directories the running executable may be in, most trustworthy first.
    static func executableDirectories() -> [String] { InstalledResource.executableDirectories() }
}
