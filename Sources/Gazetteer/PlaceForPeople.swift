import ForecastModel
import Foundation

/// Which name a position gets.
public enum NamingRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// The city whose area plausibly covers the point (Paris for Saint-Ouen); see `CityArea`.
    case city
    /// The nearest gazetteer entry, however small (Saint-Ouen).
    case nearest
}

/// Whether a point lies in the place it is named after, or only near it.
public enum Nearness: Sendable, Hashable, Codable {
    /// Within the place's plausible area (`CityArea.radiusKm(population:)`).
    case `in`
    /// Outside it, this far from the place's centre: "near Whitby (284 km)".
    case near(distanceKm: Double)
}

/// The name a person would use for a point, and the nearest entry kept beside it.
public struct PlaceName: Sendable, Hashable, Codable {
    /// The place to name: the covering city under `.city`, the nearest entry under `.nearest`;
    /// `distanceKm` is from the point.
    public var place: Place
    /// The nearest gazetteer entry (a district, suburb or village), with its distance from the point.
    public var locality: Place
    /// Whether the point is in `place` or only near it.
    public var nearness: Nearness
    /// The rule that chose `place`.
    public var rule: NamingRule

    public init(place: Place, locality: Place, nearness: Nearness, rule: NamingRule) {
        self.place = place
        self.locality = locality
        self.nearness = nearness
        self.rule = rule
    }

    /// "Paris", or "near Whitby (284 km)" with the distance in whole kilometres (at least 1):
    /// the place's centre is a point, so finer figures would be false precision.
    public var summary: String {
        switch nearness {
        case .in: place.name
        case .near(let distanceKm): "near \(place.name) (\(max(1, Int(distanceKm.rounded()))) km)"
        }
    }
}

/// The rule that decides which city's area covers a point (docs/naming.md gives the reasoning,
/// the examples and the counter-examples these figures were chosen from).
///
/// A place of population P plausibly covers the points within `radiusKm(population: P)` =
/// 0.22 km × P^¼ of its GeoNames point (1.2 km for 1,000 people, 3.9 km for 100,000, 8.4 km for
/// Paris's 2.1 million, 12.5 km for Moscow's 10.4 million). A city C names a point instead of the
/// nearest entry L when all of these hold:
/// 1. the point is within C's radius;
/// 2. C is in L's country and first-level division (Newark, New Jersey is not New York City;
///    Khimki, Moscow Oblast is not Moscow);
/// 3. C has at least `dominanceRatio` (8) times L's population: a district is much smaller than
///    its city, a neighbouring city is not (Cambridge, Massachusetts has a sixth of Boston's);
/// 4. no other place that also covers the point and lies nearer to it than C has more than
///    C's population / 8: such a place is a city in its own right standing between.
/// Of the cities that qualify, the most populous names the point; when none does, L does.
public enum CityArea {
    /// Kilometres of radius per fourth root of population.
    public static let radiusCoefficientKm = 0.22
    /// GeoNames lists places from 1,000 people (and seats of any size, some without a figure):
    /// smaller or unknown populations count as this many.
    public static let minimumPopulation = 1000
    /// How many times the nearest entry's population a city needs to take its name over.
    public static let dominanceRatio = 8

    /// The radius within which a place of `population` plausibly covers a point, in kilometres.
    public static func radiusKm(population: Int) -> Double {
        radiusCoefficientKm * sqrt(sqrt(Double(effectivePopulation(population))))
    }

    /// The population the rule reckons with: at least `minimumPopulation`.
    public static func effectivePopulation(_ population: Int) -> Int {
        max(population, minimumPopulation)
    }
}

extension Gazetteer {
    /// The name a person would use for `coordinate`, with the nearest entry kept as `locality`.
    ///
    /// Under `.city`, a district or suburb gives way to the city whose area plausibly covers the
    /// point (Saint-Ouen → Paris, Numancia → Madrid, Linnanmaa → Oulu; see `CityArea`); under
    /// `.nearest`, the nearest entry names it. Either way `nearness` is `.in` when the point lies
    /// within the named place's radius, else `.near(distanceKm)`, as at sea or in a desert.
    /// Returns nil for an impossible coordinate (as `nearestPlace(to:)`) or a corrupt record.
    public func placeForPeople(at coordinate: Coordinate, rule: NamingRule) -> PlaceName? {
        guard let localityIndex = nearestIndex(to: coordinate),
            let locality = place(at: localityIndex, distanceFrom: coordinate)
        else { return nil }
        var named = locality
        if rule == .city, let cityIndex = coveringCityIndex(at: coordinate, locality: localityIndex),
            let city = place(at: cityIndex, distanceFrom: coordinate)
        {
            named = city
        }
        let nearness: Nearness =
            named.distanceKm <= CityArea.radiusKm(population: named.population)
            ? .in : .near(distanceKm: named.distanceKm)
        return PlaceName(place: named, locality: locality, nearness: nearness, rule: rule)
    }

    /// The index of the city that takes the point's name over from the locality, or nil.
    func coveringCityIndex(at coordinate: Coordinate, locality: Int) -> Int? {
        guard let query = scaledUnitVector(coordinate) else { return nil }
        let localityRecord = tables.record(locality)
        guard let localityRegion = tables.region(localityRecord.region) else { return nil }
        let localityPopulation = CityArea.effectivePopulation(Int(localityRecord.population))

        // Every place whose radius covers the point, in the locality's country and division.
        var search = CoverSearch(tables: tables, query: query)
        search.run(count: tables.count)
        struct Cover {
            var index: Int
            var population: Int
            var distanceKm: Double
        }
        var covers: [Cover] = []
        for index in search.found {
            let record = tables.record(index)
            guard record.region == localityRecord.region || sameDivision(record.region, localityRegion) else {
                continue
            }
            let distanceKm = coordinate.distanceKm(to: self.coordinate(at: index))
            let population = Int(record.population)
            // The tree search bounds by chord, slightly generous; the rule uses great-circle km.
            guard distanceKm <= CityArea.radiusKm(population: population) else { continue }
            covers.append(
                Cover(index: index, population: CityArea.effectivePopulation(population), distanceKm: distanceKm))
        }
        covers.sort { ($0.population, $1.index) > ($1.population, $0.index) }

        let ratio = CityArea.dominanceRatio
        for city in covers {
            guard city.population >= ratio * localityPopulation else { break }
            let standsBetween = covers.contains { other in
                other.distanceKm < city.distanceKm && other.population < city.population
                    && city.population < ratio * other.population
            }
            if !standsBetween { return city.index }
        }
        return nil
    }

    /// Whether the region at `index` has the same country and admin1 as `region`; an empty admin1
    /// on either side (GeoNames has about 600 such places) matches any in the country.
    private func sameDivision(
        _ index: Int, _ region: (admin1: UInt32, timezone: UInt32, countryName: UInt32, countryCode: String)
    ) -> Bool {
        guard let other = tables.region(index), other.countryCode == region.countryCode else { return false }
        // Equal strings share one reference: the table stores each distinct string once.
        return other.admin1 == region.admin1 || other.admin1 & 0xFF == 0 || region.admin1 & 0xFF == 0
    }
}

/// Finds every place whose `CityArea` radius may reach a point, down the k-d tree.
///
/// Each node's fourth word carries the largest population in its subtree, so a subtree whose
/// cell lies farther from the point than the radius of that population is skipped whole: in a
/// dense region, only the few cells holding large cities are opened beyond a couple of kilometres.
/// The test is on chords, which are never longer than the arcs they span, so using the radius as
/// a chord bound keeps every place that qualifies (and a few that the caller then drops).
struct CoverSearch {
    let tables: GazetteerTables
    let query: (x: Double, y: Double, z: Double)
    /// Squared chord (in stored units) per square root of population: radius² = a² √P.
    private let scaleSquaredPerRootPopulation: Double
    private(set) var found: [Int] = []

    init(tables: GazetteerTables, query: (x: Double, y: Double, z: Double)) {
        self.tables = tables
        self.query = query
        let unitsPerKm = tables.scale / Coordinate.earthRadiusKm
        scaleSquaredPerRootPopulation =
            CityArea.radiusCoefficientKm * CityArea.radiusCoefficientKm * unitsPerKm * unitsPerKm
    }

    /// The squared chord bound for a population (a slight over-estimate: see the type's comment).
    @inline(__always)
    private func reachSquared(_ population: UInt32) -> Double {
        sqrt(Double(max(Int(population), CityArea.minimumPopulation))) * scaleSquaredPerRootPopulation
    }

    mutating func run(count: Int) {
        visit(0, count, offsets: CellOffsets())
    }

    private mutating func visit(_ lowerBound: Int, _ upperBound: Int, offsets: CellOffsets) {
        guard lowerBound < upperBound else { return }
        let mid = lowerBound + (upperBound - lowerBound) >> 1
        let split = tables.split(mid)
        let reach = reachSquared(split.largestPopulation)
        // The cell lies at least `offsets` away: nothing in it can reach the point.
        if offsets.squaredLength > reach { return }

        let point = tables.nodes + GazetteerFormat.wordsPerEntry * mid
        let dx = query.x - Double(point[0])
        let dy = query.y - Double(point[1])
        let dz = query.z - Double(point[2])
        let distance = dx * dx + dy * dy + dz * dz
        if distance <= reach, distance <= reachSquared(tables.record(mid).population) {
            found.append(mid)
        }
        let (side, farOffsets) = offsets.split(axis: split.axis, dx: dx, dy: dy, dz: dz)
        // The query's side first, then the far side with its tighter bound.
        if side < 0 {
            visit(lowerBound, mid, offsets: offsets)
            visit(mid + 1, upperBound, offsets: farOffsets)
        } else {
            visit(mid + 1, upperBound, offsets: offsets)
            visit(lowerBound, mid, offsets: farOffsets)
        }
    }
}

extension Gazetteer {
    /// ``placeForPeople(at:rule:)`` in the model's terms, for the daemon.
    public func namedPlace(at coordinate: Coordinate, preferCity: Bool) -> NamedPlace? {
        guard let named = placeForPeople(at: coordinate, rule: preferCity ? .city : .nearest) else { return nil }
        let isNear: Bool
        switch named.nearness {
        case .in: isNear = false
        case .near: isNear = true
        }
        let sameEntry = named.locality.name == named.place.name && named.locality.coordinate == named.place.coordinate
        return NamedPlace(place: named.place, locality: sameEntry ? nil : named.locality, isNear: isNear)
    }
}
