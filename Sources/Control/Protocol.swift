import Foundation

/// The socket protocol forecastd speaks, version 1: newline-delimited JSON, as gpsd does.
///
/// See `docs/protocol.md`. On connect the daemon sends a greeting line (``Greeting``). A client then
/// sends request lines, either a plain line (`report`, `watch format=waybar`, `units imperial`) or
/// a JSON object (`{"request":"watch","format":"waybar"}`). Failures answer with an
/// `{"class":"ERROR","message":...}` line and the connection stays open.
public enum ControlProtocol {
    /// Version of the protocol the greeting announces.
    public static let version = 1
    /// Longest request line the daemon reads; a longer line is answered with an error and the
    /// connection closed, so a misbehaving client cannot make the daemon buffer without end.
    public static let maxRequestLength = 1024
    /// Every request the daemon knows, in the order of `docs/protocol.md`, with what each one takes.
    public static let shapes: [(name: String, shape: RequestShape)] = [
        ("report", .rendering),
        ("watch", .rendering),
        ("refresh", RequestShape(privileged: true)),
        ("status", RequestShape()),
        ("locate", RequestShape()),
        ("units", RequestShape(value: "a preset (metric, imperial, uk, si) or a quantity and its unit, e.g. wind kn", privileged: true)),
        ("pin", RequestShape(value: "a position or a place, e.g. 48.85,2.35 or Paris, FR", options: ["name"], privileged: true)),
        ("unpin", RequestShape(privileged: true)),
        ("mode", RequestShape(value: "auto or pinned", privileged: true)),
        ("set", RequestShape(value: "a key and its value, e.g. refresh_minutes 30", privileged: true)),
        ("reload", RequestShape(privileged: true)),
    ]
    /// Every request the daemon knows.
    public static let requests = shapes.map(\.name)
    /// Requests that change something: accepted only from the daemon's own user or root.
    public static let settingRequests = Set(shapes.filter(\.shape.privileged).map(\.name))

    /// What a request takes, or nil for a word that is no request.
    public static func shape(of request: String) -> RequestShape? {
        shapes.first { $0.name == request }?.shape
    }
}

/// What one request takes besides its word; anything else is refused with an error naming what it takes.
public struct RequestShape: Sendable, Hashable {
    /// What its value is, for people (`metric or imperial`); nil when it takes none.
    public var value: String?
    /// The `key=value` options (plain form) or members (JSON form) it takes.
    public var options: [String]
    /// Whether it changes the daemon, and so is accepted only from the daemon's own user or root.
    public var privileged: Bool

    public init(value: String? = nil, options: [String] = [], privileged: Bool = false) {
        self.value = value
        self.options = options
        self.privileged = privileged
    }

    /// `report` and `watch`: a format, an icon set, a template and a city.
    public static let rendering = RequestShape(options: ["format", "icons", "template", "city"])

    /// What it takes, in words: `format=, icons=, template=, city=`, `a value (metric or imperial)`, `nothing`.
    var taken: String {
        var parts: [String] = []
        if let value { parts.append("a value (\(value))") }
        parts += options.map { $0 + "=" }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}

/// The version of forecastd and forecastctl, from one place.
public enum ForecastdVersion {
    public static let current = "0.1.0"

    /// What `--version` prints: `forecastd 0.1.0 (libgps API 11.0)`, naming the libgps API the binaries were
    /// compiled against (gpsd 3.22 is API 11, 3.25 is API 14), since that is what a bug report needs to know.
    public static func versionLine(program: String, libgpsMajor: Int32, libgpsMinor: Int32) -> String {
        "\(program) \(current) (libgps API \(libgpsMajor).\(libgpsMinor))"
    }
}

/// The first line the daemon sends on a new connection.
public struct Greeting: Codable, Sendable, Hashable {
    public var `class`: String = "VERSION"
    public var release: String
    public var proto: Int

    public init(release: String = ForecastdVersion.current, proto: Int = ControlProtocol.version) {
        self.release = release
        self.proto = proto
    }
}

/// An error answer on the socket.
public struct ControlErrorMessage: Codable, Sendable, Hashable {
    public var `class`: String = "ERROR"
    public var message: String
    /// True when the daemon closes the connection after this error (too many clients, no request in
    /// time, a line too long): the request was not refused for what it asked, so try again later or
    /// fall back on the status file. Absent otherwise, and the connection stays open.
    public var closed: Bool?

    public init(message: String, closed: Bool = false) {
        self.message = message
        self.closed = closed ? true : nil
    }

    /// The error a line carries, or nil when the line is not an `ERROR` object.
    public static func decode(_ line: String) -> ControlErrorMessage? {
        guard line.hasPrefix("{"), let error = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)),
            error.class == "ERROR"
        else { return nil }
        return error
    }
}

/// A generic answer to requests that do something: `{"class":"SETTINGS","ok":true,"message":"…"}`.
public struct ControlAnswer: Codable, Sendable, Hashable {
    public var `class`: String
    public var ok: Bool
    public var message: String

    public init(class: String, ok: Bool, message: String) {
        self.class = `class`
        self.ok = ok
        self.message = message
    }
}

/// One request, from a plain line or a JSON object.
public struct ControlRequest: Codable, Sendable, Hashable {
    /// The request word, lowercased (`report`, `watch`, …).
    public var request: String
    /// The argument of `units`, `pin` and `mode` (`imperial`, `48.85,2.35`, `auto`).
    public var value: String?
    /// A name for `pin`.
    public var name: String?
    /// Output format for `report` and `watch` (`json` by default).
    public var format: String?
    /// Icon set for text formats.
    public var icons: String?
    /// Template for `format=template`.
    public var template: String?
    /// For `report` and `watch`: one of the listed cities (id or name) instead of "here".
    public var city: String?

    public init(
        request: String, value: String? = nil, name: String? = nil, format: String? = nil, icons: String? = nil,
        template: String? = nil, city: String? = nil
    ) {
        self.city = city
        self.request = request
        self.value = value
        self.name = name
        self.format = format
        self.icons = icons
        self.template = template
    }

    /// The request as a line to send (JSON, so any value survives).
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Every option key a request may take (`format=`, `name=`…), across all requests.
    static let optionKeys: Set<String> = ["format", "icons", "name", "template", "city"]

    /// Parses a request line. Plain lines are `WORD [VALUE…] [key=value…]` with keys `format`,
    /// `icons`, `name`, `template` and `city`; JSON lines are objects with a `request` member.
    /// Anything the request does not take (a value, an option, a member) is an error naming what it takes.
    public static func parse(_ line: String) throws(ControlRequestError) -> ControlRequest {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") { return try parseObject(trimmed) }
        var words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !words.isEmpty else { throw ControlRequestError("empty request") }
        var request = ControlRequest(request: words.removeFirst().lowercased())
        let shape = try request.shape()
        var values: [String] = []
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                values.append(word)
                continue
            }
            let key = word[..<equals].lowercased()
            let value = String(word[word.index(after: equals)...])
            guard Self.optionKeys.contains(key) else {
                // A value may hold `=` (`set KEY VALUE`); a request that takes no value has no use for it.
                guard shape.value != nil else { throw request.unknownArgument(word, shape) }
                values.append(word)
                continue
            }
            switch key {
            case "format": request.format = value
            case "icons": request.icons = value
            case "name": request.name = value
            case "city": request.city = value
            default: request.template = value
            }
        }
        if !values.isEmpty { request.value = values.joined(separator: " ") }
        try request.check(shape)
        return request
    }

    /// A JSON request: an object with a `request` member and only the members that request takes.
    private static func parseObject(_ text: String) throws(ControlRequestError) -> ControlRequest {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        guard let object, let word = object["request"] as? String else {
            throw ControlRequestError("not a valid request object: expected {\"request\": \"report\", …}")
        }
        var request = ControlRequest(request: word.lowercased())
        let shape = try request.shape()
        let allowed = ["request"] + (shape.value == nil ? [] : ["value"]) + shape.options
        for (key, value) in object.sorted(by: { $0.key < $1.key }) where key != "request" {
            guard allowed.contains(key) else {
                throw ControlRequestError(
                    "\"\(request.request)\" takes no member \"\(key.prefix(40))\" (it takes: \(allowed.joined(separator: ", ")))")
            }
            guard let string = value as? String else {
                throw ControlRequestError("the member \"\(key)\" must be a string")
            }
            switch key {
            case "value": request.value = string
            case "format": request.format = string
            case "icons": request.icons = string
            case "name": request.name = string
            case "city": request.city = string
            default: request.template = string
            }
        }
        try request.check(shape)
        return request
    }

    /// What this request takes; an unknown request word is an error listing the known ones.
    private func shape() throws(ControlRequestError) -> RequestShape {
        guard let shape = ControlProtocol.shape(of: request) else {
            throw ControlRequestError(
                "unknown request \"\(request.prefix(40))\" (allowed: \(ControlProtocol.requests.joined(separator: ", ")))")
        }
        return shape
    }

    private func unknownArgument(_ argument: String, _ shape: RequestShape) -> ControlRequestError {
        ControlRequestError(
            "\"\(request)\" does not take \"\(argument.prefix(60))\" (it takes: \(shape.taken))")
    }

    /// Refuses options the request does not take, a value it does not take, and a missing value it needs.
    private func check(_ shape: RequestShape) throws(ControlRequestError) {
        let given: [(String, String?)] = [("format", format), ("icons", icons), ("name", name), ("template", template), ("city", city)]
        for (key, value) in given where value != nil && !shape.options.contains(key) {
            throw unknownArgument("\(key)=\(value!)", shape)
        }
        let value = value?.trimmingCharacters(in: .whitespaces) ?? ""
        if shape.value == nil, !value.isEmpty { throw unknownArgument(value, shape) }
        if let needed = shape.value, value.isEmpty {
            throw ControlRequestError("\"\(request)\" needs a value: \(needed)")
        }
    }
}

/// Why a request line could not be understood.
public struct ControlRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The daemon's health, the answer to `status`.
public struct DaemonStatus: Codable, Sendable, Hashable {
    public var `class` = "STATUS"
    public var release: String
    public var uptimeSeconds: Int
    public var clients: Int
    public var watchers: Int
    public var reportStatus: String
    public var stale: Bool
    public var locationSource: String?
    public var locationReason: String
    public var lastRefresh: String?
    public var provider: String?
    public var errors: [String]

    public init(
        release: String, uptimeSeconds: Int, clients: Int, watchers: Int, reportStatus: String, stale: Bool,
        locationSource: String?, locationReason: String, lastRefresh: String?, provider: String?, errors: [String]
    ) {
        self.release = release
        self.uptimeSeconds = uptimeSeconds
        self.clients = clients
        self.watchers = watchers
        self.reportStatus = reportStatus
        self.stale = stale
        self.locationSource = locationSource
        self.locationReason = locationReason
        self.lastRefresh = lastRefresh
        self.provider = provider
        self.errors = errors
    }
}

/// What every position source says and which one wins: the answer to `locate`.
public struct LocateAnswer: Codable, Sendable, Hashable {
    public var `class` = "LOCATE"
    /// `auto` or `pinned`.
    public var mode: String
    /// The source in use (`gpsd`, `static_file`, `ip`, `pinned`, `saved`), absent when none knows the position.
    public var chosen: String?
    /// Why that source, in a few words.
    public var reason: String
    /// The sources in the order they are preferred.
    public var sources: [LocateSource]

    public init(mode: String, chosen: String?, reason: String, sources: [LocateSource]) {
        self.mode = mode
        self.chosen = chosen
        self.reason = reason
        self.sources = sources
    }
}

/// One position source as `locate` shows it.
public struct LocateSource: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable, Hashable {
        /// It knows a position (maybe not fresh enough to be used).
        case position
        /// It works but knows no position now (gpsd without fix, no static file, no pin).
        case none
        /// It has a problem; `detail` says which.
        case problem
        /// Switched off in the settings, or not used in this mode.
        case off
    }

    public var source: String
    public var state: State
    /// Whether this is the source in use.
    public var used: Bool
    public var latitude: Double?
    public var longitude: Double?
    public var accuracyM: Double?
    public var ageSeconds: Int?
    /// One sentence for people: what it says and why it is or is not used.
    public var detail: String

    public init(
        source: String, state: State, used: Bool, latitude: Double? = nil, longitude: Double? = nil,
        accuracyM: Double? = nil, ageSeconds: Int? = nil, detail: String
    ) {
        self.source = source
        self.state = state
        self.used = used
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyM = accuracyM
        self.ageSeconds = ageSeconds
        self.detail = detail
    }
}
