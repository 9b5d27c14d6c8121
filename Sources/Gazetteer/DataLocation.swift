import Foundation

extension Gazetteer {
    /// The name of the SwiftPM resource bundle that carries gazetteer.bin (`<package>_<target>`).
    static let resourceBundleName = "forecastd_Gazetteer.resources"
    static let fileName = "gazetteer.bin"

    /// Finds gazetteer.bin and returns its URL.
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

    /// `locateDefaultData()` with its inputs passed in, so tests can control them.
    static func locateData(
        environment: [String: String],
        executableDirectories: [String],
        fileExists: (String) -> Bool = { isRegularFile($0) }
    ) throws(GazetteerError) -> URL {
        if let override = environment[pathVariable], !override.isEmpty {
            guard fileExists(override) else {
                throw .dataNotFound(tried: ["\(override) (from \(pathVariable))"])
            }
            return URL(fileURLWithPath: override)
        }
        let candidates = candidatePaths(executableDirectories: executableDirectories)
        guard let found = candidates.first(where: fileExists) else {
            throw .dataNotFound(tried: candidates)
        }
        return URL(fileURLWithPath: found)
    }

    /// Every place the data may be, in search order, without duplicates.
    static func candidatePaths(executableDirectories: [String]) -> [String] {
        var paths: [String] = []
        for directory in executableDirectories {
            paths.append(join(directory, resourceBundleName, fileName))
        }
        for directory in executableDirectories {
            let prefix = (directory as NSString).deletingLastPathComponent
            paths.append(join(prefix, "share/forecastd", fileName))
        }
        paths.append("/usr/local/share/forecastd/\(fileName)")
        paths.append("/usr/share/forecastd/\(fileName)")
        paths.append(sourceTreeDataPath)
        var seen: Set<String> = []
        return paths.filter { seen.insert($0).inserted }
    }

    /// The resource in the source tree, located from this file's path at compile time.
    static let sourceTreeDataPath: String = {
        let sources = (#filePath as NSString).deletingLastPathComponent
        return join(sources, "Resources", fileName)
    }()

    /// Directories the running executable may be in, most trustworthy first.
    static func executableDirectories() -> [String] {
        var directories: [String] = []
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append((resolved as NSString).deletingLastPathComponent)
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            let absolute = first.hasPrefix("/") ? first : join(FileManager.default.currentDirectoryPath, first)
            let resolved = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path
            directories.append((resolved as NSString).deletingLastPathComponent)
        }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.resolvingSymlinksInPath().deletingLastPathComponent().path)
        }
        directories.append(Bundle.main.bundleURL.path)
        var seen: Set<String> = []
        return directories.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    private static func join(_ components: String...) -> String {
        NSString.path(withComponents: components)
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
