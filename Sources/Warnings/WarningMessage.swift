import ForecastModel
import Foundation

/// A code naming an area in a scheme the source uses: `EMMA_ID` `BA006`, `NUTS3` `FR718`, `UGC` `IAC113`.
public struct Geocode: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The scheme, upper-cased (`EMMA_ID`, `NUTS3`, `UGC`, `SAME`, `WARNCELLID`).
    public var scheme: String
    public var value: String

    public init(scheme: String, value: String) {
        self.scheme = scheme.trimmingCharacters(in: .whitespaces).uppercased()
        self.value = value.trimmingCharacters(in: .whitespaces)
    }

    public var description: String { "\(scheme):\(value)" }

    public static func < (lhs: Geocode, rhs: Geocode) -> Bool { lhs.description < rhs.description }
}

/// One area a warning names: its shape when the source sent one, and its codes.
public struct WarningArea: Sendable, Hashable {
    /// The source's name for it (`Haute Savoie`), shown to people, never matched.
    public var name: String?
    /// The shapes the source sent that can be judged.
    public var geometry: AreaGeometry?
    public var geocodes: [Geocode]
    /// Shapes the source sent that cannot be judged (``GeometryError``): left out, so the area's other
    /// shapes and its codes decide, and the warning is never dropped for them alone.
    public var refusedShapes: [GeometryError]

    public init(
        name: String? = nil, geometry: AreaGeometry? = nil, geocodes: [Geocode] = [], refusedShapes: [GeometryError] = []
    ) {
        self.name = name
        self.geometry = geometry
        self.geocodes = geocodes
        self.refusedShapes = refusedShapes
    }
}

/// A warning as one source sent it, with what the source says about where it applies.
public struct WarningMessage: Sendable, Hashable {
    /// How the source relates the warning to the asked position.
    public enum Coverage: Sendable, Hashable {
        /// The source answered a question about the position itself and listed this warning for it
        /// (NWS `?point=` when its answer names the point, Bright Sky when it names the warn cell).
        case confirmedForPoint
        /// The warning covers these areas; whether the position is in one of them is for forecastd to judge.
        case areas([WarningArea])
    }

    public var warning: WeatherWarning
    public var coverage: Coverage

    public init(warning: WeatherWarning, coverage: Coverage) {
        self.warning = warning
        self.coverage = coverage
    }
}

/// The bounds on what one answer may make the daemon keep (docs/reliability.md).
public enum WarningLimits {
    /// Most messages kept from one answer: past it the least severe are left out and counted
    /// (``DecodedFeed/omitted``). Real feeds hold tens to a few hundred; a whole large country's MeteoAlarm
    /// feed on a stormy day about a thousand.
    public static let maxMessagesPerFeed = 2_000
    /// Most warnings one source puts in the report (most severe first); the rest are counted in the report's
    /// `warnings_omitted`.
    public static let maxWarningsShown = 20
}

/// A shape of a warning that cannot be judged: left out, the warning's other shapes and codes decide.
public struct RefusedShape: Sendable, Hashable, CustomStringConvertible {
    /// The warning's CAP identifier (or its position in the feed, `#3`).
    public var entry: String
    public var problem: GeometryError

    public init(entry: String, problem: GeometryError) {
        self.entry = entry
        self.problem = problem
    }

    public var description: String { "a shape of warning \(entry) was left out: \(problem)" }
}

/// What a decoder made of one response: the usable messages and the entries it left out.
public struct DecodedFeed: Sendable, Hashable {
    public var messages: [WarningMessage]
    public var refused: [RefusedEntry]
    /// Shapes left out of messages that were kept.
    public var refusedShapes: [RefusedShape]
    /// Messages left out beyond ``WarningLimits/maxMessagesPerFeed`` (the least severe).
    public var omitted: Int

    public init(
        messages: [WarningMessage] = [], refused: [RefusedEntry] = [], refusedShapes: [RefusedShape] = [],
        omitted: Int = 0
    ) {
        self.messages = messages
        self.refused = refused
        self.refusedShapes = refusedShapes
        self.omitted = omitted
    }

    /// Keeps a decoded message, unless its hazard ends before it starts (refused) or the feed already keeps as
    /// many as it may (then the least severe go, counted in ``omitted``).
    mutating func keep(_ message: WarningMessage, entry: String, limit: Int = WarningLimits.maxMessagesPerFeed) {
        let warning = message.warning
        if warning.isNeverInForce, let onset = warning.onset, let ends = warning.ends {
            refused.append(RefusedEntry(entry: entry, problem: .neverInForce(from: onset, until: ends)))
            return
        }
        if case .areas(let areas) = message.coverage {
            for area in areas {
                refusedShapes += area.refusedShapes.map { RefusedShape(entry: entry, problem: $0) }
            }
        }
        messages.append(message)
        // Trimmed in batches, so a long feed is sorted a few times rather than at every message.
        if messages.count >= 2 * max(limit, 1) { trim(to: limit) }
    }

    /// Leaves the most severe `limit` messages (in feed order among equals) and counts the rest.
    mutating func trim(to limit: Int = WarningLimits.maxMessagesPerFeed) {
        guard messages.count > limit else { return }
        let order = messages.indices.sorted { a, b in
            let severityA = messages[a].warning.severity, severityB = messages[b].warning.severity
            return severityA != severityB ? severityA > severityB : a < b
        }
        let kept = Set(order.prefix(limit))
        omitted += messages.count - kept.count
        messages = messages.indices.filter { kept.contains($0) }.map { messages[$0] }
    }
}
