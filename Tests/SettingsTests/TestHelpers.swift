import Foundation
import TestSupport
import Testing

@testable import Settings

/// A fresh directory under the system temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/forecastd-settings-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let created else { throw CocoaError(.fileWriteUnknown) }
        // Canonical (no `//`, no symbolic links), as the editor reports the paths it writes.
        path = URL(fileURLWithPath: String(cString: created)).resolvingSymlinksInPath().path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` at `relativePath`, creating directories on the way, and returns the full path.
    @discardableResult
    func write(_ text: String, to relativePath: String) throws -> String {
        let full = path + "/" + relativePath
        let directory = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// The environment of a desktop user session, as the tests' common baseline.
let userEnvironment = [
    "HOME": "/home/u",
    "XDG_RUNTIME_DIR": "/run/user/1000",
]

/// The path problems are reported under in decoding tests.
let settingsPath = "/home/u/.config/forecastd/forecastd.toml"

let userDefaults = Settings.defaults(environment: userEnvironment, isSystemService: false, userID: 1000)

/// Decodes `text` over the user defaults and returns the error's lines, failing the test if it decodes.
func problems(in text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    do {
        _ = try Settings.decode(text, path: settingsPath, defaults: userDefaults)
        Issue.record("expected the settings to be rejected", sourceLocation: sourceLocation)
        return []
    } catch {
        return error.problems.map(\.description)
    }
}
