import ForecastModel
import Foundation
import Testing

@testable import Gazetteer

@Suite("Names people use")
struct NamingRuleTests {
    /// A point, the nearest GeoNames entry, and the name a person there would use.
    struct Example: Sendable, CustomTestStringConvertible {
        var what: String
        var latitude: Double, longitude: Double
        var locality: String
        var city: String
        var countryCode: String

        var testDescription: String { "\(what): \(locality) → \(city)" }
        var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
    }

    /// The recorded receivers' first fixes (Tests/Fixtures/nmea/README.md) and Moscow's
    /// Novyye Cheryomushki: districts and suburbs that people name after their city.
    static let districts = [
        Example(
            what: "gpslim236.log", latitude: 48.9043, longitude: 2.3330, locality: "Saint-Ouen", city: "Paris",
            countryCode: "FR"),
        Example(
            what: "garmin-geko201.log", latitude: 40.3977, longitude: -3.6527, locality: "Numancia", city: "Madrid",
            countryCode: "ES"),
        Example(
            what: "polarx2.log", latitude: 38.7373, longitude: -9.1406, locality: "Areeiro", city: "Lisbon",
            countryCode: "PT"),
        Example(
            what: "nokia-ld-4w.log", latitude: 65.0504, longitude: 25.4727, locality: "Linnanmaa", city: "Oulu",
            countryCode: "FI"),
        Example(
            what: "bu353s4.log", latitude: -37.7848, longitude: 175.3149, locality: "Hamilton East",
            city: "Hamilton", countryCode: "NZ"),
        Example(
            what: "Novyye Cheryomushki", latitude: 55.6833, longitude: 37.5833, locality: "Novyye Cherëmushki",
            city: "Moscow", countryCode: "RU"),
        Example(
            what: "Paris 15th arrondissement", latitude: 48.8412, longitude: 2.3003, locality: "Paris 15 Vaugirard",
            city: "Paris", countryCode: "FR"),
        Example(
            what: "Setagaya ward", latitude: 35.64188, longitude: 139.64715, locality: "Setagaya", city: "Tokyo",
            countryCode: "JP"),
    ]

    /// Places that keep their own name: a city that stands alone (Brussels, Adelboden far from
    /// Bern), and separate towns next to big cities, each kept by a different part of the rule.
    static let ownNames = [
        Example(
            what: "telit-he910.log", latitude: 50.8402, longitude: 4.3471, locality: "Brussels", city: "Brussels",
            countryCode: "BE"),
        Example(
            what: "bu303-moving.log", latitude: 46.4983, longitude: 7.5674, locality: "Adelboden", city: "Adelboden",
            countryCode: "CH"),
        // Beyond Paris's 8.4 km radius (9.2 km from its centre).
        Example(
            what: "Saint-Denis basilica", latitude: 48.9356, longitude: 2.3539, locality: "Saint-Denis",
            city: "Saint-Denis", countryCode: "FR"),
        Example(
            what: "Versailles palace", latitude: 48.8049, longitude: 2.1204, locality: "Versailles",
            city: "Versailles", countryCode: "FR"),
        // Within New York City's 12 km radius and a 33rd of its size, but in New Jersey: only the
        // division rule keeps it. Khimki, in Moscow Oblast, is also beyond Moscow's radius.
        Example(
            what: "Jersey City, New Jersey", latitude: 40.7282, longitude: -74.0776, locality: "Jersey City",
            city: "Jersey City", countryCode: "US"),
        Example(
            what: "Khimki, Moscow Oblast", latitude: 55.8970, longitude: 37.4297, locality: "Khimki", city: "Khimki",
            countryCode: "RU"),
        // Cities in their own right: a sixth of Boston's, a third of Lisbon's, half of Helsinki's people.
        // At Cambridge's city hall the nearest entry is Mid-Cambridge, a neighbourhood: Boston covers
        // the point too, but Cambridge stands between and names it.
        Example(
            what: "Cambridge, Massachusetts", latitude: 42.3736, longitude: -71.1097, locality: "Mid-Cambridge",
            city: "Cambridge", countryCode: "US"),
        Example(
            what: "Amadora", latitude: 38.7538, longitude: -9.2308, locality: "Amadora", city: "Amadora",
            countryCode: "PT"),
        Example(
            what: "Espoo", latitude: 60.2052, longitude: 24.6522, locality: "Espoo", city: "Espoo", countryCode: "FI"),
        Example(
            what: "Kawasaki", latitude: 35.5206, longitude: 139.7172, locality: "Kawasaki", city: "Kawasaki",
            countryCode: "JP"),
    ]

    @Test("a district or suburb is named after its city", arguments: districts)
    func district(_ example: Example) throws {
        try check(example)
    }

    @Test("a town that is its own place keeps its name", arguments: ownNames)
    func ownName(_ example: Example) throws {
        try check(example)
    }

    private func check(_ example: Example, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let gazetteer = try openShipped()
        let named = try #require(gazetteer.placeForPeople(at: example.coordinate, rule: .city))
        #expect(named.place.name == example.city, sourceLocation: sourceLocation)
        #expect(named.place.countryCode == example.countryCode, sourceLocation: sourceLocation)
        #expect(named.locality.name == example.locality, sourceLocation: sourceLocation)
        #expect(named.nearness == .in, sourceLocation: sourceLocation)
        #expect(named.rule == .city, sourceLocation: sourceLocation)
        #expect(named.summary == example.city, sourceLocation: sourceLocation)
        // Distances are from the point, for both.
        #expect(
            named.place.distanceKm == example.coordinate.distanceKm(to: named.place.coordinate),
            sourceLocation: sourceLocation)
        #expect(named.locality == gazetteer.nearestPlace(to: example.coordinate), sourceLocation: sourceLocation)

        let nearest = try #require(gazetteer.placeForPeople(at: example.coordinate, rule: .nearest))
        #expect(nearest.place == nearest.locality, sourceLocation: sourceLocation)
        #expect(nearest.place.name == example.locality, sourceLocation: sourceLocation)
        #expect(nearest.rule == .nearest, sourceLocation: sourceLocation)
    }

    @Test("Saint-Ouen: Paris 5.8 km away, with Saint-Ouen kept as the locality")
    func saintOuenDetails() throws {
        let named = try #require(
            try openShipped().placeForPeople(at: Coordinate(latitude: 48.9043, longitude: 2.3330), rule: .city))
        #expect(named.place.population == 2_138_551)
        #expect(abs(named.place.distanceKm - 5.78) < 0.01)
        #expect(abs(named.locality.distanceKm - 0.2507) < 0.001)
        #expect(named.locality.population == 39353)
    }

    /// Points far from any place, with the nearest place and its distance in whole kilometres.
    static let farAway: [(String, Coordinate, String, Int)] = [
        ("mid-Atlantic", Coordinate(latitude: 30, longitude: -40), "Lajes das Flores", 1317),
        ("North Sea", Coordinate(latitude: 56, longitude: 3), "Whitby", 284),
        ("Sahara", Coordinate(latitude: 23.5, longitude: 12.5), "Al Qaţrūn", 271),
        ("Empty Quarter", Coordinate(latitude: 20, longitude: 50), "Rumāh", 289),
    ]

    @Test("at sea and in deserts the name says near, with the distance", arguments: farAway)
    func far(what: String, coordinate: Coordinate, name: String, kilometres: Int) throws {
        let gazetteer = try openShipped()
        for rule in NamingRule.allCases {
            let named = try #require(gazetteer.placeForPeople(at: coordinate, rule: rule))
            #expect(named.place.name == name, "\(what)")
            #expect(named.place == named.locality, "\(what): no city covers the open sea or the desert")
            #expect(named.nearness == .near(distanceKm: named.locality.distanceKm))
            #expect(Int(named.locality.distanceKm.rounded()) == kilometres)
            #expect(named.summary == "near \(name) (\(kilometres) km)")
        }
    }

    @Test("a point outside a village's small radius is near it, not in it")
    func nearVillage() throws {
        // 3.3 km south-west of Adelboden's centre: the radius of 3,541 people is 1.7 km.
        let point = Coordinate(latitude: 46.4700, longitude: 7.5400)
        let named = try #require(try openShipped().placeForPeople(at: point, rule: .city))
        #expect(named.place.name == "Adelboden")
        guard case .near(let distanceKm) = named.nearness else {
            Issue.record("expected near, got \(named.nearness)")
            return
        }
        #expect(distanceKm > CityArea.radiusKm(population: 3541))
        #expect(named.summary == "near Adelboden (\(Int(distanceKm.rounded())) km)")
    }

    @Test("the radius grows with the fourth root of the population")
    func radius() {
        #expect(abs(CityArea.radiusKm(population: 1000) - 1.237) < 0.001)
        #expect(abs(CityArea.radiusKm(population: 0) - 1.237) < 0.001)
        #expect(abs(CityArea.radiusKm(population: 2_138_551) - 8.413) < 0.001)
        #expect(abs(CityArea.radiusKm(population: 216_066) - 4.744) < 0.001)
    }

    @Test("returns nil where nearestPlace does", arguments: [
        Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 91, longitude: 0),
    ])
    func impossible(_ coordinate: Coordinate) throws {
        #expect(try openShipped().placeForPeople(at: coordinate, rule: .city) == nil)
    }

    @Test("the covering search finds exactly the places a full scan finds")
    func coverSearchMatchesScan() throws {
        let gazetteer = try openShipped()
        let tables = gazetteer.tables
        defer { withExtendedLifetime(gazetteer) {} }
        var generator = SeededGenerator(seed: 0x5EED_0003)
        var points: [Coordinate] = []
        // Around large places, where many radii overlap, and anywhere.
        let large = (0..<tables.count).filter { tables.record($0).population > 500_000 }
        for _ in 0..<60 {
            let centre = gazetteer.coordinate(at: large.randomElement(using: &generator)!)
            points.append(
                Coordinate(
                    latitude: centre.latitude + Double.random(in: -0.15...0.15, using: &generator),
                    longitude: centre.longitude + Double.random(in: -0.15...0.15, using: &generator)))
        }
        for _ in 0..<20 {
            let z = Double.random(in: -1...1, using: &generator)
            points.append(
                Coordinate(
                    latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &generator)))
        }
        let unitsPerKm = tables.scale / Coordinate.earthRadiusKm
        for point in points {
            let query = try #require(gazetteer.scaledUnitVector(point))
            var search = CoverSearch(tables: tables, query: query)
            search.run(count: tables.count)
            var expected: [Int] = []
            for index in 0..<tables.count {
                let node = tables.nodes + 4 * index
                let dx = query.x - Double(node[0])
                let dy = query.y - Double(node[1])
                let dz = query.z - Double(node[2])
                let reach = CityArea.radiusKm(population: Int(tables.record(index).population)) * unitsPerKm
                if dx * dx + dy * dy + dz * dz <= reach * reach { expected.append(index) }
            }
            let found = search.found.sorted()
            // The search's bound is computed differently (√P times a²): allow last-bit differences
            // only, never a missing city.
            #expect(Set(expected).isSubset(of: Set(found)), "at \(point.latitude), \(point.longitude)")
            #expect(found.count - expected.count <= 1, "at \(point.latitude), \(point.longitude)")
        }
    }
}
