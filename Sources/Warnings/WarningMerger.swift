import ForecastModel
import Foundation

/// The warnings in force at a position, in the order a bar shows them, and when the list next changes
/// by itself.
public struct MergedWarnings: Sendable, Hashable {
    /// Those whose area is confirmed first, each group most severe first, then the earliest onset; at most
    /// ``WarningLimits/maxWarningsShown``.
    public var warnings: [WeatherWarning]
    /// How many more were in force here beyond ``warnings`` (the least severe).
    public var omitted: Int
    /// The earliest end (``WeatherWarning/until``) among the warnings in force, listed or not: the daemon sets a timer for it and
    /// merges again then, instead of polling.
    public var nextExpiry: Date?

    public init(warnings: [WeatherWarning] = [], omitted: Int = 0, nextExpiry: Date? = nil) {
        self.warnings = warnings
        self.omitted = omitted
        self.nextExpiry = nextExpiry
    }
}

/// Turns the messages of all sources into the list of warnings in force.
///
/// - A message that another message references (by CAP identifier) is replaced by it: an `Update`
///   takes its place, a `Cancel` removes it. A `Cancel` is never shown itself. References count
///   whichever area the referring message covers, so an update that moves a warning away from the
///   position removes it there.
/// - The same CAP identifier from two sources (DWD through Bright Sky and through MeteoAlarm, say) is
///   one warning; the source earlier in ``sourcePreference`` is kept, and a copy whose area is confirmed
///   before one whose area is not.
/// - Of messages that share a chain (``WeatherWarning/id``), only the latest sent is kept.
/// - Unplaced messages (``MatchedFeed/unplaced``) are kept with ``WeatherWarning/areaConfirmed`` false.
/// - Warnings whose end (``WeatherWarning/until``) is not after `now` are removed.
/// - At most `limit` are kept, most severe first; the rest are counted.
public enum WarningMerger {
    /// Which source's copy to keep when two carry the same message: the issuers' own services first.
    public static let sourcePreference = [
        NWSDecoder.sourceName, MetNorwayAlertsDecoder.sourceName, BrightSkyDecoder.sourceName,
        ECCCDecoder.sourceName, MeteoAlarmDecoder.sourceName,
    ]

    public static func merge(_ feeds: [MatchedFeed], now: Date, limit: Int = WarningLimits.maxWarningsShown)
        -> MergedWarnings
    {
        let all = feeds.flatMap { $0.covering + $0.elsewhere + $0.unplaced.map(\.warning) }
        var retired: Set<String> = []
        for message in all {
            for reference in message.references { retired.insert(reference.identifier) }
            if message.messageType == .cancel { retired.insert(message.identifier) }
        }
        func rank(_ source: String) -> Int { sourcePreference.firstIndex(of: source) ?? sourcePreference.count }
        /// Which of two copies to keep: the confirmed one, then the preferred source.
        func better(_ a: WeatherWarning, than b: WeatherWarning) -> Bool {
            if a.areaConfirmed != b.areaConfirmed { return a.areaConfirmed }
            return rank(a.source) < rank(b.source)
        }

        let candidates =
            feeds.flatMap(\.covering)
            + feeds.flatMap(\.unplaced).map { unplaced in
                var warning = unplaced.warning
                warning.areaConfirmed = false
                return warning
            }
        var byIdentifier: [String: WeatherWarning] = [:]
        for message in candidates where !retired.contains(message.identifier) && message.isInForce(at: now) {
            if let kept = byIdentifier[message.identifier], !better(message, than: kept) { continue }
            byIdentifier[message.identifier] = message
        }
        var byChain: [String: WeatherWarning] = [:]
        for message in byIdentifier.values {
            if let kept = byChain[message.id] {
                let keptSent = kept.sent ?? .distantPast, sent = message.sent ?? .distantPast
                if keptSent > sent || (keptSent == sent && kept.identifier <= message.identifier) { continue }
            }
            byChain[message.id] = message
        }
        let sorted = byChain.values.sorted { a, b in
            if a.areaConfirmed != b.areaConfirmed { return a.areaConfirmed }
            if a.severity != b.severity { return a.severity > b.severity }
            let onsetA = a.onset ?? .distantPast, onsetB = b.onset ?? .distantPast
            if onsetA != onsetB { return onsetA < onsetB }
            if a.source != b.source { return rank(a.source) < rank(b.source) }
            return a.id < b.id
        }
        // The bound keeps the most severe whatever their area: a confirmed minor warning gives way to an
        // extreme one whose area is not confirmed only when both cannot be listed.
        let kept = Set(
            sorted.indices.sorted { sorted[$0].severity != sorted[$1].severity ? sorted[$0].severity > sorted[$1].severity : $0 < $1 }
                .prefix(max(limit, 0)))
        let warnings = sorted.indices.filter { kept.contains($0) }.map { sorted[$0] }
        return MergedWarnings(
            warnings: warnings, omitted: sorted.count - warnings.count, nextExpiry: sorted.compactMap(\.until).min())
    }
}
