import Foundation

/// An official weather warning for the position: what, how bad, when, and who said so.
///
/// One shape for every source (NWS, MET Norway, DWD through Bright Sky, MeteoAlarm), built from the
/// CAP (Common Alerting Protocol) fields each of them carries. Encoded with the report's conventions
/// (``Report/makeEncoder(pretty:)``): snake_case keys, times as RFC 3339 strings in UTC, and a value
/// the source did not give left out rather than written as null. Documented in `docs/warnings.md`.
public struct WeatherWarning: Sendable, Hashable, Codable {
    /// forecastd's stable identifier: the CAP identifier of the first message of this warning's chain
    /// (the oldest one its `references` name, else its own), so an update keeps the id of what it updates.
    public var id: String
    /// The service it came from: `nws`, `met-norway`, `bright-sky`, `meteoalarm`, `eccc`.
    public var source: String
    /// What the warning is about, in the source's words (`Tornado Warning`, `Yellow wind warning`).
    public var event: String
    public var severity: WarningSeverity
    public var urgency: WarningUrgency?
    public var certainty: WarningCertainty?
    /// When the hazard starts (CAP `onset`, else `effective`); absent when the source did not say (then it is
    /// in force already).
    public var onset: Date?
    /// When this message expires (CAP `expires`); without ``ends`` it is also when the warning stops being in
    /// force.
    public var expires: Date?
    /// When the hazard ends, where the source says (NWS `ends`, ECCC `event_end_datetime`): the warning is in
    /// force until then, also after ``expires`` while its source still lists it.
    public var ends: Date?
    public var headline: String?
    public var description: String?
    /// What to do, when the source says.
    public var instruction: String?
    /// The area it covers, as the source names it (for people: matching never uses this text).
    public var area: String?
    /// A page with the warning, when the source gives one.
    public var url: String?
    /// When the source issued this message.
    public var sent: Date?

    /// The CAP identifier of this message (each update has its own).
    public var identifier: String
    /// The CAP sender, when known: identifiers are unique per sender.
    public var sender: String?
    /// Earlier messages this one updates or cancels.
    public var references: [CAPReference]
    public var messageType: WarningMessageType
    /// False when the source sent the warning for the position's country but neither its shapes nor its codes
    /// could say whether it covers the position: shown as "area not confirmed", never notified.
    public var areaConfirmed: Bool

    public init(
        id: String? = nil, source: String, event: String, severity: WarningSeverity,
        urgency: WarningUrgency? = nil, certainty: WarningCertainty? = nil, onset: Date? = nil,
        expires: Date? = nil, headline: String? = nil, description: String? = nil, instruction: String? = nil,
        area: String? = nil, url: String? = nil, sent: Date? = nil, identifier: String, sender: String? = nil,
        references: [CAPReference] = [], messageType: WarningMessageType = .alert, ends: Date? = nil,
        areaConfirmed: Bool = true
    ) {
        self.id = id ?? CAPReference.chainRoot(of: identifier, references: references)
        self.source = source
        self.event = event
        self.severity = severity
        self.urgency = urgency
        self.certainty = certainty
        self.onset = onset
        self.expires = expires
        self.headline = headline
        self.description = description
        self.instruction = instruction
        self.area = area
        self.url = url
        self.sent = sent
        self.identifier = identifier
        self.sender = sender
        self.references = references
        self.messageType = messageType
        self.ends = ends
        self.areaConfirmed = areaConfirmed
    }

    /// When it stops being in force: ``ends``, else ``expires``; nil when the source gave neither (then when
    /// the source drops it).
    public var until: Date? { ends ?? expires }

    /// Whether the warning is still in force at `now`.
    public func isInForce(at now: Date) -> Bool {
        guard let until else { return true }
        return until > now
    }

    /// Whether its hazard ends at or before it starts (``ends`` not after ``onset``): never in force, a source's
    /// mistake, refused as a bad entry.
    public var isNeverInForce: Bool {
        guard let onset, let ends else { return false }
        return ends <= onset
    }

    /// Whether this message only announces a hazard to come: its own ``expires`` is at or before the ``onset``
    /// and it gives no ``ends`` (NWS issues watches so, days ahead, and reissues them). Listed until the message
    /// expires, shown "from <onset>" with no end, never notified: it is not in force while it is valid.
    public var isAnnouncement: Bool {
        guard ends == nil, let onset, let expires else { return false }
        return expires <= onset
    }

    private enum CodingKeys: String, CodingKey {
        case id, source, event, severity, urgency, certainty, onset, expires, ends, headline, description
        case instruction, area, url, sent, identifier, sender, references, messageType, areaConfirmed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> Date? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let date = Timestamps.parseUTC(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "\"\(text)\" is not an RFC 3339 time")
            }
            return date
        }
        id = try container.decode(String.self, forKey: .id)
        source = try container.decode(String.self, forKey: .source)
        event = try container.decode(String.self, forKey: .event)
        severity = try container.decode(WarningSeverity.self, forKey: .severity)
        urgency = try container.decodeIfPresent(WarningUrgency.self, forKey: .urgency)
        certainty = try container.decodeIfPresent(WarningCertainty.self, forKey: .certainty)
        onset = try time(.onset)
        expires = try time(.expires)
        ends = try time(.ends)
        headline = try container.decodeIfPresent(String.self, forKey: .headline)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        instruction = try container.decodeIfPresent(String.self, forKey: .instruction)
        area = try container.decodeIfPresent(String.self, forKey: .area)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        sent = try time(.sent)
        identifier = try container.decodeIfPresent(String.self, forKey: .identifier) ?? id
        sender = try container.decodeIfPresent(String.self, forKey: .sender)
        references = try container.decodeIfPresent([CAPReference].self, forKey: .references) ?? []
        messageType = try container.decodeIfPresent(WarningMessageType.self, forKey: .messageType) ?? .alert
        areaConfirmed = try container.decodeIfPresent(Bool.self, forKey: .areaConfirmed) ?? true
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(source, forKey: .source)
        try container.encode(event, forKey: .event)
        try container.encode(severity, forKey: .severity)
        try container.encodeIfPresent(urgency, forKey: .urgency)
        try container.encodeIfPresent(certainty, forKey: .certainty)
        try container.encodeIfPresent(onset.map { Timestamps.rfc3339($0) }, forKey: .onset)
        try container.encodeIfPresent(expires.map { Timestamps.rfc3339($0) }, forKey: .expires)
        try container.encodeIfPresent(ends.map { Timestamps.rfc3339($0) }, forKey: .ends)
        try container.encodeIfPresent(headline, forKey: .headline)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(instruction, forKey: .instruction)
        try container.encodeIfPresent(area, forKey: .area)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(sent.map { Timestamps.rfc3339($0) }, forKey: .sent)
        try container.encode(identifier, forKey: .identifier)
        try container.encodeIfPresent(sender, forKey: .sender)
        if !references.isEmpty { try container.encode(references, forKey: .references) }
        try container.encode(messageType, forKey: .messageType)
        if !areaConfirmed { try container.encode(false, forKey: .areaConfirmed) }
    }
}

/// How bad a warning is, in CAP's four levels, or CAP's `Unknown` when the source does not say. Raw values
/// are stable identifiers.
public enum WarningSeverity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// CAP `Unknown`: the source gives no level (NWS does for some statements). Shown as unknown, below
    /// minor: never coloured, never read as a level it was not given.
    case unknown
    case minor, moderate, severe, extreme

    /// 0 (unknown), then 1 (minor) to 4 (extreme), for ordering and thresholds.
    public var rank: Int {
        switch self {
        case .unknown: 0
        case .minor: 1
        case .moderate: 2
        case .severe: 3
        case .extreme: 4
        }
    }

    public static func < (lhs: WarningSeverity, rhs: WarningSeverity) -> Bool { lhs.rank < rhs.rank }

    /// The level for a CAP `severity` value (any case), ``unknown`` for `Unknown`; nil for anything else.
    public init?(cap text: String?) {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        self.init(rawValue: text)
    }
}

/// CAP `urgency`: how soon to act. `Unknown` is left out of the report.
public enum WarningUrgency: String, Sendable, Hashable, Codable, CaseIterable {
    case immediate, expected, future, past

    public init?(cap text: String?) {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        self.init(rawValue: text)
    }
}

/// CAP `certainty`: how likely it is. `Unknown` is left out of the report.
public enum WarningCertainty: String, Sendable, Hashable, Codable, CaseIterable {
    case observed, likely, possible, unlikely

    public init?(cap text: String?) {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        // CAP 1.0 said "Very Likely" where 1.1 and 1.2 say "Likely".
        self.init(rawValue: text == "very likely" ? "likely" : text)
    }
}

/// CAP `msgType`: a new warning, a change to one, or its withdrawal.
public enum WarningMessageType: String, Sendable, Hashable, Codable, CaseIterable {
    case alert, update, cancel

    /// The type for a CAP `msgType` value; nil for `Ack`, `Error` and anything unknown.
    public init?(cap text: String?) {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        self.init(rawValue: text)
    }
}

/// One earlier message a CAP message refers to: CAP writes `sender,identifier,sent` triples.
public struct CAPReference: Sendable, Hashable, Codable {
    public var sender: String?
    public var identifier: String
    public var sent: Date?

    public init(sender: String?, identifier: String, sent: Date?) {
        self.sender = sender
        self.identifier = identifier
        self.sent = sent
    }

    /// Parses CAP's `references`: space-separated `sender,identifier,sent` triples. Malformed triples
    /// are skipped; a bare identifier (no commas) is taken as it is.
    public static func parseList(_ text: String?) -> [CAPReference] {
        guard let text else { return [] }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).compactMap { triple in
            let parts = triple.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 1:
                return parts[0].isEmpty ? nil : CAPReference(sender: nil, identifier: parts[0], sent: nil)
            case 3...:
                // An identifier may itself hold commas; sender is first and sent is last.
                let identifier = parts[1..<(parts.count - 1)].joined(separator: ",")
                guard !identifier.isEmpty else { return nil }
                return CAPReference(
                    sender: parts[0].isEmpty ? nil : parts[0], identifier: identifier,
                    sent: Timestamps.parseUTC(parts[parts.count - 1]))
            default:
                return nil
            }
        }
    }

    /// The identifier a chain of messages is known by: the oldest referenced message (by `sent`,
    /// then by position), or the message's own identifier when it references none.
    public static func chainRoot(of identifier: String, references: [CAPReference]) -> String {
        guard !references.isEmpty else { return identifier }
        let oldest = references.enumerated().min { a, b in
            switch (a.element.sent, b.element.sent) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.offset < b.offset
            }
        }
        return oldest?.element.identifier ?? identifier
    }

    private enum CodingKeys: String, CodingKey { case sender, identifier, sent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sender = try container.decodeIfPresent(String.self, forKey: .sender)
        identifier = try container.decode(String.self, forKey: .identifier)
        sent = try container.decodeIfPresent(String.self, forKey: .sent).flatMap(Timestamps.parseUTC)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sender, forKey: .sender)
        try container.encode(identifier, forKey: .identifier)
        try container.encodeIfPresent(sent.map { Timestamps.rfc3339($0) }, forKey: .sent)
    }
}
