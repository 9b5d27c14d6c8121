import Foundation

/// Finds a file or directory forecastd ships (the gazetteer, the catalogues, the warning area shapes, the
/// map picker's page) wherever this build or install put it, in one order for all of them.
///
/// Looks, in order, at:
/// 1. the override variable, when one is named and set: only there; a missing resource is an error rather
///    than a silent fall-back to other data;
/// 2. the SwiftPM resource bundle beside the running executable (found through /proc/self/exe, then
///    `CommandLine.arguments[0]`, then `Bundle.main`), where `swift build` and `swift test` put it.
///    `Bundle.module` is not used: its generated accessor stops the process when the bundle is missing;
/// 3. `<executable's directory>/../share/forecastd/…`, for installs under a prefix such as ~/.local;
/// 4. /usr/local/share/forecastd/…, then /usr/share/forecastd/…;
/// 5. the source tree the module was compiled from, for development builds run elsewhere.
public enum InstalledResource {
    /// What is looked for: where it is inside a SwiftPM resource bundle, under `share/forecastd`, and in the
    /// source tree.
    public struct Place: Sendable, Hashable {
        /// The bundle's name (`forecastd_Gazetteer.resources`: `<package>_<target>`).
        public var bundle: String
        /// The path inside the bundle (`gazetteer.bin`, `po`).
        public var inBundle: String
        /// The path under `share/forecastd` (`gazetteer.bin`, `po`, `pick`).
        public var installed: String
        /// The absolute path in the source tree (from the module's `#filePath`).
        public var sourceTree: String

        public init(bundle: String, inBundle: String, installed: String? = nil, sourceTree: String) {
            self.bundle = bundle
            self.inBundle = inBundle
            self.installed = installed ?? inBundle
            self.sourceTree = sourceTree
        }
    }

    /// Nothing found: every path tried, in order.
    public struct NotFound: Error, Sendable, Hashable, CustomStringConvertible {
        public var tried: [String]
        public var description: String { "not found (tried \(tried.joined(separator: ", ")))" }
    }

    /// What counts as found.
    public enum Kind: Sendable {
        case regularFile, directory

        func accepts(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
            return isDirectory.boolValue == (self == .directory)
        }
    }

    /// The first path of `place` that `accepts` takes. With `overrideVariable` set in `environment`, only its
    /// value is tried (named in ``NotFound/tried`` as `PATH (from VARIABLE)`).
    public static func locate(
        _ place: Place, kind: Kind = .regularFile, overrideVariable: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executableDirectories: [String] = executableDirectories(),
        accepts: ((String) -> Bool)? = nil
    ) throws(NotFound) -> URL {
        let accepts = accepts ?? kind.accepts
        if let overrideVariable, let named = environment[overrideVariable], !named.isEmpty {
            guard accepts(named) else { throw NotFound(tried: ["\(named) (from \(overrideVariable))"]) }
            return URL(fileURLWithPath: named)
        }
        let tried = candidates(place, executableDirectories: executableDirectories)
        guard let found = tried.first(where: accepts) else { throw NotFound(tried: tried) }
        return URL(fileURLWithPath: found)
    }

    /// Every place `place` may be, in search order, without duplicates.
    public static func candidates(_ place: Place, executableDirectories: [String]) -> [String] {
        var paths = executableDirectories.map { join($0, place.bundle, place.inBundle) }
        paths += executableDirectories.map { join(($0 as NSString).deletingLastPathComponent, "share/forecastd", place.installed) }
        paths += [join("/usr/local/share/forecastd", place.installed), join("/usr/share/forecastd", place.installed)]
        paths.append(place.sourceTree)
        var seen: Set<String> = []
        return paths.filter { seen.insert($0).inserted }
    }

    /// Directories the running executable may be in, most trustworthy first.
    public static func executableDirectories() -> [String] {
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
}
