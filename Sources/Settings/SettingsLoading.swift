import FileStore
import ForecastModel
import Foundation

// Reading a settings file: found, opened safely, decoded over the defaults, with the warnings its
// files deserve.

extension Settings {
    /// Reads and decodes the settings file at `path`, over the defaults for this environment.
    ///
    /// - Throws: ``SettingsError`` naming the file when it cannot be read, or listing every problem
    ///   in it with its line and column.
    public static func load(
        from path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isSystemService: Bool
    ) throws(SettingsError) -> Settings {
        let text = try readSettingsFile(path)
        return try decode(
            text, path: path, defaults: defaults(environment: environment, isSystemService: isSystemService))
    }

    /// The settings `source` leads to: the file's, or the defaults when there is none.
    public static func load(
        _ source: SettingsSource,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isSystemService: Bool
    ) throws(SettingsError) -> Settings {
        guard let path = source.path else {
            return defaults(environment: environment, isSystemService: isSystemService)
        }
        return try load(from: path, environment: environment, isSystemService: isSystemService)
    }

    /// Reads the settings `source` leads to, with the warnings the files deserve.
    ///
    /// The settings are those of ``load(_:environment:isSystemService:)``. A warning is added for
    /// each file holding an API key (the settings file with `api_key`, or the `api_key_file`) that
    /// users other than its owner may read.
    public static func loadWithWarnings(
        _ source: SettingsSource,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isSystemService: Bool
    ) throws(SettingsError) -> LoadedSettings {
        let settings = try load(source, environment: environment, isSystemService: isSystemService)
        return LoadedSettings(settings: settings, warnings: warnings(for: settings, path: source.path))
    }

    /// The warnings the files behind `settings` deserve; `path` is the settings file, if any.
    public static func warnings(for settings: Settings, path: String?) -> [SettingsWarning] {
        let holder: String? =
            switch settings.providers.openWeatherMap.apiKey?.origin {
            case .settingsFile: path
            case .keyFile(let keyFile): keyFile
            case .environment, nil: nil
            }
        guard let holder else { return [] }
        var info = stat()
        guard stat(holder, &info) == 0, info.st_mode & 0o044 != 0 else { return [] }
        return [
            SettingsWarning(
                path: holder, message: "holds an API key and is readable by other users; chmod 600 \(holder)")
        ]
    }

    /// Decodes the text of a settings file: `defaults`, overlaid with what the file sets.
    ///
    /// Every key is checked: unknown keys, wrong types, out-of-range numbers, unknown names, incomplete
    /// pins and malformed URLs are all collected, so the error lists every problem, not only the first.
    ///
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - path: the file's path, used only in messages.
    ///   - defaults: the values of keys the file leaves out.
    public static func decode(_ text: String, path: String, defaults: Settings) throws(SettingsError) -> Settings {
        var decoder = SettingsDecoder(text: text, path: path)
        let settings = decoder.decode(over: defaults)
        if !decoder.problems.isEmpty {
            throw SettingsError(problems: decoder.sortedProblems, path: path)
        }
        return settings
    }

    /// The largest settings file read; anything bigger is not a settings file. The documented file is
    /// 10 KB: 1 MiB leaves room for long comments and hundreds of cities, and bounds what one reload
    /// of a hostile file can cost (decoding is linear, and toml++ keeps a few times the text in memory).
    static let maximumFileSize = 1 << 20

    /// Reads the settings file at `path`: a regular file of at most ``maximumFileSize`` bytes of UTF-8.
    ///
    /// The file is opened without blocking and checked before it is read, so a FIFO, a device or a
    /// socket at the settings path is refused at once instead of waiting for a writer forever.
    public static func readSettingsFile(_ path: String) throws(SettingsError) -> String {
        do {
            return try readSettingsFileOrSay(path)
        } catch {
            throw error.error
        }
    }

    /// Why a settings file could not be read: it could not be opened or read (``isNotASettingsFile``
    /// false), or what it holds is no settings file (a directory, a FIFO, too large, not UTF-8).
    struct ReadFailure: Error {
        var error: SettingsError
        var isNotASettingsFile: Bool
    }

    /// ``readSettingsFile(_:)``, saying which kind of failure it met.
    static func readSettingsFileOrSay(_ path: String) throws(ReadFailure) -> String {
        func failure(_ message: String, allowed: String? = nil, notASettingsFile: Bool = true) -> ReadFailure {
            ReadFailure(
                error: SettingsError(SettingsProblem(path: path, message: message, allowed: allowed)),
                isNotASettingsFile: notASettingsFile)
        }
        let data: Data
        do {
            data = try BoundedFile.read(path, maximumBytes: maximumFileSize)
        } catch {
            switch error {
            case .missing, .unreadable: throw failure(error.description, notASettingsFile: false)
            case .symbolicLinkLoop: throw failure("\(error.description), not a settings file")
            case .notARegularFile(let kind):
                throw failure("is \(kind), not a settings file", allowed: kind == .directory ? nil : "a regular file")
            case .tooLarge(let limit):
                throw failure("is larger than a settings file can be", allowed: "at most \(ByteCount(limit))")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw failure("is not UTF-8 text", allowed: "a UTF-8 TOML file")
        }
        return text
    }
}
