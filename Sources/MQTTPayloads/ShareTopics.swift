import Foundation

/// Where a forecastd publishes on MQTT, under one base topic (`forecastd/pi-van`):
///
/// | topic | retained payload |
/// | --- | --- |
/// | `BASE/status` | `online` while connected; `offline` (the connection's last will, or said on a graceful stop) |
/// | `BASE/report` | the report for here (``SharedReport``) |
/// | `BASE/cities/ID/report` | a listed city's report, in the same form; emptied when the city leaves the list |
///
/// A followed topic is a base topic of another forecastd.
public struct ShareTopics: Sendable, Hashable {
    public let base: String

    /// The longest base topic accepted, in bytes of UTF-8 (MQTT allows 65535; brokers and Home Assistant's
    /// discovery ids are happier with short ones).
    public static let maximumBaseBytes = 200

    /// Checks `base`: MQTT's rules for a topic one publishes to, plus no empty level, so that every topic under
    /// it is well formed too.
    public init(base: String) throws(ShareTopicError) {
        if let problem = Self.problem(base) { throw ShareTopicError(topic: base, problem: problem) }
        self.base = base
    }

    /// Why `base` cannot be a base topic, nil when it can.
    public static func problem(_ base: String) -> String? {
        let bytes = base.utf8.count
        if base.isEmpty { return "is empty" }
        if bytes > maximumBaseBytes { return "is \(bytes) bytes long, more than the \(maximumBaseBytes) allowed" }
        if base.contains("+") || base.contains("#") { return "contains a wildcard (+ or #), which only subscriptions may" }
        if base.unicodeScalars.contains(where: { $0.value == 0 || $0.properties.generalCategory == .control }) {
            return "contains a control character"
        }
        if base.hasPrefix("$") { return "starts with $, which brokers keep for themselves ($SYS)" }
        if base.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "has an empty level (a leading, trailing or doubled /)"
        }
        return nil
    }

    public var status: String { base + "/status" }
    public var report: String { base + "/report" }
    public func cityReport(_ id: String) -> String { base + "/cities/\(id)/report" }
    /// The subscription that receives every city's report.
    public var cityReports: String { base + "/cities/+/report" }

    /// The city id of a topic `BASE/cities/ID/report`, nil for any other topic.
    public func cityID(ofReportTopic topic: String) -> String? {
        let prefix = base + "/cities/"
        guard topic.hasPrefix(prefix), topic.hasSuffix("/report") else { return nil }
        let id = topic.dropFirst(prefix.count).dropLast("/report".count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    /// The base topic as an id Home Assistant accepts (`[a-zA-Z0-9_-]`): `forecastd/pi-van` → `forecastd_pi-van`.
    public var nodeID: String { Self.identifier(base) }

    /// `text` with every character outside `[a-zA-Z0-9_-]` replaced by `_`.
    public static func identifier(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                let ascii = scalar.isASCII ? UInt8(scalar.value) : 0
                let allowed =
                    (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A)
                    || (ascii >= 0x61 && ascii <= 0x7A) || ascii == 0x5F || ascii == 0x2D
                return allowed ? Character(scalar) : "_"
            })
    }

    /// The default base topic of a machine: `forecastd/` and its host name, with what a topic level cannot hold
    /// (`+`, `#`, `/`, control characters) turned into `_`.
    public static func defaultBase(hostname: String) -> String {
        let cleaned = String(
            hostname.unicodeScalars.prefix(64).map { scalar -> Character in
                scalar == "+" || scalar == "#" || scalar == "/" || scalar.properties.generalCategory == .control
                    ? "_" : Character(scalar)
            })
        return "forecastd/" + (cleaned.isEmpty || cleaned.hasPrefix("$") ? "localhost" : cleaned)
    }
}

/// The payloads of `BASE/status`.
public enum ShareStatus: String, Sendable, Hashable, CaseIterable {
    case online
    case offline
}

/// A base topic that MQTT or forecastd does not allow.
public struct ShareTopicError: Error, Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var problem: String
    public init(topic: String, problem: String) {
        self.topic = topic
        self.problem = problem
    }
    public var description: String { "the topic \"\(topic)\" \(problem)" }
}
