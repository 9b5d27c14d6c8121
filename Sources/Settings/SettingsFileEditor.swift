import FileStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One key whose effective value an edit changed, for messages like `units: metric → imperial`.
public struct SettingsChange: Sendable, Hashable, CustomStringConvertible {
    /// The dotted key, `location.gpsd.port`.
    public var key: String
    /// The value before, as people read it; `nil` when the key had none (no pin yet).
    public var old: SettingsValue?
    /// The value after; `nil` when the key has none any more (the pin was removed).
    public var new: SettingsValue?

    public init(key: String, old: SettingsValue?, new: SettingsValue?) {
        self.key = key
        self.old = old
        self.new = new
    }

    /// `key: old → new`, with `(none)` for a missing value.
    public var description: String {
        "\(key): \(old?.description ?? "(none)") → \(new?.description ?? "(none)")"
    }
}

/// What an edit of the settings file did.
public struct SettingsFileEdit: Sendable, Hashable {
    /// The file written: the settings file found, with symbolic links followed.
    public var path: String
    /// Whether the file was created from the documented defaults.
    public var created: Bool
    /// Whether the file's bytes changed (and so whether it was written).
    public var written: Bool
    /// Every key whose effective value changed, in documentation order; empty when nothing changed.
    public var changes: [SettingsChange]
    /// The settings the file now gives.
    public var settings: Settings
    /// What the user should know about the file now, e.g. that others can read the API key in it.
    public var warnings: [SettingsWarning]
}

/// Edits a settings file safely: validates before and after, writes atomically, changes only what it must.
///
/// The order of events:
/// 1. An existing file is read and decoded. A file that already has errors is refused: the user
///    is shown every problem with its line and column, and the file is not touched.
/// 2. A missing file is started from ``Settings/documentedFileText`` (every key documented at its
///    default), in a directory created with mode 0700 if needed, to be written with mode 0600.
/// 3. The edits are applied to the text (``SettingsDocument``), and the whole result is decoded as
///    the daemon would. A result with any problem is refused; nothing is written.
/// 4. The new bytes replace the file with ``AtomicFile/write(_:to:mode:)``: a temporary file in the same
///    directory, flushed, then renamed over the file, so a crash leaves the old or the new file and
///    never a mix; the file keeps its mode and owner. A symbolic link is followed and stays a link.
///
/// Edits by two processes at once are serialized with a lock on the file's directory, so neither
/// is lost.
public enum SettingsFileEditor {
    /// Applies `edits` to the settings file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file to edit; see ``Settings/locate(explicit:environment:systemPath:)``.
    ///   - create: whether a missing file is created from the documented defaults; when false, a
    ///     missing file is an error.
    ///   - environment: the environment the result is validated in (it gives the default paths and
    ///     the API key from `$FORECASTD_OPENWEATHERMAP_API_KEY`).
    ///   - edits: the changes, made on the document.
    /// - Throws: ``SettingsEditError``: `.invalidFile` when the file has errors now, `.invalidRequest`
    ///   when the result would be invalid, `.fileSystem` when reading or writing failed.
    public static func edit(
        path: String,
        create: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        _ edits: (inout SettingsDocument) throws(SettingsEditError) -> Void
    ) throws(SettingsEditError) -> SettingsFileEdit {
        let target = resolvedPath(path)
        let directory = (target as NSString).deletingLastPathComponent
        let exists = FileManager.default.fileExists(atPath: target)
        if !exists {
            guard create else { throw SettingsEditError(.fileSystem, "\(target): no such file") }
            do {
                try AtomicFile.makeDirectory(directory.isEmpty ? "." : directory, mode: 0o700)
            } catch {
                throw SettingsEditError(.fileSystem, error.description)
            }
        }
        let lock = try DirectoryLock(directory.isEmpty ? "." : directory)
        defer { lock.release() }

        let defaults = Settings.defaults(environment: environment, isSystemService: false)
        let originalText: String
        let created = !FileManager.default.fileExists(atPath: target)
        if created {
            originalText = Settings.documentedFileText
        } else {
            do {
                originalText = try Settings.readSettingsFile(target)
            } catch {
                throw SettingsEditError(.fileSystem, error.description)
            }
        }
        let before: Settings
        do {
            before = try Settings.decode(originalText, path: target, defaults: defaults)
        } catch {
            throw SettingsEditError(
                .invalidFile,
                "\(target) has errors, so it was left as it is; fix them first:\n\(error.description)")
        }

        var document = SettingsDocument(originalText)
        try edits(&document)

        let after: Settings
        do {
            after = try Settings.decode(document.text, path: target, defaults: defaults)
        } catch {
            let problems = error.problems.map { "  " + describeWithoutPlace($0) }.joined(separator: "\n")
            throw SettingsEditError(
                .invalidRequest,
                "the change would make the settings invalid, so \(target) was not changed:\n\(problems)")
        }

        let written = created || document.text != originalText
        if written {
            do {
                try AtomicFile.write(Array(document.text.utf8), to: target, mode: 0o600)
            } catch {
                throw SettingsEditError(.fileSystem, error.description)
            }
        }
        return SettingsFileEdit(
            path: target, created: created, written: written, changes: changes(from: before, to: after),
            settings: after, warnings: Settings.warnings(for: after, path: target))
    }

    /// The keys whose effective values differ, in documentation order.
    public static func changes(from before: Settings, to after: Settings) -> [SettingsChange] {
        var changes = SettingsKey.all.compactMap { key -> SettingsChange? in
            let old = before.value(at: key.path)
            let new = after.value(at: key.path)
            return old == new ? nil : SettingsChange(key: key.description, old: old, new: new)
        }
        // The secret is shown only as where it comes from, which may not change when the key does.
        if before.providers.openWeatherMap.apiKey != after.providers.openWeatherMap.apiKey,
            !changes.contains(where: { $0.key == "providers.openweathermap.api_key" })
        {
            let shown = after.value(at: ["providers", "openweathermap", "api_key"])
            changes.append(SettingsChange(key: "providers.openweathermap.api_key", old: shown, new: shown))
        }
        if before.output.files != after.output.files {
            changes.append(
                SettingsChange(
                    key: "output.files", old: .integer(before.output.files.count),
                    new: .integer(after.output.files.count)))
        }
        let ids = { (settings: Settings) in settings.cities.map(\.id) }
        if ids(before) != ids(after) {
            changes.append(SettingsChange(key: "cities", old: .strings(ids(before)), new: .strings(ids(after))))
        }
        let favorites = { (settings: Settings) in settings.favoriteCities.map(\.id) }
        if favorites(before) != favorites(after) {
            changes.append(
                SettingsChange(
                    key: "cities (favorites)", old: .strings(favorites(before)), new: .strings(favorites(after))))
        }
        return changes
    }

    /// The path with symbolic links followed, so that the link stays and its target is replaced.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(validatingCString: resolved) ?? path
    }

    /// A problem of the text that was not written: its line and column point at nothing the user
    /// can open, so only the key and the problem are shown.
    static func describeWithoutPlace(_ problem: SettingsProblem) -> String {
        var text = ""
        if let keyPath = problem.keyPath { text += keyPath + ": " }
        text += problem.message
        if let allowed = problem.allowed { text += " (allowed: \(allowed))" }
        return text
    }
}

/// An exclusive `flock` on a directory, held while one editor reads, checks and replaces a file in it.
///
/// The file itself cannot be locked: it is replaced by a rename, and a lock on the old file would
/// not stop a second editor that opened the new one.
struct DirectoryLock {
    private let descriptor: Int32

    init(_ path: String) throws(SettingsEditError) {
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SettingsEditError(
                .fileSystem, "\(path): cannot open the directory: \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw SettingsEditError(.fileSystem, "\(path): cannot lock the directory: \(reason)")
            }
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
