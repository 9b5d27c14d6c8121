import ForecastModel
import Foundation
import TOMLKit

// The rules that involve more than one key, run once every row has checked and stored its own: the
// pin, pinned mode, the API key's sources, the providers' order, hot above cold, and the tables of
// `[[output.files]]` and `[[cities]]`.

extension SettingsDecoder {
    mutating func applyRules(to settings: inout Settings, root: TOMLTable) {
        assemblePin(into: &settings)
        assembleUnits(into: &settings)
        if settings.location.mode == .pinned && settings.location.pin == nil && !written.contains(["location", "pin"]) {
            report(
                ["location", "mode"], at: .value, "\"pinned\" needs a [location.pin] table with latitude and longitude")
        }
        assembleAPIKey(into: &settings)
        if settings.providers.order.contains(.openWeatherMap) && settings.providers.openWeatherMap.apiKey == nil {
            report(
                ["providers", "order"], at: .value, "\"openweathermap\" needs an API key",
                allowed:
                    "set providers.openweathermap.api_key or api_key_file, or $\(Settings.openWeatherMapKeyVariable)")
        }
        if written.contains(["display"]) {
            checkHotAboveCold(settings.display)
        }
        if let files = Self.value(at: ["output", "files"], in: root),
            let decoded = decodeElements(files, Settings.statusFilesTable, identity: \.path, Self.statusFile)
        {
            settings.output.files = decoded
        }
        if let cities = root["cities"],
            let decoded = decodeElements(cities, Settings.citiesTable, identity: \.id, Self.city)
        {
            settings.cities = decoded
        }
    }

    /// `[location.pin]`: both coordinates, not (0, 0); the name, when written, not empty.
    private mutating func assemblePin(into settings: inout Settings) {
        let pin = ["location", "pin"]
        guard decodedTables.contains(pin), let table = SettingsTable.table(at: pin) else { return }
        var complete = true
        for key in table.keys where key.name != "name" && !written.contains(key.path) {
            complete = false
            report(
                key.path, at: .value, "missing; a pin needs both latitude and longitude", allowed: key.allowed,
                anchor: pin)
        }
        guard complete, let latitude = number(pin + ["latitude"]), let longitude = number(pin + ["longitude"]) else {
            return
        }
        if latitude == 0 && longitude == 0 {
            report(
                pin, at: .value,
                "\(latitude), \(longitude) is \"null island\", where receivers without a fix claim to be",
                allowed: "any other point")
        } else if !written.contains(pin + ["name"]) || string(pin + ["name"]) != nil {
            settings.location.pin = Pin(
                coordinate: Coordinate(latitude: latitude, longitude: longitude), name: string(pin + ["name"]))
        }
    }

    /// The OpenWeatherMap key: the file's own `api_key` wins, then the file `api_key_file` names, then
    /// the environment (already in the defaults).
    private mutating func assembleAPIKey(into settings: inout Settings) {
        let table = ["providers", "openweathermap"]
        if let key = string(table + ["api_key"]), !key.isEmpty {
            settings.providers.openWeatherMap.apiKey = Secret(key, origin: .settingsFile)
        } else if let keyFile = string(table + ["api_key_file"]), !keyFile.isEmpty {
            switch Self.readKeyFile(keyFile) {
            case .success(let secret):
                settings.providers.openWeatherMap.apiKey = Secret(secret, origin: .keyFile(path: keyFile))
            case .failure(let problem):
                report(
                    table + ["api_key_file"], at: .value, "\(TOMLText.quote(keyFile)) \(problem.message)",
                    allowed: problem.allowed)
            }
        }
    }

    private mutating func checkHotAboveCold(_ display: Settings.Display) {
        guard display.coldCelsius >= display.hotCelsius else { return }
        let cold = written.contains(["display", "cold_celsius"]) && values[["display", "cold_celsius"]] != nil
        report(
            ["display", cold ? "cold_celsius" : "hot_celsius"], at: .value,
            "cold_celsius (\(TOMLText.bound(display.coldCelsius))) must be below hot_celsius "
                + "(\(TOMLText.bound(display.hotCelsius)))")
    }

    /// The first line of the key file at `path`, trimmed.
    static func readKeyFile(_ path: String) -> Result<String, SettingsRefusal> {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            return .failure(
                SettingsRefusal(
                    code == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(code)))",
                    allowed: "a readable file whose first line is the API key"))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return .failure(SettingsRefusal("is not a regular file", allowed: "a file whose first line is the API key"))
        }
        let data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        let firstLine = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
        let key = firstLine.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !key.isEmpty else {
            return .failure(SettingsRefusal("is empty", allowed: "a file whose first line is the API key"))
        }
        return .success(key)
    }

    // MARK: Arrays of tables

    /// The values one `[[table]]` sets, checked by the table's rows, and which keys it writes.
    struct Element {
        let table: TOMLTable
        let values: [String: SettingsValue]

        func isWritten(_ name: String) -> Bool { table[name] != nil }
        func string(_ name: String) -> String? { values[name]?.string }
        func number(_ name: String) -> Double? { values[name]?.number }
        func boolean(_ name: String) -> Bool? {
            if case .boolean(let boolean)? = values[name] { return boolean }
            return nil
        }
        func date(_ name: String) -> CalendarDate? {
            if case .date(let date)? = values[name] { return date }
            return nil
        }
        /// A checked name (`format = "waybar"`) as the vocabulary type it was checked against.
        func choice<Choice: RawRepresentable>(_ name: String) -> Choice? where Choice.RawValue == String {
            string(name).flatMap(Choice.init(rawValue:))
        }
    }

    /// The elements decoded so far, and where each identity (a path, an id) first appears among them.
    struct Decoded<Value> {
        var values: [Value] = []
        var index: [String: Int] = [:]
    }

    /// Walks an array of tables (`[[output.files]]`, `[[cities]]`): every element must be a table of
    /// known keys, which the table's rows check and `assemble` turns into a value without a problem.
    /// The array is used only when all of them do (nil otherwise), so one bad table never drops the
    /// others silently. `identity` is what no two elements may share.
    private mutating func decodeElements<Value>(
        _ raw: any TOMLValueConvertible, _ table: SettingsTable.Table, identity: (Value) -> String,
        _ assemble: (inout Self, Element, _ decodedSoFar: Decoded<Value>) -> Value?
    ) -> [Value]? {
        let path = table.path
        guard raw.type == .array, let array = raw.array else {
            report(
                path, at: .value, "expected [[\(path.joined(separator: "."))]] tables, found \(Self.describe(raw.type))"
            )
            return nil
        }
        var decoded = Decoded<Value>()
        var valid = true
        for (index, item) in array.enumerated() {
            arrayElement = (path, index)
            defer { arrayElement = nil }
            guard item.type == .table, let toml = item.table else {
                report(path, at: .value, "expected a table, found \(Self.describe(item.type))")
                valid = false
                continue
            }
            checkKeys(of: toml, at: path, written: elementNames())
            let before = problems.count
            var values: [String: SettingsValue] = [:]
            for key in table.keys {
                guard let raw = toml[key.name], let value = checked(raw, key) else { continue }
                values[key.name] = value
            }
            guard let value = assemble(&self, Element(table: toml, values: values), decoded), problems.count == before
            else {
                valid = false
                continue
            }
            decoded.index[identity(value)] = decoded.index[identity(value)] ?? decoded.values.count
            decoded.values.append(value)
        }
        return valid ? decoded.values : nil
    }

    /// One `[[output.files]]` table: a path no other table has, a format, a template when the format is one.
    private static func statusFile(
        _ decoder: inout Self, _ element: Element, _ decoded: Decoded<Settings.StatusFile>
    ) -> Settings.StatusFile? {
        let path = ["output", "files"]
        let filePath = element.string("path")
        let format: OutputFormat? = element.choice("format")
        let template = element.string("template") ?? ""
        for key in ["path", "format"] where !element.isWritten(key) {
            decoder.report(
                path + [key], at: .value, "missing; every [[output.files]] table needs a path and a format",
                anchor: path)
        }
        decoder.cost += 1
        if let filePath, let earlier = decoded.index[filePath] {
            decoder.report(
                path + ["path"], at: .value,
                "\(TOMLText.quote(filePath)) is already the path of output.files[\(earlier + 1)]",
                allowed: "a different file for each [[output.files]] table")
        }
        if format == .template, template.trimmingCharacters(in: .whitespaces).isEmpty {
            decoder.report(
                path + ["format"], at: .value, "\"template\" needs a template",
                allowed: "a template key such as template = \"%c %t\"")
        }
        guard let filePath, let format else { return nil }
        return Settings.StatusFile(
            path: filePath, format: format, template: template, icons: element.choice("icons") ?? .emoji)
    }

    /// One `[[cities]]` table: a name and a plausible position, an id no other city has.
    private static func city(
        _ decoder: inout Self, _ element: Element, _ decoded: Decoded<Settings.City>
    ) -> Settings.City? {
        let path = ["cities"]
        let before = decoder.problems.count
        let required = [("name", "a name such as \"Paris\""), ("latitude", "-90...90"), ("longitude", "-180...180")]
        for (key, allowed) in required where !element.isWritten(key) {
            decoder.report(
                path + [key], at: .value, "missing; every [[cities]] table needs a name, a latitude and a longitude",
                allowed: allowed, anchor: path)
        }
        let latitude = element.number("latitude")
        let longitude = element.number("longitude")
        if let latitude, let longitude, latitude == 0 && longitude == 0 {
            decoder.report(
                path + ["latitude"], at: .value, "0, 0 is \"null island\", where receivers without a fix claim to be",
                allowed: "the city's own coordinates")
        }
        // A duplicate is judged only on a city that is otherwise valid: its id is then known.
        guard decoder.problems.count == before, let name = element.string("name"), let latitude, let longitude else {
            return nil
        }
        let explicitID = element.string("id")
        let city = Settings.City(
            name: name, admin1: element.string("admin1"), countryCode: element.string("country"),
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            favorite: element.boolean("favorite") ?? false,
            added: element.date("added"), explicitID: explicitID)
        decoder.cost += 1
        if let earlier = decoded.index[city.id] {
            decoder.report(
                path + [explicitID != nil ? "id" : "name"], at: .value,
                "the id \(TOMLText.quote(city.id)) is already that of cities[\(earlier + 1)] (\(decoded.values[earlier].label))",
                allowed: "each city once; two places of one name need an id key of their own, such as id = "
                    + TOMLText.quote(city.id + "-2"))
            return nil
        }
        return city
    }

    // MARK: Values

    private func string(_ path: [String]) -> String? { values[path]?.string }
    private func number(_ path: [String]) -> Double? { values[path]?.number }

    /// The value at `path` in the document, through tables written any way (headers, dotted keys, inline).
    static func value(at path: [String], in root: TOMLTable) -> (any TOMLValueConvertible)? {
        var table = root
        for (offset, key) in path.enumerated() {
            guard let value = table[key] else { return nil }
            if offset == path.count - 1 { return value }
            guard let next = value.table else { return nil }
            table = next
        }
        return nil
    }
}
