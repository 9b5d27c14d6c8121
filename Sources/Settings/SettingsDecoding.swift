import ForecastModel
import Foundation
import TOMLKit

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
            throw SettingsError(problems: decoder.sortedProblems)
        }
        return settings
    }

    /// The largest settings file read; anything bigger is not a hand-written settings file.
    static let maximumFileSize = 1 << 20

    static func readSettingsFile(_ path: String) throws(SettingsError) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw SettingsError(SettingsProblem(path: path, message: "is a directory, not a settings file"))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let message = code == ENOENT ? "no such file" : "cannot be read: \(String(cString: strerror(code)))"
            throw SettingsError(SettingsProblem(path: path, message: message))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data: Data
        do {
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw SettingsError(SettingsProblem(path: path, message: "cannot be read: \(error)"))
        }
        guard data.count <= maximumFileSize else {
            throw SettingsError(
                SettingsProblem(
                    path: path, message: "is larger than a settings file can be", allowed: "at most 1 MiB"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SettingsError(
                SettingsProblem(path: path, message: "is not UTF-8 text", allowed: "a UTF-8 TOML file"))
        }
        return text
    }
}

/// Walks a parsed document against ``SettingsSchema``, collecting every problem with its place.
struct SettingsDecoder {
    let text: String
    let path: String
    let map: TOMLSourceMap
    private(set) var problems: [SettingsProblem] = []

    init(text: String, path: String) {
        self.text = text
        self.path = path
        self.map = TOMLSourceMap(text)
    }

    /// The problems by line and column; problems at the same place keep the order they were found in.
    var sortedProblems: [SettingsProblem] {
        problems.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.line ?? .max, lhs.element.column ?? .max, lhs.offset)
            let right = (rhs.element.line ?? .max, rhs.element.column ?? .max, rhs.offset)
            return left < right
        }.map(\.element)
    }

    mutating func decode(over defaults: Settings) -> Settings {
        // toml++ reads a C string: a NUL would silently end the document there.
        if let nul = map.bytes.firstIndex(of: 0) {
            let position = map.position(ofByte: nul)
            problems.append(
                SettingsProblem(
                    path: path, line: position.line, column: position.column,
                    message: "contains a NUL character, which TOML does not allow"))
            return defaults
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            problems.append(
                SettingsProblem(
                    path: path, line: error.source.begin.line, column: error.source.begin.column,
                    message: "invalid TOML: " + Self.lowercasingFirstLetter(error.description)))
            return defaults
        } catch {
            problems.append(SettingsProblem(path: path, message: "invalid TOML: \(error)"))
            return defaults
        }

        var settings = defaults
        checkKeys(of: root, at: [])

        if let units: UnitSystem = choice(root, "units", at: [], noun: "a unit system") {
            settings.units = units
        }
        if let minutes = integer(root, "refresh_minutes", at: [], in: 1...1440) {
            settings.refreshMinutes = minutes
        }
        if let location = table(root, "location", at: []) {
            decodeLocation(location, into: &settings.location)
        }
        if settings.location.mode == .pinned && settings.location.pin == nil && !hasValue(["location", "pin"], root) {
            report(
                ["location", "mode"], at: .value, "\"pinned\" needs a [location.pin] table with latitude and longitude")
        }
        if let providers = table(root, "providers", at: []),
            let openMeteo = table(providers, "open_meteo", at: ["providers"])
        {
            let path = ["providers", "open_meteo"]
            if let url = httpURL(openMeteo, "url", at: path) {
                settings.providers.openMeteo.url = url
            }
            if let timeout = integer(openMeteo, "timeout_seconds", at: path, in: 1...120) {
                settings.providers.openMeteo.timeoutSeconds = timeout
            }
        }
        if let output = table(root, "output", at: []) {
            if let statusFile = absolutePath(output, "status_file", at: ["output"]) {
                settings.output.statusFile = statusFile
            }
            if let socket = absolutePath(output, "socket", at: ["output"]) {
                // sun_path holds 108 bytes including the terminating NUL.
                if socket.utf8.count > 107 {
                    report(
                        ["output", "socket"], at: .value,
                        "is \(socket.utf8.count) bytes long, too long for a Unix socket path",
                        allowed: "at most 107 bytes")
                } else {
                    settings.output.socket = socket
                }
            }
        }
        return settings
    }

    private mutating func decodeLocation(_ location: TOMLTable, into settings: inout Settings.Location) {
        let path = ["location"]
        if let mode: Settings.LocationMode = choice(location, "mode", at: path, noun: "a location mode") {
            settings.mode = mode
        }
        if let distance = number(location, "refresh_distance_km", at: path, in: 0.1...1000) {
            settings.refreshDistanceKm = distance
        }
        if let pin = table(location, "pin", at: path) {
            let pinPath = path + ["pin"]
            let latitude = number(pin, "latitude", at: pinPath, in: -90...90)
            let longitude = number(pin, "longitude", at: pinPath, in: -180...180)
            let name = nonEmptyString(pin, "name", at: pinPath, allowed: "a non-empty name, or no name key at all")
            var complete = true
            for (key, range) in [("latitude", "-90...90"), ("longitude", "-180...180")] where pin[key] == nil {
                complete = false
                report(
                    pinPath + [key], at: .value, "missing; a pin needs both latitude and longitude",
                    allowed: range, anchor: pinPath)
            }
            if complete, let latitude, let longitude {
                let coordinate = Coordinate(latitude: latitude, longitude: longitude)
                if latitude == 0 && longitude == 0 {
                    report(
                        pinPath, at: .value,
                        "\(Self.render(number: latitude)), \(Self.render(number: longitude)) is \"null island\", "
                            + "where receivers without a fix claim to be",
                        allowed: "any other point")
                } else if pin["name"] == nil || name != nil {
                    settings.pin = Settings.Pin(coordinate: coordinate, name: name)
                }
            }
        }
        if let gpsd = table(location, "gpsd", at: path) {
            let gpsdPath = path + ["gpsd"]
            if let enabled = boolean(gpsd, "enabled", at: gpsdPath) {
                settings.gpsd.enabled = enabled
            }
            if let host = nonEmptyString(gpsd, "host", at: gpsdPath, allowed: "a host name or IP address") {
                settings.gpsd.host = host
            }
            if let port = integer(gpsd, "port", at: gpsdPath, in: 1...65535) {
                settings.gpsd.port = port
            }
            if let age = integer(gpsd, "max_fix_age_seconds", at: gpsdPath, in: 1...86400) {
                settings.gpsd.maxFixAgeSeconds = age
            }
        }
    }

    // MARK: Reading values

    /// Whether the document has a value at `keyPath`, whatever its type.
    private func hasValue(_ keyPath: [String], _ root: TOMLTable) -> Bool {
        var table = root
        for (offset, key) in keyPath.enumerated() {
            guard let value = table[key] else { return false }
            if offset == keyPath.count - 1 { return true }
            guard let next = value.table else { return false }
            table = next
        }
        return true
    }

    private mutating func checkKeys(of table: TOMLTable, at tablePath: [String]) {
        guard let allowed = SettingsSchema.keys(of: tablePath) else { return }
        for key in table.keys where !allowed.contains(key) {
            report(tablePath + [key], at: .key, "unknown key", allowed: allowed.joined(separator: ", "))
        }
    }

    /// The table at `key`, with its keys checked; `nil` when absent or not a table.
    private mutating func table(_ parent: TOMLTable, _ key: String, at path: [String]) -> TOMLTable? {
        guard let value = parent[key] else { return nil }
        guard value.type == .table, let table = value.table else {
            report(path + [key], at: .value, "expected a table, found \(Self.describe(value.type))")
            return nil
        }
        checkKeys(of: table, at: path + [key])
        return table
    }

    private mutating func integer(
        _ table: TOMLTable, _ key: String, at path: [String], in range: ClosedRange<Int>
    ) -> Int? {
        guard let value = table[key] else { return nil }
        guard value.type == .int, let integer = value.int else {
            report(path + [key], at: .value, "expected an integer, found \(Self.describe(value.type))")
            return nil
        }
        guard range.contains(integer) else {
            report(
                path + [key], at: .value, "\(integer) is out of range",
                allowed: "\(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return integer
    }

    /// A number; integers are accepted where a fraction is allowed (`latitude = 45`).
    private mutating func number(
        _ table: TOMLTable, _ key: String, at path: [String], in range: ClosedRange<Double>
    ) -> Double? {
        guard let value = table[key] else { return nil }
        let number: Double
        let written: String
        if value.type == .double, let double = value.double {
            number = double
            written = Self.render(number: double)
        } else if value.type == .int, let integer = value.int {
            number = Double(integer)
            written = String(integer)
        } else {
            report(path + [key], at: .value, "expected a number, found \(Self.describe(value.type))")
            return nil
        }
        // NaN fails `contains`, so it is reported here too.
        guard range.contains(number) else {
            report(
                path + [key], at: .value, "\(written) is out of range",
                allowed: "\(Self.render(bound: range.lowerBound))...\(Self.render(bound: range.upperBound))")
            return nil
        }
        return number
    }

    private mutating func boolean(_ table: TOMLTable, _ key: String, at path: [String]) -> Bool? {
        guard let value = table[key] else { return nil }
        guard value.type == .bool, let boolean = value.bool else {
            report(path + [key], at: .value, "expected a boolean, found \(Self.describe(value.type))")
            return nil
        }
        return boolean
    }

    private mutating func string(_ table: TOMLTable, _ key: String, at path: [String]) -> String? {
        guard let value = table[key] else { return nil }
        guard value.type == .string, let string = value.string else {
            report(path + [key], at: .value, "expected a string, found \(Self.describe(value.type))")
            return nil
        }
        return string
    }

    private mutating func nonEmptyString(
        _ table: TOMLTable, _ key: String, at path: [String], allowed: String
    ) -> String? {
        guard let string = string(table, key, at: path) else { return nil }
        guard !string.trimmingCharacters(in: .whitespaces).isEmpty else {
            report(path + [key], at: .value, "must not be empty", allowed: allowed)
            return nil
        }
        return string
    }

    private mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ table: TOMLTable, _ key: String, at path: [String], noun: String
    ) -> Choice? where Choice.RawValue == String {
        guard let string = string(table, key, at: path) else { return nil }
        guard let choice = Choice(rawValue: string) else {
            report(
                path + [key], at: .value, "\(Self.quote(string)) is not \(noun)",
                allowed: Choice.allCases.map { Self.quote($0.rawValue) }.joined(separator: ", "))
            return nil
        }
        return choice
    }

    private mutating func httpURL(_ table: TOMLTable, _ key: String, at path: [String]) -> URL? {
        guard let string = string(table, key, at: path) else { return nil }
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty,
            let url = components.url
        else {
            report(
                path + [key], at: .value, "\(Self.quote(string)) is not an http or https URL",
                allowed: "a URL such as \"https://api.open-meteo.com/v1/forecast\"")
            return nil
        }
        return url
    }

    private mutating func absolutePath(_ table: TOMLTable, _ key: String, at path: [String]) -> String? {
        guard let string = string(table, key, at: path) else { return nil }
        guard string.hasPrefix("/"), !string.hasSuffix("/"), !string.utf8.contains(0) else {
            report(
                path + [key], at: .value, "\(Self.quote(string)) is not an absolute path to a file",
                allowed: "a path starting with \"/\"")
            return nil
        }
        return string
    }

    // MARK: Reporting

    enum Anchor {
        /// Where the key is written: for keys that should not be there.
        case key
        /// Where the value starts: for values that are wrong.
        case value
    }

    /// Records a problem at `keyPath`, placed at the key or value of `anchor` (by default `keyPath` itself).
    private mutating func report(
        _ keyPath: [String], at place: Anchor, _ message: String, allowed: String? = nil, anchor: [String]? = nil
    ) {
        let anchorPath = anchor ?? keyPath
        let position = place == .key ? map.keyPosition(of: anchorPath) : map.valuePosition(of: anchorPath)
        problems.append(
            SettingsProblem(
                path: path, line: position?.line, column: position?.column, keyPath: Self.render(keyPath: keyPath),
                message: message, allowed: allowed))
    }

    // MARK: Rendering

    /// A key path as TOML writes it: bare components, and quoted ones where a bare key cannot say it.
    static func render(keyPath: [String]) -> String {
        keyPath.map { component in
            let isBare =
                !component.isEmpty
                && component.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                        || $0 == "-"
                }
            return isBare ? component : quote(component)
        }.joined(separator: ".")
    }

    /// A string as a TOML basic string, so messages show exactly what was read.
    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A floating-point value as TOML spells it (`95.0`, `nan`, `inf`, `-inf`).
    static func render(number: Double) -> String {
        "\(number)"
    }

    /// A range bound: `90` rather than `90.0`, `0.1` as is.
    static func render(bound: Double) -> String {
        bound == bound.rounded() && abs(bound) < 1e15 ? String(Int(bound)) : "\(bound)"
    }

    /// A TOML type with its article: `an integer`, `a string`.
    static func describe(_ type: TOMLType) -> String {
        switch type {
        case .table: "a table"
        case .array: "an array"
        case .string: "a string"
        case .int: "an integer"
        case .double: "a floating-point number"
        case .bool: "a boolean"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }

    static func lowercasingFirstLetter(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
