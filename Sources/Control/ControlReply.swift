import ForecastModel
import Foundation

/// One answer line, typed by its `class`: what a client reads back, decoded by the coder the daemon encodes with.
public enum ControlReply: Sendable, Hashable {
    /// `VERSION`: the greeting on connect.
    case version(Greeting)
    /// `ERROR`: the request was refused, or (`closed`) the connection is being closed.
    case error(ControlErrorMessage)
    /// `SETTINGS`, `REFRESH`, `RELOAD`: what a request that does something did.
    case outcome(ControlAnswer)
    /// `STATUS`: the daemon's health.
    case status(DaemonStatus)
    /// `LOCATE`: what every position source says.
    case locate(LocateAnswer)
    /// Any other line: a report, as JSON (`docs/report.md`) or in a bar format.
    case report(String)

    /// The answer a line carries; a line that is no object of the protocol's classes is a report.
    public init(line: String) {
        self = .report(line)
        // A bar format's JSON may have a `class` of its own (Waybar's, a list): only the protocol's words count.
        guard line.hasPrefix("{"), let tag = try? ControlCoder.decoder.decode(ClassTag.self, from: Data(line.utf8)) else {
            return
        }
        let data = Data(line.utf8)
        let decoder = ControlCoder.decoder
        let decoded: ControlReply? =
            switch tag.class {
            case "VERSION": (try? decoder.decode(Greeting.self, from: data)).map(ControlReply.version)
            case "ERROR": (try? decoder.decode(ControlErrorMessage.self, from: data)).map(ControlReply.error)
            case let word where ControlAnswer.Kind(rawValue: word) != nil:
                (try? decoder.decode(ControlAnswer.self, from: data)).map(ControlReply.outcome)
            case "STATUS": (try? decoder.decode(DaemonStatus.self, from: data)).map(ControlReply.status)
            case "LOCATE": (try? decoder.decode(LocateAnswer.self, from: data)).map(ControlReply.locate)
            default: nil
            }
        if let decoded { self = decoded }
    }

    /// The answer as a line, without its newline: snake_case keys, sorted.
    public var line: String {
        switch self {
        case .version(let greeting): ControlCoder.line(greeting)
        case .error(let error): ControlCoder.line(error)
        case .outcome(let answer): ControlCoder.line(answer)
        case .status(let status): ControlCoder.line(status)
        case .locate(let answer): ControlCoder.line(answer)
        case .report(let line): line
        }
    }

    /// The error's message when this is an `ERROR`, else nil.
    public var errorMessage: String? {
        if case .error(let error) = self { return error.message }
        return nil
    }

    private struct ClassTag: Decodable {
        var `class`: String
    }
}

/// The one JSON coder of the protocol, shared by the daemon and its clients: snake_case keys, sorted,
/// slashes unescaped.
public enum ControlCoder {
    public static var encoder: JSONEncoder { encoder(snakeCase: true) }

    /// The protocol's encoder; without snake_case for output whose keys are already written as they are
    /// meant (`forecastctl cities --json`).
    public static func encoder(snakeCase: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        if snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// One object as a line, without its newline.
    static func line(_ value: some Encodable) -> String {
        String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
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
}

/// A generic answer to requests that do something: `{"class":"SETTINGS","ok":true,"message":"…"}`, with what a
/// client needs to say it in its own language or to leave out what it said already (absent when not asked).
public struct ControlAnswer: Codable, Sendable, Hashable {
    public var `class`: String
    public var ok: Bool
    /// What happened, for people, in English.
    public var message: String
    /// `REFRESH`: `fetched`, `no_position`, `too_soon`, `failed` or `following`.
    public var outcome: String?
    /// `REFRESH`: the provider that answered.
    public var provider: String?
    /// `REFRESH`: what went wrong, in the provider error's words.
    public var error: String?
    /// `REFRESH` (`too_soon`): when the next attempt is due (RFC 3339, UTC).
    public var retryAt: String?
    /// `RELOAD`: the keys whose change was applied by this reload (none when it found nothing new: the
    /// daemon follows the file and may have applied an edit already).
    public var changed: [String]?
    /// `RELOAD`: the keys changed in the file that are read at start and wait for a restart.
    public var waitingForRestart: [String]?

    public init(class: String, ok: Bool, message: String) {
        self.class = `class`
        self.ok = ok
        self.message = message
    }

    /// The classes of answers that say what a request did.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `units`, `pin`, `unpin`, `mode`, `set`.
        case settings = "SETTINGS"
        case refresh = "REFRESH"
        case reload = "RELOAD"
    }

    public init(_ kind: Kind, ok: Bool, message: String) {
        self.init(class: kind.rawValue, ok: ok, message: message)
    }
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
