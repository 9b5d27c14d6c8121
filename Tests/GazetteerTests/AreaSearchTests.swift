import ForecastModel
import Foundation
import Gazetteer
import TestSupport
import Testing

/// The places a map shows as dots when it has no tiles: the largest in its view.
@Suite("Largest places in an area")
struct AreaSearchTests {
    @Test("a view of Île-de-France shows Paris first, then the largest towns around it, all inside the view")
    func paris() throws {
        let gazetteer = try openShipped()
        let area = try #require(MapArea(south: 48.5, west: 1.8, north: 49.2, east: 3.0))
        let places = gazetteer.largestPlaces(in: area, limit: 20)
        #expect(places.count == 20)
        #expect(places.first?.name == "Paris")
        #expect(places.allSatisfy { area.contains($0.coordinate) })
        #expect(zip(places, places.dropFirst()).allSatisfy { $0.population >= $1.population })
    }

    @Test("the tree walk gives exactly what checking every place gives, for views of every size and place")
    func matchesBruteForce() async throws {
        let gazetteer = try openShipped()
        var generator = SeededGenerator(seed: 26)
        var areas: [MapArea] = [
            try #require(MapArea(south: -90, west: -180, north: 90, east: 180)),
            // Across the 180th meridian: Fiji and Tonga's side and Samoa's.
            try #require(MapArea(south: -25, west: 170, north: -10, east: 190)),
            // A panned map's edges, past -180.
            try #require(MapArea(south: 60, west: -200, north: 72, east: -150)),
            // The equator and the prime meridian, where cos and sin peak inside the view.
            try #require(MapArea(south: -5, west: -5, north: 5, east: 5)),
            // Near a pole.
            try #require(MapArea(south: 78, west: 0, north: 90, east: 40)),
        ]
        for _ in 0..<25 {
            let south = Double.random(in: -80...70, using: &generator)
            let height = Double.random(in: 0.05...20, using: &generator)
            let west = Double.random(in: -200...180, using: &generator)
            let width = Double.random(in: 0.05...60, using: &generator)
            areas.append(try #require(MapArea(south: south, west: west, north: min(90, south + height), east: west + width)))
        }
        // Checking every place takes seconds: off the two-thread cooperative pool.
        let checkedAreas = areas
        let mismatches = try await onOwnThread { () -> [String] in
            var mismatches: [String] = []
            for area in checkedAreas {
                let slow = gazetteer.largestPlacesBruteForce(in: area, limit: 300)
                for limit in [1, 25, 300] where gazetteer.largestPlaces(in: area, limit: limit) != Array(slow.prefix(limit)) {
                    mismatches.append("\(area), limit \(limit)")
                }
            }
            return mismatches
        }
        #expect(mismatches == [])
    }

    @Test("across the 180th meridian both sides are in the view")
    func antimeridian() throws {
        let gazetteer = try openShipped()
        // Leaflet's edges once the map has been panned east past Fiji: 175 to 190.
        let area = try #require(MapArea(south: -20, west: 175, north: -12, east: 190))
        #expect(area.west == 175 && area.east == -170)
        let places = gazetteer.largestPlaces(in: area, limit: 400)
        #expect(places.contains { $0.coordinate.longitude > 175 }, "Fiji's side")
        #expect(places.contains { $0.coordinate.longitude < -170 }, "Tonga's side")
        #expect(places.allSatisfy { $0.coordinate.longitude >= 175 || $0.coordinate.longitude <= -170 })
    }

    @Test("edges that are no area are refused; a view a turn wide or more covers every longitude")
    func areas() {
        #expect(MapArea(south: 10, west: 0, north: 5, east: 1) == nil)
        #expect(MapArea(south: 0, west: 5, north: 1, east: 4) == nil)
        #expect(MapArea(south: -91, west: 0, north: 1, east: 1) == nil)
        #expect(MapArea(south: 0, west: .nan, north: 1, east: 1) == nil)
        #expect(MapArea(south: 0, west: 0, north: 1, east: .infinity) == nil)
        let world = MapArea(south: -60, west: -400, north: 60, east: 300)
        #expect(world?.west == -180 && world?.east == 180)
        let turn = MapArea(south: -60, west: -180, north: 60, east: 180)
        #expect(turn?.west == -180 && turn?.east == 180)
        #expect(MapArea.normalized(190) == -170)
        #expect(MapArea.normalized(-190) == 170)
        #expect(MapArea.normalized(540) == -180)
    }

    @Test("a limit of 0 gives nothing")
    func zeroLimit() throws {
        let gazetteer = try openShipped()
        let area = try #require(MapArea(south: -90, west: -180, north: 90, east: 180))
        #expect(gazetteer.largestPlaces(in: area, limit: 0).isEmpty)
    }
}
