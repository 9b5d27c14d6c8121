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
            throw SettingsError(problems: decoder.sortedProblems)
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
    static func readSettingsFile(_ path: String) throws(SettingsError) -> String {
        func refusal(_ message: String, allowed: String? = nil) -> SettingsError {
            SettingsError(SettingsProblem(path: path, message: message, allowed: allowed))
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw refusal(code == ENOENT ? "no such file" : "cannot be read: \(String(cString: strerror(code)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw refusal("cannot be read: \(String(cString: strerror(errno)))")
        }
        if let kind = FileKind(mode: info.st_mode) {
            throw refusal("is \(kind), not a settings file", allowed: kind == .directory ? nil : "a regular file")
        }
        guard info.st_size <= maximumFileSize else {
            throw refusal("is larger than a settings file can be", allowed: "at most 1 MiB")
        }
        let data: Data
        do {
            // Read one byte more than allowed, in case the file grew since fstat.
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw refusal("cannot be read: \(error)")
        }
        guard data.count <= maximumFileSize else {
            throw refusal("is larger than a settings file can be", allowed: "at most 1 MiB")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw refusal("is not UTF-8 text", allowed: "a UTF-8 TOML file")
        }
        return text
    }

    /// What a path holds when it is not a regular file.
    enum FileKind: String, CustomStringConvertible {
        case directory = "a directory"
        case fifo = "a FIFO"
        case socket = "a socket"
        case device = "a device"

        /// `nil` for a regular file.
        init?(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: return nil
            case S_IFDIR: self = .directory
            case S_IFIFO: self = .fifo
            case S_IFSOCK: self = .socket
            default: self = .device
            }
        }

        var description: String { rawValue }
    }
}

/// Walks a parsed document against ``SettingsSchema``, collecting every problem with its place.
struct SettingsDecoder {
    let text: String
    let path: String
    let map: TOMLSourceMap
    private(set) var problems: [SettingsProblem] = []
    /// The steps decoding took: the source map's, and every statement or value looked at since. Tests
    /// bound it to keep decoding linear in the size of the file.
    private(set) var cost = 0
    /// The `[[table]]` being decoded and its index: problems inside it are placed in that table.
    private var arrayElement: (path: [String], index: Int)?
    /// The statements of each `[[table]]` header, by its path: found once, used for every problem.
    private var elementHeaders: [[String]: [Int]] = [:]
    /// Each `[[table]]` whose problems were placed, by path and index.
    private var elementTables: [[String]: [Int: ElementTable]] = [:]

    init(text: String, path: String) {
        self.text = text
        self.path = path
        self.map = TOMLSourceMap(text)
        self.cost = map.scanCost
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
        if let providers = table(root, "providers", at: []) {
            decodeProviders(providers, into: &settings.providers)
        }
        if settings.providers.order.contains(.openWeatherMap) && settings.providers.openWeatherMap.apiKey == nil {
            report(
                ["providers", "order"], at: .value, "\"openweathermap\" needs an API key",
                allowed:
                    "set providers.openweathermap.api_key or api_key_file, or $\(Settings.openWeatherMapKeyVariable)")
        }
        if let output = table(root, "output", at: []) {
            decodeOutput(output, into: &settings.output)
        }
        if let display = table(root, "display", at: []) {
            decodeDisplay(display, into: &settings.display)
        }
        if let history = table(root, "history", at: []) {
            if let days = integer(history, "retention_days", at: ["history"], in: 1...36_500) {
                settings.history.retentionDays = days
            }
        }
        if let cities = root["cities"] {
            decodeCities(cities, into: &settings.cities)
        }
        return settings
    }

    private mutating func decodeLocation(_ location: TOMLTable, into settings: inout Settings.Location) {
        let path = ["location"]
        if let mode: LocationMode = choice(location, "mode", at: path, noun: "a location mode") {
            settings.mode = mode
        }
        if let distance = number(location, "refresh_distance_km", at: path, in: 0.1...1000) {
            settings.refreshDistanceKm = distance
        }
        if let naming: Settings.PlaceNaming = choice(location, "naming", at: path, noun: "a naming rule") {
            settings.naming = naming
        }
        if let staticFile = optionalAbsolutePath(location, "static_file", at: path) {
            settings.staticFile = staticFile.isEmpty ? nil : staticFile
        }
        if let speed = number(location, "max_speed_kmh", at: path, in: 1...100_000) {
            settings.maxSpeedKmh = speed
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
                    settings.pin = Pin(coordinate: coordinate, name: name)
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
            if let minutes = integer(gpsd, "recent_fix_minutes", at: gpsdPath, in: 0...1440) {
                settings.gpsd.recentFixMinutes = minutes
            }
        }
        if let ip = table(location, "ip", at: path) {
            let ipPath = path + ["ip"]
            if let enabled = boolean(ip, "enabled", at: ipPath) {
                settings.ip.enabled = enabled
            }
            if let services: [IPGeolocationService] = choices(
                ip, "services", at: ipPath, noun: "an IP geolocation service")
            {
                settings.ip.services = services
            }
            for service in IPGeolocationService.allCases {
                if let url = httpURL(ip, Self.urlKey(of: service), at: ipPath) {
                    settings.ip.urls[service] = url
                }
            }
        }
    }

    /// The key of an IP geolocation service's endpoint: `ip-api` is `ip_api_url`.
    static func urlKey(of service: IPGeolocationService) -> String {
        service.rawValue.replacingOccurrences(of: "-", with: "_") + "_url"
    }

    private mutating func decodeProviders(_ providers: TOMLTable, into settings: inout Settings.Providers) {
        let path = ["providers"]
        if let order: [ProviderName] = choices(providers, "order", at: path, noun: "a weather provider") {
            settings.order = order
        }
        if let precision = integer(providers, "coordinate_precision", at: path, in: 0...4) {
            settings.coordinatePrecision = precision
        }
        if let openMeteo = table(providers, "open_meteo", at: path) {
            let tablePath = path + ["open_meteo"]
            if let url = httpURL(openMeteo, "url", at: tablePath) {
                settings.openMeteo.url = url
            }
            // "" switches the online search off; anything else must be an http(s) URL.
            if openMeteo["geocoding_url"]?.string == "" {
                settings.openMeteo.geocodingURL = nil
            } else if let url = httpURL(openMeteo, "geocoding_url", at: tablePath) {
                settings.openMeteo.geocodingURL = url
            }
            if let timeout = integer(openMeteo, "timeout_seconds", at: tablePath, in: 1...120) {
                settings.openMeteo.timeoutSeconds = timeout
            }
        }
        if let metNorway = table(providers, "met_norway", at: path) {
            let tablePath = path + ["met_norway"]
            if let url = httpURL(metNorway, "url", at: tablePath) {
                settings.metNorway.url = url
            }
            if let contact = string(metNorway, "contact", at: tablePath) {
                settings.metNorway.contact = contact.trimmingCharacters(in: .whitespaces)
            }
            if let timeout = integer(metNorway, "timeout_seconds", at: tablePath, in: 1...120) {
                settings.metNorway.timeoutSeconds = timeout
            }
        }
        if let openWeatherMap = table(providers, "openweathermap", at: path) {
            decodeOpenWeatherMap(openWeatherMap, into: &settings.openWeatherMap)
        }
    }

    private mutating func decodeOpenWeatherMap(_ table: TOMLTable, into settings: inout Settings.OpenWeatherMap) {
        let path = ["providers", "openweathermap"]
        if let url = httpURL(table, "url", at: path) {
            settings.url = url
        }
        if let oneCall = boolean(table, "one_call", at: path) {
            settings.oneCall = oneCall
        }
        if let timeout = integer(table, "timeout_seconds", at: path, in: 1...120) {
            settings.timeoutSeconds = timeout
        }
        let key = string(table, "api_key", at: path)?.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyFile = optionalAbsolutePath(table, "api_key_file", at: path)
        if let keyFile, !keyFile.isEmpty {
            settings.apiKeyFile = keyFile
        }
        // The file's own key wins, then the key file, then the environment (already in the defaults).
        if let key, !key.isEmpty {
            settings.apiKey = Secret(key, origin: .settingsFile)
        } else if let keyFile, !keyFile.isEmpty {
            switch Self.readKeyFile(keyFile) {
            case .success(let secret):
                settings.apiKey = Secret(secret, origin: .keyFile(path: keyFile))
            case .failure(let problem):
                report(
                    path + ["api_key_file"], at: .value, "\(Self.quote(keyFile)) \(problem.message)",
                    allowed: problem.allowed)
            }
        }
    }

    /// Why a key file gave no key.
    struct KeyFileProblem: Error {
        var message: String
        var allowed: String?
    }

    /// The first line of the key file at `path`, trimmed.
    static func readKeyFile(_ path: String) -> Result<String, KeyFileProblem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            return .failure(
                KeyFileProblem(
                    message: code == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(code)))",
                    allowed: "a readable file whose first line is the API key"))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        let firstLine = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
        let key = firstLine.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !key.isEmpty else {
            return .failure(KeyFileProblem(message: "is empty", allowed: "a file whose first line is the API key"))
        }
        return .success(key)
    }

    private mutating func decodeOutput(_ output: TOMLTable, into settings: inout Settings.Output) {
        let path = ["output"]
        if let statusFile = absolutePath(output, "status_file", at: path) {
            settings.statusFile = statusFile
        }
        if let socket = absolutePath(output, "socket", at: path) {
            // sun_path holds 108 bytes including the terminating NUL.
            if socket.utf8.count > 107 {
                report(
                    path + ["socket"], at: .value,
                    "is \(socket.utf8.count) bytes long, too long for a Unix socket path",
                    allowed: "at most 107 bytes")
            } else {
                settings.socket = socket
            }
        }
        if let group = string(output, "socket_group", at: path) {
            if group.isEmpty {
                settings.socketGroup = nil
            } else if group.utf8.count <= 32, group.wholeMatch(of: /[A-Za-z0-9_][A-Za-z0-9_.-]*\$?/) != nil {
                settings.socketGroup = group
            } else {
                report(
                    path + ["socket_group"], at: .value, "\(Self.quote(group)) is not a group name",
                    allowed: "a group name such as \"forecastd\", or \"\" for the owner only")
            }
        }
        if let clients = integer(output, "max_clients", at: path, in: 1...10_000) {
            settings.maxClients = clients
        }
        if let files = output["files"] {
            decodeStatusFiles(files, into: &settings.files)
        }
    }

    /// Walks an array of tables (`[[output.files]]`, `[[cities]]`): every element must be a table of
    /// known keys that `decodeElement` turns into a value without a problem. The array is used only
    /// when all of them do (nil otherwise), so one bad table never drops the others silently.
    private mutating func decodeTables<Element>(
        _ value: any TOMLValueConvertible, at path: [String],
        _ decodeElement: (inout Self, TOMLTable, _ decodedSoFar: [Element]) -> Element?
    ) -> [Element]? {
        guard value.type == .array, let array = value.array else {
            report(path, at: .value, "expected [[\(path.joined(separator: "."))]] tables, found \(Self.describe(value.type))")
            return nil
        }
        var decoded: [Element] = []
        var valid = true
        for (index, element) in array.enumerated() {
            arrayElement = (path, index)
            defer { arrayElement = nil }
            guard element.type == .table, let table = element.table else {
                report(path, at: .value, "expected a table, found \(Self.describe(element.type))")
                valid = false
                continue
            }
            checkKeys(of: table, at: path)
            let before = problems.count
            guard let item = decodeElement(&self, table, decoded), problems.count == before else {
                valid = false
                continue
            }
            decoded.append(item)
        }
        return valid ? decoded : nil
    }

    private mutating func decodeStatusFiles(_ value: any TOMLValueConvertible, into files: inout [Settings.StatusFile])
    {
        let path = ["output", "files"]
        var indexByPath: [String: Int] = [:]
        let decoded = decodeTables(value, at: path) { (decoder: inout Self, table, decoded: [Settings.StatusFile]) in
            let before = decoder.problems.count
            let filePath = decoder.absolutePath(table, "path", at: path)
            let format: OutputFormat? = decoder.choice(table, "format", at: path, noun: "an output format")
            let template = decoder.string(table, "template", at: path) ?? ""
            let icons: IconSet? = decoder.choice(table, "icons", at: path, noun: "an icon set")
            for key in ["path", "format"] where table[key] == nil {
                decoder.report(
                    path + [key], at: .value, "missing; every [[output.files]] table needs a path and a format",
                    anchor: path)
            }
            decoder.cost += 1
            if let filePath, let earlier = indexByPath[filePath] {
                decoder.report(
                    path + ["path"], at: .value,
                    "\(Self.quote(filePath)) is already the path of output.files[\(earlier + 1)]",
                    allowed: "a different file for each [[output.files]] table")
            }
            if format == .template, template.trimmingCharacters(in: .whitespaces).isEmpty {
                decoder.report(
                    path + ["format"], at: .value, "\"template\" needs a template",
                    allowed: "a template key such as template = \"%c %t\"")
            }
            guard let filePath, let format, decoder.problems.count == before else { return nil }
            indexByPath[filePath] = decoded.count
            return Settings.StatusFile(path: filePath, format: format, template: template, icons: icons ?? .emoji)
        }
        if let decoded { files = decoded }
    }

    private mutating func decodeCities(_ value: any TOMLValueConvertible, into cities: inout [Settings.City]) {
        let path = ["cities"]
        var indexByID: [String: Int] = [:]
        let decoded = decodeTables(value, at: path) { (decoder: inout Self, table, decoded: [Settings.City]) in
            let before = decoder.problems.count
            let name = decoder.nonEmptyString(table, "name", at: path, allowed: "the name to show, such as \"Paris\"")
            let admin1 = decoder.nonEmptyString(
                table, "admin1", at: path, allowed: "the region's name, such as \"Texas\", or no admin1 key at all")
            let country = decoder.countryCode(table, "country", at: path)
            let latitude = decoder.number(table, "latitude", at: path, in: -90...90)
            let longitude = decoder.number(table, "longitude", at: path, in: -180...180)
            let favorite = decoder.boolean(table, "favorite", at: path) ?? false
            let added = decoder.date(table, "added", at: path)
            let explicitID = decoder.string(table, "id", at: path)
            if let explicitID, !CityID.isValid(explicitID) {
                decoder.report(
                    path + ["id"], at: .value, "\(Self.quote(explicitID)) is not an id",
                    allowed: "lower-case letters and digits in words joined by \"-\", such as \"springfield-il-us\"")
            }
            for (key, allowed) in [("name", "a name such as \"Paris\""), ("latitude", "-90...90"), ("longitude", "-180...180")]
            where table[key] == nil {
                decoder.report(
                    path + [key], at: .value, "missing; every [[cities]] table needs a name, a latitude and a longitude",
                    allowed: allowed, anchor: path)
            }
            if let latitude, let longitude, latitude == 0 && longitude == 0 {
                decoder.report(
                    path + ["latitude"], at: .value, "0, 0 is \"null island\", where receivers without a fix claim to be",
                    allowed: "the city's own coordinates")
            }
            // A duplicate is judged only on a city that is otherwise valid: its id is then known.
            guard decoder.problems.count == before, let name, let latitude, let longitude else { return nil }
            let city = Settings.City(
                name: name, admin1: admin1, countryCode: country,
                coordinate: Coordinate(latitude: latitude, longitude: longitude), favorite: favorite, added: added,
                explicitID: explicitID)
            decoder.cost += 1
            if let earlier = indexByID[city.id] {
                decoder.report(
                    path + [explicitID != nil ? "id" : "name"], at: .value,
                    "the id \(Self.quote(city.id)) is already that of cities[\(earlier + 1)] (\(decoded[earlier].label))",
                    allowed: "each city once; two places of one name need an id key of their own, such as id = "
                        + Self.quote(city.id + "-2"))
                return nil
            }
            indexByID[city.id] = decoded.count
            return city
        }
        if let decoded { cities = decoded }
    }

    private mutating func decodeDisplay(_ display: TOMLTable, into settings: inout Settings.Display) {
        let path = ["display"]
        if let icons: IconSet = choice(display, "icons", at: path, noun: "an icon set") {
            settings.icons = icons
        }
        let hot = number(display, "hot_celsius", at: path, in: -100...100)
        let cold = number(display, "cold_celsius", at: path, in: -100...100)
        let newHot = hot ?? settings.hotCelsius
        let newCold = cold ?? settings.coldCelsius
        guard newCold < newHot else {
            report(
                path + [cold != nil ? "cold_celsius" : "hot_celsius"], at: .value,
                "cold_celsius (\(Self.render(bound: newCold))) must be below hot_celsius (\(Self.render(bound: newHot)))"
            )
            return
        }
        settings.hotCelsius = newHot
        settings.coldCelsius = newCold
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

    /// An ISO 3166-1 alpha-2 code, two ASCII letters in either case; returned upper-case.
    private mutating func countryCode(_ table: TOMLTable, _ key: String, at path: [String]) -> String? {
        guard let string = string(table, key, at: path) else { return nil }
        guard string.count == 2, string.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else {
            report(
                path + [key], at: .value, "\(Self.quote(string)) is not a country code",
                allowed: "an ISO 3166-1 alpha-2 code such as \"FR\", or no country key at all")
            return nil
        }
        return string.uppercased()
    }

    /// A TOML local date, `2026-11-22` without quotes.
    private mutating func date(_ table: TOMLTable, _ key: String, at path: [String]) -> CalendarDate? {
        guard let value = table[key] else { return nil }
        let allowed = "a date written as 2026-11-22, without quotes"
        guard value.type == .date, let tomlDate = value.date else {
            if value.type == .string, let text = value.string, CalendarDate(text) != nil {
                report(path + [key], at: .value, "expected a date, found a string", allowed: allowed)
            } else {
                report(path + [key], at: .value, "expected a date, found \(Self.describe(value.type))", allowed: allowed)
            }
            return nil
        }
        guard let date = CalendarDate(year: tomlDate.year, month: tomlDate.month, day: tomlDate.day) else {
            report(path + [key], at: .value, "is not a day of the calendar", allowed: allowed)
            return nil
        }
        return date
    }

    /// A list of names, each one of `Choice`: not empty, none twice.
    private mutating func choices<Choice: RawRepresentable & CaseIterable & Equatable>(
        _ table: TOMLTable, _ key: String, at path: [String], noun: String
    ) -> [Choice]? where Choice.RawValue == String {
        guard let value = table[key] else { return nil }
        let allowed = Choice.allCases.map { Self.quote($0.rawValue) }.joined(separator: ", ")
        guard value.type == .array, let array = value.array else {
            report(
                path + [key], at: .value, "expected an array of names, found \(Self.describe(value.type))",
                allowed: allowed)
            return nil
        }
        var result: [Choice] = []
        for element in array {
            guard element.type == .string, let string = element.string else {
                report(
                    path + [key], at: .value, "expected names in quotes, found \(Self.describe(element.type))",
                    allowed: allowed)
                return nil
            }
            guard let choice = Choice(rawValue: string) else {
                report(path + [key], at: .value, "\(Self.quote(string)) is not \(noun)", allowed: allowed)
                return nil
            }
            guard !result.contains(choice) else {
                report(path + [key], at: .value, "\(Self.quote(string)) is listed twice", allowed: allowed)
                return nil
            }
            result.append(choice)
        }
        guard !result.isEmpty else {
            report(path + [key], at: .value, "must name at least one", allowed: allowed)
            return nil
        }
        return result
    }

    /// An absolute path, or `""` for "none".
    private mutating func optionalAbsolutePath(_ table: TOMLTable, _ key: String, at path: [String]) -> String? {
        if let value = table[key], value.type == .string, value.string == "" { return "" }
        return absolutePath(table, key, at: path)
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
        cost += 1
        var position = place == .key ? map.keyPosition(of: anchorPath) : map.valuePosition(of: anchorPath)
        var renderedKey = Self.render(keyPath: keyPath)
        if let element = arrayElement, anchorPath.starts(with: element.path) {
            position = elementPosition(anchorPath, at: place, in: element)
            renderedKey =
                Self.render(keyPath: element.path) + "[\(element.index + 1)]"
                + (keyPath.count > element.path.count
                    ? "." + Self.render(keyPath: Array(keyPath.dropFirst(element.path.count))) : "")
        }
        problems.append(
            SettingsProblem(
                path: path, line: position?.line, column: position?.column, keyPath: renderedKey,
                message: message, allowed: allowed))
    }

    /// Where `keyPath` is written inside the `index`-th `[[table]]` of `element.path`.
    ///
    /// The source map records the pairs of every `[[table]]` under the same path, so the right one is
    /// found between that table's header and the next header. An array written inline
    /// (`files = [{ … }]`) has no headers; its problems are placed at the array.
    private mutating func elementPosition(
        _ keyPath: [String], at place: Anchor, in element: (path: [String], index: Int)
    ) -> TOMLSourceMap.Position? {
        let table = elementTable(element)
        cost += 1
        guard let table else { return map.valuePosition(of: element.path) }
        guard keyPath != element.path, let entry = table.entries[keyPath] else {
            return table.header
        }
        return place == .key ? entry.key : (entry.value ?? entry.key)
    }

    /// The header and pairs of one `[[table]]` as written, indexed once for all its problems.
    struct ElementTable {
        var header: TOMLSourceMap.Position
        var entries: [[String]: TOMLSourceMap.Entry]
    }

    private mutating func elementTable(_ element: (path: [String], index: Int)) -> ElementTable? {
        if let cached = elementTables[element.path]?[element.index] { return cached }
        if elementHeaders[element.path] == nil {
            elementHeaders[element.path] = map.entries.indices.filter {
                map.entries[$0].kind == .arrayOfTables && map.entries[$0].keyPath == element.path
            }
            cost += map.entries.count
        }
        let headers = elementHeaders[element.path] ?? []
        guard element.index < headers.count else { return nil }
        let start = headers[element.index]
        let end = map.entries[(start + 1)...].firstIndex { $0.kind != .keyValue } ?? map.entries.endIndex
        var entries: [[String]: TOMLSourceMap.Entry] = [:]
        for entry in map.entries[(start + 1)..<end] where entries[entry.keyPath] == nil {
            entries[entry.keyPath] = entry
        }
        cost += end - start
        let table = ElementTable(header: map.entries[start].key, entries: entries)
        elementTables[element.path, default: [:]][element.index] = table
        return table
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
