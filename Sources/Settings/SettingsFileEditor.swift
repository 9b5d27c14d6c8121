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
    /// When the change takes effect in a running daemon.
    public var application: SettingsApplication

    public init(key: String, old: SettingsValue?, new: SettingsValue?, application: SettingsApplication = .live) {
        self.key = key
        self.old = old
        self.new = new
        self.application = application
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
    /// Whether the file was created (from the settings in effect).
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
/// 2. A missing file is refused, or started from the settings in effect as the target says
///    (``MissingSettingsFile``), in a directory created with mode 0700 if needed, to be written with
///    mode 0600.
/// 3. The edits are applied to the text (``SettingsDocument``), and the whole result is decoded as
///    the daemon would. A result with any problem is refused; nothing is written.
/// 4. The new bytes replace the file with ``AtomicFile/write(_:to:mode:)``: a temporary file in the same
///    directory, flushed, then renamed over the file, so a crash leaves the old or the new file and
///    never a mix; the file keeps its mode and owner. A symbolic link is followed and stays a link.
///
/// Edits by two processes at once are serialized with a lock on the file's directory, so neither
/// is lost.
public enum SettingsFileEditor {
    /// Applies `edits` to the settings file of `target`.
    ///
    /// - Parameters:
    ///   - target: the file to edit and what to do when it is missing; see
    ///     ``SettingsEditTarget/locate(explicit:environment:systemPath:inEffect:defaults:)``.
    ///   - environment: the environment the result is validated in (it gives the default paths and
    ///     the API key from `$FORECASTD_OPENWEATHERMAP_API_KEY`).
    ///   - edits: the changes, made on the document.
    /// - Throws: ``SettingsEditError``: `.invalidFile` when the file has errors now, or is missing and
    ///   may not be created; `.invalidRequest` when the result would be invalid; `.fileSystem` when
    ///   reading or writing failed.
    public static func edit(
        _ target: SettingsEditTarget,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        _ edits: (inout SettingsDocument) throws(SettingsEditError) -> Void
    ) throws(SettingsEditError) -> SettingsFileEdit {
        let path = resolvedPath(target.path)
        let directory = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: path) {
            guard case .create = target.whenMissing else {
                throw SettingsEditError(
                    .invalidFile,
                    "\(path) does not exist, so nothing was written: the settings in effect may have come from "
                        + "it, and a new file would undo them. Restore it, or start one with "
                        + "`forecastctl config default > \(path)`")
            }
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
        let created = !FileManager.default.fileExists(atPath: path)
        if created {
            guard case .create(let inEffect, let inEffectDefaults) = target.whenMissing else {
                throw SettingsEditError(.invalidFile, "\(path) does not exist, so nothing was written")
            }
            originalText = Settings.documentedText(settings: inEffect, defaults: inEffectDefaults)
        } else {
            do {
                originalText = try Settings.readSettingsFileOrSay(path)
            } catch {
                // A directory or a binary file at the path is a settings problem (exit 78), not a failed read.
                throw SettingsEditError(error.isNotASettingsFile ? .invalidFile : .fileSystem, error.error.description)
            }
        }
        let before: Settings
        do {
            before = try Settings.decode(originalText, path: path, defaults: defaults)
        } catch {
            throw SettingsEditError(
                .invalidFile,
                "\(path) has errors, so it was left as it is; fix them first:\n\(error.description)")
        }

        var document = SettingsDocument(originalText)
        try edits(&document)

        let after: Settings
        do {
            after = try Settings.decode(document.text, path: path, defaults: defaults)
        } catch {
            let problems = error.problems.map { "  " + describeWithoutPlace($0) }.joined(separator: "\n")
            throw SettingsEditError(
                .invalidRequest,
                "the change would make the settings invalid, so \(path) was not changed:\n\(problems)")
        }

        let written = created || document.text != originalText
        if written {
            do {
                try AtomicFile.write(Array(document.text.utf8), to: path, mode: 0o600)
            } catch {
                throw SettingsEditError(.fileSystem, error.description)
            }
        }
        return SettingsFileEdit(
            path: path, created: created, written: written, changes: SettingsTable.changes(from: before, to: after),
            settings: after, warnings: Settings.warnings(for: after, path: path))
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
