import Foundation

/// A named place from the gazetteer, and how far the asked-for point is from it.
public struct Place: Sendable, Hashable, Codable {
    public var name: String
    /// First-level division (state, province, region); nil when the data has none.
    public var admin1: String?
    /// English country name.
    public var country: String
    /// ISO 3166-1 alpha-2 code.
    public var countryCode: String
    public var population: Int
    public var coordinate: Coordinate
    /// IANA time zone of the place, when known.
    public var timezone: String?
    /// Great-circle distance from the point that was looked up, in kilometres.
    public var distanceKm: Double

    public init(
        name: String, admin1: String?, country: String, countryCode: String, population: Int,
        coordinate: Coordinate, timezone: String?, distanceKm: Double
    ) {
        self.name = name
        self.admin1 = admin1
        self.country = country
        self.countryCode = countryCode
        self.population = population
        self.coordinate = coordinate
        self.timezone = timezone
        self.distanceKm = distanceKm
    }
}

extension Place {
    /// The place as messages name it: `Paris, Île-de-France, FR (48.8534, 2.3488; 2.1 M people)`.
    public var summary: String {
        let region = [admin1, countryCode].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        let people =
            population >= 1_000_000
            ? String(format: "%.1f M people", Double(population) / 1_000_000)
            : population >= 1000 ? "\(population / 1000) k people" : "\(population) people"
        let position = String(format: "%.4f, %.4f", coordinate.latitude, coordinate.longitude)
        return "\(name), \(region) (\(position); \(people))"
    }
}

/// The name a person would use for a point, with the nearest locality kept beside it.
public struct NamedPlace: Sendable, Hashable {
    /// The place to show (the covering city, or the nearest locality).
    public var place: Place
    /// The nearest gazetteer entry, when it differs from ``place``.
    public var locality: Place?
    /// True when the point is not in ``place`` but only near it (at sea, in a desert).
    public var isNear: Bool

    public init(place: Place, locality: Place?, isNear: Bool) {
        self.place = place
        self.locality = locality
        self.isNear = isNear
    }
}

/// Names the place at a coordinate. Implemented offline by the gazetteer.
public protocol PlaceNaming: Sendable {
    func nearestPlace(to coordinate: Coordinate) -> Place?
    /// The name people use: with `preferCity`, the city whose area covers the point rather than a
    /// district or suburb of it.
    func namedPlace(at coordinate: Coordinate, preferCity: Bool) -> NamedPlace?
}

extension PlaceNaming {
    public func namedPlace(at coordinate: Coordinate, preferCity: Bool) -> NamedPlace? {
        nearestPlace(to: coordinate).map { NamedPlace(place: $0, locality: nil, isNear: false) }
    }
}

/// What a place name resolves to.
public enum NameResolution: Sendable, Hashable {
    /// One place clearly meant.
    case unique(Place)
    /// Several plausible places, largest first, to list so the user can be more precise.
    case ambiguous([Place])
    /// No place has this name (with these qualifiers).
    case notFound
}

/// Finds places by name. Implemented offline by the gazetteer; `pin PLACE` asks it, through
/// forecastctl and the socket alike.
public protocol PlaceSearching: Sendable {
    /// One place, a short list of plausible places, or nothing, for a name such as `Paris, TX`.
    func resolve(_ name: String) -> NameResolution
}
