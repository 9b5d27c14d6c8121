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

/// Names the place at a coordinate. Implemented offline by the gazetteer.
public protocol PlaceNaming: Sendable {
    func nearestPlace(to coordinate: Coordinate) -> Place?
    /// Gives back memory the lookups made resident (a long-running daemon looks up rarely).
    func dropResidentPages()
}

extension PlaceNaming {
    public func dropResidentPages() {}
}
