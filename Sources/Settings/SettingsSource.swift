import FileStore
import Foundation

/// Which settings file forecastd reads, why that one, and which paths were looked at.
public enum SettingsSource: Sendable, Hashable {
    /// Why a file was chosen.
    public enum Origin: Sendable, Hashable {
        /// `--config PATH`.
        case commandLine
        /// `$FORECASTD_CONFIG`.
        case environment
        /// `$XDG_CONFIG_HOME/forecastd/forecastd.toml` (or `~/.config/forecastd/forecastd.toml`).
        case userConfiguration
        /// `/etc/forecastd/forecastd.toml`.
        case systemConfiguration
    }

    /// The file at `path` is read.
    case file(path: String, origin: Origin, searched: [String])
    /// No file exists at any searched path; the built-in defaults apply.
    case builtInDefaults(searched: [String])

    /// The file to read, or `nil` for the built-in defaults.
    public var path: String? {
        switch self {
        case .file(let path, _, _): path
        case .builtInDefaults: nil
        }
    }

    /// The paths looked at, in order, up to and including the one chosen.
    public var searched: [String] {
        switch self {
        case .file(_, _, let searched), .builtInDefaults(let searched): searched
        }
    }
}

extension Settings {
    /// The system-wide settings file, the last place searched.
    public static let systemConfigurationPath = "/etc/forecastd/forecastd.toml"

    /// The user's settings file: `$XDG_CONFIG_HOME/forecastd/forecastd.toml`, or
    /// `~/.config/forecastd/forecastd.toml` when `XDG_CONFIG_HOME` is unset or not absolute.
    public static func userConfigurationPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let configHome = absolutePath(environment["XDG_CONFIG_HOME"]) ?? join(homeDirectory(environment), ".config")
        return join(configHome, "forecastd/forecastd.toml")
    }

    /// Finds the settings file to read.
    ///
    /// In order: `explicit` (from `--config PATH`), `$FORECASTD_CONFIG`, the user's file
    /// (``userConfigurationPath(environment:)``), then `systemPath`. A path the user named, by flag or
    /// variable, must exist; the user and system files are skipped when absent, and when none exists
    /// the result is ``SettingsSource/builtInDefaults(searched:)``.
    ///
    /// - Parameters:
    ///   - explicit: the `--config` argument, if any.
    ///   - environment: the process environment.
    ///   - systemPath: the system-wide file; tests point it elsewhere.
    /// - Throws: ``SettingsError`` `PATH: no such file` when a named path does not exist.
    public static func locate(
        explicit: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        systemPath: String = systemConfigurationPath
    ) throws(SettingsError) -> SettingsSource {
        if let explicit {
            try requireFile(explicit)
            return .file(path: explicit, origin: .commandLine, searched: [explicit])
        }
        if let named = environment["FORECASTD_CONFIG"], !named.isEmpty {
            try requireFile(named)
            return .file(path: named, origin: .environment, searched: [named])
        }
        let userPath = userConfigurationPath(environment: environment)
        if isRegularFile(userPath) {
            return .file(path: userPath, origin: .userConfiguration, searched: [userPath])
        }
        if isRegularFile(systemPath) {
            return .file(path: systemPath, origin: .systemConfiguration, searched: [userPath, systemPath])
        }
        return .builtInDefaults(searched: [userPath, systemPath])
    }

    private static func requireFile(_ path: String) throws(SettingsError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            // A symbolic link loop exists, but leads nowhere: say so, not "no such file".
            let failure = BoundedFile.failure(errno: errno)
            throw SettingsError(
                SettingsProblem(path: path, message: failure == .missing ? "no such file" : "\(failure)"))
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw SettingsError(SettingsProblem(path: path, message: "is a directory, not a settings file"))
        }
    }

    /// Whether the user's or the system's file is there to be read: anything but a directory, and a symbolic link
    /// loop too (reading it then says what it is, rather than the defaults applying without a word).
    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT != S_IFDIR }
        return errno == ELOOP
    }
}
