import ForecastModel
import Foundation

/// A warning whose area neither its shapes nor its codes can place: kept, and shown as "area not confirmed"
/// (never notified), because dropping it silently is worse than showing one that may be elsewhere in the country.
public struct UnplacedWarning: Sendable, Hashable {
    public var warning: WeatherWarning
    /// The codes that could not be turned into a shape (`UGC:IAC113`, `EMMA_ID:UK108`).
    public var geocodes: [Geocode]

    public init(warning: WeatherWarning, geocodes: [Geocode]) {
        self.warning = warning
        self.geocodes = geocodes
    }
}

/// One source's messages sorted by whether they cover the position.
public struct MatchedFeed: Sendable, Hashable {
    /// Messages that cover the position.
    public var covering: [WeatherWarning] = []
    /// Messages for other places. Kept because their `references` still retire older messages.
    public var elsewhere: [WeatherWarning] = []
    /// Messages whose area could not be decided.
    public var unplaced: [UnplacedWarning] = []
    public var refused: [RefusedEntry] = []
    /// Shapes left out of kept messages.
    public var refusedShapes: [RefusedShape] = []
    /// Messages the feed held beyond ``WarningLimits/maxMessagesPerFeed``, not read.
    public var omitted = 0

    public init(
        covering: [WeatherWarning] = [], elsewhere: [WeatherWarning] = [], unplaced: [UnplacedWarning] = [],
        refused: [RefusedEntry] = [], refusedShapes: [RefusedShape] = [], omitted: Int = 0
    ) {
        self.covering = covering
        self.elsewhere = elsewhere
        self.unplaced = unplaced
        self.refused = refused
        self.refusedShapes = refusedShapes
        self.omitted = omitted
    }
}

/// Decides which warnings cover a position, by geometry and never by name.
///
/// - An area's own shapes decide when one holds the position, or when all of them could be judged and none
///   holds it.
/// - Otherwise (no shape sent, or one of them could not be judged) its codes decide: the area covers the
///   position when one of its codes has a shipped shape (``MeteoAlarmAreas``: MeteoAlarm's EMMA_ID regions,
///   Eurostat's NUTS regions) that holds it within that shape's simplification tolerance, and not when its
///   codes have shapes and none holds it.
/// - A message the source confirmed for the position (``WarningMessage/Coverage/confirmedForPoint``)
///   covers it.
/// - A warning covers the position when any of its areas does. When none does and some area could be decided
///   neither way, the warning is unplaced: shown with its area not confirmed, never dropped silently.
public struct WarningMatcher: Sendable {
    public let areas: MeteoAlarmAreas?

    public init(areas: MeteoAlarmAreas? = nil) {
        self.areas = areas
    }

    public enum Placement: Sendable, Hashable {
        case covers
        case elsewhere
        case unplaced([Geocode])
    }

    public func placement(of message: WarningMessage, at point: Coordinate) -> Placement {
        switch message.coverage {
        case .confirmedForPoint:
            return .covers
        case .areas(let list):
            var undecided: [Geocode] = []
            var undecidedAreas = 0
            for area in list {
                if let geometry = area.geometry {
                    if geometry.contains(point) { return .covers }
                    // Every shape judged and none holds the point: decided.
                    if area.refusedShapes.isEmpty { continue }
                }
                let shapes = area.geocodes.compactMap { code in areas?.shape(for: code) }
                if !shapes.isEmpty {
                    if shapes.contains(where: { $0.geometry.contains(point, toleranceKm: $0.toleranceKm) }) {
                        return .covers
                    }
                    continue
                }
                undecided += area.geocodes
                undecidedAreas += 1
            }
            return undecidedAreas == 0 ? .elsewhere : .unplaced(Array(Set(undecided)).sorted())
        }
    }

    /// Sorts a decoded feed's messages by placement.
    public func match(_ feed: DecodedFeed, at point: Coordinate) -> MatchedFeed {
        var result = MatchedFeed(refused: feed.refused, refusedShapes: feed.refusedShapes, omitted: feed.omitted)
        for message in feed.messages {
            switch placement(of: message, at: point) {
            case .covers: result.covering.append(message.warning)
            case .elsewhere: result.elsewhere.append(message.warning)
            case .unplaced(let codes):
                result.unplaced.append(UnplacedWarning(warning: message.warning, geocodes: codes))
            }
        }
        return result
    }
}
