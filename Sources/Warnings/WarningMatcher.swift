import ForecastModel
import Foundation

/// A warning whose areas are named only by codes forecastd has no shape for: it is not shown,
/// because guessing (by region name, or the whole country) is how other tools show the wrong warnings.
public struct UnplacedWarning: Sendable, Hashable {
    public var warning: WeatherWarning
    /// The codes that could not be turned into a shape (`UGC:IAC113`, `EMMA_ID:UK108`).
    public var geocodes: [Geocode]
}

/// One source's messages sorted by whether they cover the position.
public struct MatchedFeed: Sendable, Hashable {
    /// Messages that cover the position.
    public var covering: [WeatherWarning] = []
    /// Messages for other places. Kept because their `references` still retire older messages.
    public var elsewhere: [WeatherWarning] = []
    public var unplaced: [UnplacedWarning] = []
    public var refused: [RefusedEntry] = []

    public init(
        covering: [WeatherWarning] = [], elsewhere: [WeatherWarning] = [], unplaced: [UnplacedWarning] = [],
        refused: [RefusedEntry] = []
    ) {
        self.covering = covering
        self.elsewhere = elsewhere
        self.unplaced = unplaced
        self.refused = refused
    }
}

/// Decides which warnings cover a position, by geometry and never by name.
///
/// - An area with a shape (a polygon, multipolygon or circle from the source) covers the position when
///   the position is inside it (``AreaGeometry/contains(_:)``).
/// - An area named only by codes covers it when one of its codes has a shape in the shipped
///   ``MeteoAlarmAreas`` that holds the position (within the file's simplification tolerance).
/// - A message the source confirmed for the position (``WarningMessage/Coverage/confirmedForPoint``)
///   covers it.
/// - A warning covers the position when any of its areas does. When none does and some area could not
///   be shaped, the warning is unplaced rather than shown or dropped silently.
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
            var unshaped: [Geocode] = []
            var unshapedAreas = 0
            for area in list {
                if let geometry = area.geometry {
                    if geometry.contains(point) { return .covers }
                    continue
                }
                let shapes = area.geocodes.compactMap { code in areas?.geometry(for: code) }
                if shapes.isEmpty {
                    unshaped += area.geocodes
                    unshapedAreas += 1
                    continue
                }
                let tolerance = areas?.toleranceKm ?? 0
                if shapes.contains(where: { $0.contains(point, toleranceKm: tolerance) }) { return .covers }
            }
            return unshapedAreas == 0 ? .elsewhere : .unplaced(Array(Set(unshaped)).sorted())
        }
    }

    /// Sorts a decoded feed's messages by placement.
    public func match(_ feed: DecodedFeed, at point: Coordinate) -> MatchedFeed {
        var result = MatchedFeed(refused: feed.refused)
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
