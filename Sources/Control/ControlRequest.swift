import ForecastModel
import Foundation

/// The word that names a request, in the order of `docs/protocol.md`, with what each one takes.
public enum RequestName: String, Sendable, Hashable, CaseIterable {
    case report, watch, refresh, status, locate, units, pin, unpin, mode, set, reload

    /// Whether it changes the daemon, and so is accepted only from the daemon's own user or root.
    public var isPrivileged: Bool {
        switch self {
        case .report, .watch, .status, .locate: false
        case .refresh, .units, .pin, .unpin, .mode, .set, .reload: true
        }
    }

    /// What its value is, for people (`auto or pinned`); nil when it takes none.
    public var value: String? {
        switch self {
        case .units: "a preset (metric, imperial, uk, si) or a quantity and its unit, e.g. wind kn"
        case .pin: "a position or a place, e.g. 48.85,2.35 or Paris, FR"
        case .mode: "auto or pinned"
        case .set: "a key and its value, e.g. refresh_minutes 30"
        case .report, .watch, .refresh, .status, .locate, .unpin, .reload: nil
        }
    }

    /// The `key=value` options (plain form) or members (JSON form) it takes.
    public var options: [String] {
        switch self {
        case .report, .watch: ["format", "icons", "template", "city"]
        case .pin: ["name"]
        case .refresh, .status, .locate, .units, .unpin, .mode, .set, .reload: []
        }
    }

    /// What it takes, in words: `format=, icons=, template=, city=`, `a value (auto or pinned)`, `nothing`.
    var taken: String {
        let parts = (value.map { ["a value (\($0))"] } ?? []) + options.map { $0 + "=" }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}

/// How `report` and `watch` render: a format, an icon set, a template and a city, each optional.
public struct ReportOptions: Sendable, Hashable {
    /// The format (`json` when absent).
    public var format: OutputFormat?
    /// The icon set for text formats (the settings' when absent).
    public var icons: IconSet?
    /// The template for `format=template`, unparsed: the daemon's renderer reads it.
    public var template: String?
    /// One of the listed cities (id or name) instead of "here".
    public var city: String?

    public init(format: OutputFormat? = nil, icons: IconSet? = nil, template: String? = nil, city: String? = nil) {
        self.format = format
        self.icons = icons
        self.template = template
        self.city = city
    }
}

/// One request, from a plain line or a JSON object: what the daemon dispatches on.
public enum ControlRequest: Sendable, Hashable {
    case report(ReportOptions)
    case watch(ReportOptions)
    case refresh
    case status
    case locate
    /// `units`, `pin`, `unpin`, `mode`, `set`: the same edit of the settings file as `forecastctl` makes, then a reload.
    case change(SettingsEditRequest)
    case reload

    /// The word that names it.
    public var name: RequestName {
        switch self {
        case .report: .report
        case .watch: .watch
        case .refresh: .refresh
        case .status: .status
        case .locate: .locate
        case .change(.units): .units
        case .change(.pin): .pin
        case .change(.unpin): .unpin
        case .change(.mode): .mode
        case .change(.set): .set
        case .reload: .reload
        }
    }

    /// Whether it changes the daemon, and so is accepted only from the daemon's own user or root.
    public var isPrivileged: Bool { name.isPrivileged }

    /// The request as a line to send: the JSON form, keys sorted, so any value survives.
    public var line: String {
        var members = RequestMembers(name: name)
        switch self {
        case .report(let options), .watch(let options):
            members.options["format"] = options.format?.rawValue
            members.options["icons"] = options.icons?.rawValue
            members.options["template"] = options.template
            members.options["city"] = options.city
        case .refresh, .status, .locate, .reload, .change(.unpin): break
        case .change(.units(let value)), .change(.mode(let value)): members.value = value
        case .change(.pin(let value, let name)):
            members.value = value
            members.options["name"] = name
        case .change(.set(let key, let value)):
            members.value = value.isEmpty ? key : key + " " + value
        }
        return members.json
    }

    /// Parses a request line. Plain lines are `WORD [VALUE…] [key=value…]` with keys `format`,
    /// `icons`, `name`, `template` and `city`; JSON lines are objects with a `request` member.
    /// Anything the request does not take (a value, an option, a member) is an error naming what it takes.
    public static func parse(_ line: String) throws(ControlRequestError) -> ControlRequest {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let members = trimmed.hasPrefix("{") ? try RequestMembers(object: trimmed) : try RequestMembers(plain: trimmed)
        return try members.request()
    }
}

/// Why a request line could not be understood.
public struct ControlRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A request as words and strings, the form both line forms share before it is typed.
struct RequestMembers {
    var name: RequestName
    /// The argument of `units`, `pin`, `mode` and `set`.
    var value: String?
    /// `format`, `icons`, `name`, `template`, `city`.
    var options: [String: String] = [:]

    /// Every option key a request may take (`format=`, `name=`…), across all requests, in the order they are checked.
    static let optionKeys = ["format", "icons", "name", "template", "city"]

    init(name: RequestName) { self.name = name }

    /// `WORD [VALUE…] [key=value…]`.
    init(plain text: String) throws(ControlRequestError) {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !words.isEmpty else { throw ControlRequestError("empty request") }
        self.init(name: try Self.name(words.removeFirst()))
        var values: [String] = []
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                values.append(word)
                continue
            }
            let key = word[..<equals].lowercased()
            guard Self.optionKeys.contains(key) else {
                // A value may hold `=` (`set KEY VALUE`); a request that takes no value has no use for it.
                guard name.value != nil else { throw unknownArgument(word) }
                values.append(word)
                continue
            }
            options[key] = String(word[word.index(after: equals)...])
        }
        if !values.isEmpty { value = values.joined(separator: " ") }
    }

    /// An object with a `request` member and only the members that request takes.
    init(object text: String) throws(ControlRequestError) {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        guard let object, let word = object["request"] as? String else {
            throw ControlRequestError("not a valid request object: expected {\"request\": \"report\", …}")
        }
        self.init(name: try Self.name(word))
        let allowed = ["request"] + (name.value == nil ? [] : ["value"]) + name.options
        for (key, member) in object.sorted(by: { $0.key < $1.key }) where key != "request" {
            guard allowed.contains(key) else {
                throw ControlRequestError(
                    "\"\(name.rawValue)\" takes no member \"\(key.prefix(40))\" (it takes: \(allowed.joined(separator: ", ")))")
            }
            guard let string = member as? String else {
                throw ControlRequestError("the member \"\(key)\" must be a string")
            }
            if key == "value" { value = string } else { options[key] = string }
        }
    }

    /// The request a word names; an unknown word is an error listing the known ones.
    private static func name(_ word: String) throws(ControlRequestError) -> RequestName {
        guard let name = RequestName(rawValue: word.lowercased()) else {
            throw ControlRequestError(
                "unknown request \"\(word.lowercased().prefix(40))\" (allowed: \(RequestName.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return name
    }

    private func unknownArgument(_ argument: String) -> ControlRequestError {
        ControlRequestError("\"\(name.rawValue)\" does not take \"\(argument.prefix(60))\" (it takes: \(name.taken))")
    }

    /// The typed request, refusing options it does not take, a value it does not take, a missing value
    /// it needs, and a format or icon set that does not exist.
    func request() throws(ControlRequestError) -> ControlRequest {
        for key in Self.optionKeys where !name.options.contains(key) {
            if let given = options[key] { throw unknownArgument("\(key)=\(given)") }
        }
        let value = value?.trimmingCharacters(in: .whitespaces) ?? ""
        if name.value == nil, !value.isEmpty { throw unknownArgument(value) }
        if let needed = name.value, value.isEmpty {
            throw ControlRequestError("\"\(name.rawValue)\" needs a value: \(needed)")
        }
        switch name {
        case .report: return .report(try reportOptions())
        case .watch: return .watch(try reportOptions())
        case .refresh: return .refresh
        case .status: return .status
        case .locate: return .locate
        case .units: return .change(.units(value))
        case .pin: return .change(.pin(value, name: options["name"]))
        case .unpin: return .change(.unpin)
        case .mode: return .change(.mode(value))
        case .set:
            let key = value.prefix { $0 != " " }
            return .change(.set(key: String(key), value: value.dropFirst(key.count).trimmingCharacters(in: .whitespaces)))
        case .reload: return .reload
        }
    }

    private func reportOptions() throws(ControlRequestError) -> ReportOptions {
        var report = ReportOptions(template: options["template"], city: options["city"])
        if let name = options["format"] {
            guard let format = OutputFormat(rawValue: name) else {
                throw ControlRequestError(
                    "unknown format \"\(name.prefix(40))\" (allowed: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            report.format = format
        }
        if let name = options["icons"] {
            guard let icons = IconSet(rawValue: name) else {
                throw ControlRequestError(
                    "unknown icon set \"\(name.prefix(40))\" (allowed: \(IconSet.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            report.icons = icons
        }
        return report
    }

    /// The JSON form: `request` and the members given, keys sorted.
    var json: String {
        var object = options
        object["request"] = name.rawValue
        if let value { object["value"] = value }
        return String(decoding: (try? ControlCoder.encoder.encode(object)) ?? Data(), as: UTF8.self)
    }
}
