import ForecastModel
import Foundation
import Gazetteer
import TestSupport
import Testing

@Suite("Nearest place")
struct NearestPlaceTests {
    /// A recorded receiver's first fix and what GeoNames has nearest to it.
    struct ReceiverFix: Sendable, CustomTestStringConvertible {
        var latitude: Double, longitude: Double
        var name: String, admin1: String, countryCode: String, country: String
        /// Great-circle distance from the fix to the place, in kilometres.
        var kilometres: Double

        var testDescription: String { "\(latitude), \(longitude) → \(name)" }
    }

    /// The first fixes of the recorded receiver logs (Tests/Fixtures/nmea/README.md).
    static let receiverFixes = [
        ReceiverFix(
            latitude: 48.9043, longitude: 2.3330, name: "Saint-Ouen", admin1: "Île-de-France",
            countryCode: "FR", country: "France", kilometres: 0.2507),
        ReceiverFix(
            latitude: 50.8402, longitude: 4.3471, name: "Brussels", admin1: "Brussels Capital",
            countryCode: "BE", country: "Belgium", kilometres: 1.1458),
        ReceiverFix(
            latitude: -37.7848, longitude: 175.3149, name: "Hamilton East", admin1: "Waikato Region",
            countryCode: "NZ", country: "New Zealand", kilometres: 2.2034),
        ReceiverFix(
            latitude: 46.4983, longitude: 7.5674, name: "Adelboden", admin1: "Bern",
            countryCode: "CH", country: "Switzerland", kilometres: 0.9380),
        ReceiverFix(
            latitude: 40.3977, longitude: -3.6527, name: "Numancia", admin1: "Madrid",
            countryCode: "ES", country: "Spain", kilometres: 0.5327),
        ReceiverFix(
            latitude: 65.0504, longitude: 25.4727, name: "Linnanmaa", admin1: "North Ostrobothnia",
            countryCode: "FI", country: "Finland", kilometres: 0.6486),
        ReceiverFix(
            latitude: 38.7373, longitude: -9.1406, name: "Areeiro", admin1: "Lisbon",
            countryCode: "PT", country: "Portugal", kilometres: 0.4692),
    ]

    @Test("names the place nearest to each recorded receiver fix", arguments: receiverFixes)
    func receiverFix(_ fix: ReceiverFix) throws {
        let coordinate = Coordinate(latitude: fix.latitude, longitude: fix.longitude)
        let place = try #require(try openShipped().nearestPlace(to: coordinate))
        #expect(place.name == fix.name)
        #expect(place.admin1 == fix.admin1)
        #expect(place.countryCode == fix.countryCode)
        #expect(place.country == fix.country)
        #expect(
            abs(place.distanceKm - fix.kilometres) < 0.001,
            "distance \(place.distanceKm) km, expected \(fix.kilometres) km")
    }

    @Test("fills every field of the place from the data")
    func fullRecord() throws {
        let place = try #require(try openShipped().nearestPlace(to: Coordinate(latitude: 48.9043, longitude: 2.3330)))
        #expect(place.coordinate == Coordinate(latitude: 48.90654, longitude: 2.33339))
        #expect(place.population == 39353)
        #expect(place.timezone == "Europe/Paris")
        #expect(place.distanceKm == Coordinate(latitude: 48.9043, longitude: 2.3330).distanceKm(to: place.coordinate))
    }

    @Test("finds places across the antimeridian and from the poles")
    func wrapAround() throws {
        let gazetteer = try openShipped()
        // Fiji's Savusavu is at +179.34°: a point just west of -180° must still find it.
        for longitude in [-179.999, 179.999, -180, 180] {
            let place = try #require(gazetteer.nearestPlace(to: Coordinate(latitude: -16.8, longitude: longitude)))
            #expect(place.name == "Savusavu", "at longitude \(longitude)")
            #expect(place.distanceKm < 72)
        }
        // At a pole every longitude is the same point; the nearest place must not depend on it.
        for longitude in [-180.0, -90, 0, 45, 180] {
            let north = try #require(gazetteer.nearestPlace(to: Coordinate(latitude: 90, longitude: longitude)))
            #expect(north.name == "Longyearbyen")
            #expect(abs(north.distanceKm - 1309.51) < 0.01)
            let south = try #require(gazetteer.nearestPlace(to: Coordinate(latitude: -90, longitude: longitude)))
            #expect(south.name == "Puerto Williams")
        }
    }

    @Test("returns nil for coordinates that are not on the Earth", arguments: [
        Coordinate(latitude: .nan, longitude: 0),
        Coordinate(latitude: 0, longitude: .nan),
        Coordinate(latitude: .infinity, longitude: 0),
        Coordinate(latitude: 0, longitude: -.infinity),
        Coordinate(latitude: 90.000_001, longitude: 0),
        Coordinate(latitude: -91, longitude: 0),
        Coordinate(latitude: 0, longitude: 180.000_001),
        Coordinate(latitude: 0, longitude: -181),
    ])
    func impossibleCoordinate(_ coordinate: Coordinate) throws {
        let gazetteer = try openShipped()
        #expect(gazetteer.nearestPlace(to: coordinate) == nil)
        #expect(gazetteer.nearestIndex(to: coordinate) == nil)
    }

    @Test("answers (0, 0), which is a real place in the Gulf of Guinea")
    func nullIsland() throws {
        let place = try #require(try openShipped().nearestPlace(to: Coordinate(latitude: 0, longitude: 0)))
        #expect(place.name == "Takoradi")
    }

    /// Points the k-d tree search is checked on: uniform over the sphere, crowded near the
    /// poles and the antimeridian, and a few hundred metres from real places, where the
    /// nearest and the runner-up are close and a pruning mistake would show.
    static func probePoints(gazetteer: Gazetteer, seed: UInt64) -> [Coordinate] {
        var generator = SeededGenerator(seed: seed)
        var points: [Coordinate] = []
        for _ in 0..<1000 {
            let z = Double.random(in: -1...1, using: &generator)
            points.append(Coordinate(
                latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &generator)))
        }
        for _ in 0..<200 {
            let side: Double = Bool.random(using: &generator) ? 1 : -1
            points.append(Coordinate(
                latitude: Double.random(in: -90...90, using: &generator),
                longitude: side * Double.random(in: 178...180, using: &generator)))
        }
        for _ in 0..<150 {
            let side: Double = Bool.random(using: &generator) ? 1 : -1
            points.append(Coordinate(
                latitude: side * Double.random(in: 80...90, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator)))
        }
        for _ in 0..<625 {
            let place = gazetteer.coordinate(at: Int.random(in: 0..<gazetteer.count, using: &generator))
            points.append(Coordinate(
                latitude: min(90, max(-90, place.latitude + Double.random(in: -0.02...0.02, using: &generator))),
                longitude: min(180, max(-180, place.longitude + Double.random(in: -0.02...0.02, using: &generator)))))
        }
        for latitude in [-90.0, -89.9999, 0, 89.9999, 90] {
            for longitude in [-180.0, -179.9999, 0, 179.9999, 180] {
                points.append(Coordinate(latitude: latitude, longitude: longitude))
            }
        }
        return points
    }

    @Test("the tree search gives exactly the brute-force answer")
    func matchesBruteForce() async throws {
        // About 2,000 full scans: seconds of work, done off the cooperative pool (``onOwnThread(_:)``).
        let mismatch = try await onOwnThread { () throws -> String? in
            let gazetteer = try openShipped()
            for point in Self.probePoints(gazetteer: gazetteer, seed: 0x5EED_0001) {
                let at = "at \(point.latitude), \(point.longitude)"
                guard let tree = gazetteer.nearestIndex(to: point) else { return "\(at): the tree search found nothing" }
                guard let brute = gazetteer.nearestIndexBruteForce(to: point) else { return "\(at): the scan found nothing" }
                if tree != brute {
                    let treePlace = gazetteer.place(at: tree, distanceFrom: point)
                    let brutePlace = gazetteer.place(at: brute, distanceFrom: point)
                    return """
                        \(at): tree found \(treePlace?.name ?? "?") at \(treePlace?.distanceKm ?? .nan) km, \
                        brute force \(brutePlace?.name ?? "?") at \(brutePlace?.distanceKm ?? .nan) km
                        """
                }
            }
            return nil
        }
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test("the answer is the nearest by great-circle distance to the reported coordinates")
    func matchesHaversine() async throws {
        // Independent of the stored vectors: haversine over every place's reported coordinate (60 full scans,
        // off the cooperative pool).
        let found = try await onOwnThread { () throws -> [(point: Coordinate, best: Double, answer: Double?)] in
            let gazetteer = try openShipped()
            let coordinates = (0..<gazetteer.count).map { gazetteer.coordinate(at: $0) }
            var generator = SeededGenerator(seed: 0x5EED_0002)
            return (0..<60).map { _ in
                let z = Double.random(in: -1...1, using: &generator)
                let point = Coordinate(
                    latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &generator))
                var bestDistance = Double.infinity
                for coordinate in coordinates {
                    bestDistance = min(bestDistance, point.distanceKm(to: coordinate))
                }
                return (point, bestDistance, gazetteer.nearestPlace(to: point)?.distanceKm)
            }
        }
        #expect(found.count == 60)
        for (point, bestDistance, answer) in found {
            let distance = try #require(answer, "no place at \(point.latitude), \(point.longitude)")
            // The stored vectors place each point within about 6 mm of its reported coordinate.
            #expect(abs(distance - bestDistance) < 0.000_02, "at \(point.latitude), \(point.longitude)")
        }
    }
}
