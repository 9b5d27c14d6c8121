import ForecastModel
import Foundation

/// The warnings in force at a position, in the order a bar shows them, and when the list next changes
/// by itself.
public struct MergedWarnings: Sendable, Hashable {
    /// Most severe first, then the earliest onset.
    public var warnings: [WeatherWarning]
    /// The earliest `expires` among ``warnings``: the daemon sets a timer for it and merges again
    /// then, instead of polling.
    public var nextExpiry: Date?

    public init(warnings: [WeatherWarning] = [], nextExpiry: Date? = nil) {
        self.warnings = warnings
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
///   one warning; the source earlier in ``sourcePreference`` is kept.
/// - Of messages that share a chain (``WeatherWarning/id``), only the latest sent is kept.
/// - Warnings whose `expires` is not after `now` are removed.
public enum WarningMerger {
    /// Which source's copy to keep when two carry the same message: the issuers' own services first.
    public static let sourcePreference = [
        NWSDecoder.sourceName, MetNorwayAlertsDecoder.sourceName, BrightSkyDecoder.sourceName,
        MeteoAlarmDecoder.sourceName,
    ]

    public static func merge(_ feeds: [MatchedFeed], now: Date) -> MergedWarnings {
        let all = feeds.flatMap { $0.covering + $0.elsewhere + $0.unplaced.map(\.warning) }
        var retired: Set<String> = []
        for message in all {
            for reference in message.references { retired.insert(reference.identifier) }
            if message.messageType == .cancel { retired.insert(message.identifier) }
        }
        func rank(_ source: String) -> Int { sourcePreference.firstIndex(of: source) ?? sourcePreference.count }

        var byIdentifier: [String: WeatherWarning] = [:]
        for message in feeds.flatMap(\.covering)
        where !retired.contains(message.identifier) && message.isInForce(at: now) {
            if let kept = byIdentifier[message.identifier], rank(kept.source) <= rank(message.source) { continue }
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
        let warnings = byChain.values.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            let onsetA = a.onset ?? .distantPast, onsetB = b.onset ?? .distantPast
            if onsetA != onsetB { return onsetA < onsetB }
            if a.source != b.source { return rank(a.source) < rank(b.source) }
            return a.id < b.id
        }
        return MergedWarnings(warnings: warnings, nextExpiry: warnings.compactMap(\.expires).min())
    }
}
