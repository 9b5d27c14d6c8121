import ForecastModel
import Foundation
import Testing

@testable import Warnings

/// Rings written as (latitude, longitude) pairs, closed by the test when asked.
private func ring(_ pairs: [(Double, Double)], close: Bool = true) throws(GeometryError) -> GeoRing {
    var positions = pairs.map { Coordinate(latitude: $0.0, longitude: $0.1) }
    if close, let first = positions.first { positions.append(first) }
    return try GeoRing(positions)
}

private func at(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(latitude: latitude, longitude: longitude)
}

@Suite("Geometry: point in polygon on the sphere")
struct GeometryTests {
    @Test("A point inside a square is inside, one outside is not, whichever way the ring winds")
    func squareBothWindings() throws {
        let counterClockwise = try ring([(50, 10), (50, 11), (51, 11), (51, 10)])
        let clockwise = try ring([(50, 10), (51, 10), (51, 11), (50, 11)])
        for square in [counterClockwise, clockwise] {
            #expect(square.contains(at(50.5, 10.5)))
            #expect(!square.contains(at(50.5, 11.5)))
            #expect(!square.contains(at(49.9, 10.5)))
            #expect(!square.contains(at(51.1, 10.5)))
        }
    }

    @Test("A concave ring: a point in the notch is outside")
    func concave() throws {
        // A "U": the notch between the arms is outside.
        let u = try ring([(0, 0), (0, 3), (3, 3), (3, 2), (1, 2), (1, 1), (3, 1), (3, 0)])
        #expect(u.contains(at(0.5, 1.5)))
        #expect(u.contains(at(2, 0.5)))
        #expect(!u.contains(at(2, 1.5)))
    }

    @Test("A polygon with a hole: the hole is outside, the ring around it inside")
    func hole() throws {
        let polygon = GeoPolygon(
            outer: try ring([(40, -100), (40, -90), (50, -90), (50, -100)]),
            holes: [try ring([(44, -96), (44, -94), (46, -94), (46, -96)])])
        #expect(polygon.contains(at(42, -98)))
        #expect(!polygon.contains(at(45, -95)))
        #expect(!polygon.contains(at(55, -95)))
    }

    @Test("A multipolygon holds a point in any of its parts")
    func multipolygon() throws {
        let area = AreaGeometry(polygons: [
            GeoPolygon(outer: try ring([(0, 0), (0, 1), (1, 1), (1, 0)])),
            GeoPolygon(outer: try ring([(10, 10), (10, 11), (11, 11), (11, 10)])),
        ])
        #expect(area.contains(at(0.5, 0.5)))
        #expect(area.contains(at(10.5, 10.5)))
        #expect(!area.contains(at(5, 5)))
    }

    @Test("A ring across the antimeridian holds points on both sides of ±180° and not the far side of the Earth")
    func antimeridian() throws {
        // Around Fiji's Taveuni and the Lau group: 179° E to 179° W.
        let fiji = try ring([(-17, 179), (-17, -179), (-15, -179), (-15, 179)])
        #expect(fiji.contains(at(-16, 179.5)))
        #expect(fiji.contains(at(-16, -179.5)))
        #expect(fiji.contains(at(-16, 180)))
        #expect(!fiji.contains(at(-16, 178.5)))
        #expect(!fiji.contains(at(-16, -178.5)))
        #expect(!fiji.contains(at(-16, 0)))
        #expect(!fiji.contains(at(-16, 1)))
    }

    @Test("Longitudes past ±180 are read modulo 360, as GDACS writes them across the antimeridian")
    func longitudesPast180() throws {
        let written = try ring([(-17, 179), (-17, 181), (-15, 181), (-15, 179)])
        #expect(written.contains(at(-16, 179.5)))
        #expect(written.contains(at(-16, -179.5)))
        #expect(!written.contains(at(-16, 178)))
        let west = try ring([(60, -180.434), (60, -175), (65, -175), (65, -180.434)])
        #expect(west.contains(at(62, -177)))
        #expect(west.contains(at(62, 179.8)))
        #expect(!west.contains(at(62, 179)))
    }

    @Test("A GeoJSON polygon written with longitudes beyond 180 reads the same")
    func antimeridianGeoJSON() throws {
        let area = try AreaGeometry.geoJSON([
            "type": "Polygon",
            "coordinates": [[[179.0, -17.0], [-179.0, -17.0], [-179.0, -15.0], [179.0, -15.0], [179.0, -17.0]]],
        ])
        #expect(area.contains(at(-16, -179.9)))
        #expect(area.contains(at(-16, 179.9)))
        #expect(!area.contains(at(-16, 170)))
    }

    @Test("A ring around the North Pole holds the pole and the cap, not the latitudes south of it")
    func northPolarCap() throws {
        let cap = try ring(stride(from: -180.0, to: 180.0, by: 30).map { (80.0, $0) })
        #expect(cap.contains(at(85, 0)))
        #expect(cap.contains(at(89.9, 123)))
        #expect(cap.contains(at(90, 0)))
        #expect(!cap.contains(at(75, 0)))
        #expect(!cap.contains(at(-85, 0)))
    }

    @Test("A ring around the South Pole holds the southern cap")
    func southPolarCap() throws {
        let cap = try ring(stride(from: 180.0, to: -180.0, by: -45).map { (-70.0, $0) })
        #expect(cap.contains(at(-80, 45)))
        #expect(cap.contains(at(-90, 0)))
        #expect(!cap.contains(at(-60, 45)))
        #expect(!cap.contains(at(80, 45)))
    }

    @Test("Only rings that cannot be judged are refused: fewer than 3 corners, or a position not on the Earth")
    func refusedRings() {
        #expect(throws: GeometryError.tooFewDistinctPoints(count: 2)) {
            try ring([(0, 0), (0, 1), (0, 1), (0, 0)], close: false)
        }
        // A ring that only goes out and back (all spike) encloses nothing.
        #expect(throws: GeometryError.tooFewDistinctPoints(count: 2)) { try ring([(0, 0), (0, 1), (0, 0), (0, 1)]) }
        #expect(throws: GeometryError.invalidCoordinate(latitude: 91, longitude: 0)) {
            try ring([(91, 0), (0, 1), (1, 1)])
        }
        #expect(throws: GeometryError.invalidCoordinate(latitude: 1, longitude: 360.5)) {
            try ring([(0, 0), (1, 360.5), (1, 1)])
        }
        #expect(throws: GeometryError.self) { try ring([(.nan, 0), (0, 1), (1, 1)]) }
        #expect(throws: GeometryError.tooManyPositions(count: 100_001, limit: 100_000)) {
            try ring((0...100_000).map { (Double($0) / 200_000, Double($0 % 2)) }, close: false)
        }
    }

    @Test("An unclosed ring is closed, and a 3-position triangle is enough")
    func unclosed() throws {
        let triangle = try ring([(49, 9), (51, 9), (50, 11)], close: false)
        #expect(triangle.positions.count == 4)
        #expect(triangle.contains(at(50, 9.5)))
        #expect(!triangle.contains(at(49.2, 10.5)))
    }

    @Test("A bow tie is judged by the even-odd rule: both loops inside, the rest outside")
    func bowTie() throws {
        // Corners (latitude, longitude): the diagonals cross at (0.5, 0.5); the loops are above and below it.
        let tie = try ring([(0, 0), (1, 1), (1, 0), (0, 1)])
        #expect(tie.contains(at(0.8, 0.5)))
        #expect(tie.contains(at(0.2, 0.5)))
        #expect(!tie.contains(at(0.5, 0.2)))
        #expect(!tie.contains(at(0.5, 0.8)))
    }

    @Test("A spike (A → B → A) and repeated positions are removed, the ring's inside unchanged")
    func spikeAndRepeats() throws {
        let spiky = try ring([(0, 0), (0, 2), (0, 2), (1, 2), (3, 2), (1, 2), (2, 2), (2, 0), (2, 0)])
        #expect(spiky.positions.count == 6)  // 5 corners (one collinear), closed
        #expect(spiky.contains(at(1, 1)))
        #expect(!spiky.contains(at(2.5, 2)))
        #expect(!spiky.contains(at(3, 1)))
    }

    @Test("A ring that touches itself (a vertex visited twice) holds both its lobes")
    func selfTouching() throws {
        // Two squares joined at (1, 1), drawn as one ring through that corner twice.
        let lobes = try ring([(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 1), (1, 1), (1, 0)])
        #expect(lobes.contains(at(0.5, 0.5)))
        #expect(lobes.contains(at(1.5, 1.5)))
        #expect(!lobes.contains(at(0.5, 1.5)))
        #expect(!lobes.contains(at(1.5, 0.5)))
    }

    @Test("Holes count by the even-odd rule too: one touching the outer ring, one straying outside it")
    func holesAsGISReadThem() throws {
        let outer = try ring([(0, 0), (0, 4), (4, 4), (4, 0)])
        // A hole whose corner lies on the outer ring: valid OGC, and a hole.
        let touching = GeoPolygon(outer: outer, holes: [try ring([(0, 0), (1, 2), (2, 1)])])
        #expect(!touching.contains(at(1, 1)))
        #expect(touching.contains(at(3, 3)))
        // A hole outside the outer ring reads, after make_valid, as a piece of the area.
        let astray = GeoPolygon(outer: outer, holes: [try ring([(5, 5), (5, 6), (6, 6), (6, 5)])])
        #expect(astray.contains(at(5.5, 5.5)))
        #expect(astray.contains(at(2, 2)))
    }

    @Test("A box round the whole Earth (edges from -180 to 180) holds everything between its latitudes")
    func worldBox() throws {
        let box = try ring([(-60, -180), (-60, 180), (60, 180), (60, -180)])
        #expect(box.contains(at(0, 0)))
        #expect(box.contains(at(10, 179.9)))
        #expect(box.contains(at(-10, -120)))
        #expect(!box.contains(at(70, 0)))
    }

    @Test("A closed triangle is the smallest valid ring")
    func triangle() throws {
        let triangle = try ring([(49, 9), (51, 9), (50, 11)])
        #expect(triangle.contains(at(50, 9.5)))
        #expect(triangle.contains(at(50, 10.9)))
        #expect(!triangle.contains(at(49.2, 10.5)))
    }

    @Test("CAP polygons are latitude,longitude pairs; CAP circles a centre and kilometres")
    func capShapes() throws {
        let polygon = try AreaGeometry.capPolygon("49.0,9.0 51.0,9.0 50.0,11.0 49.0,9.0")
        #expect(polygon.contains(at(50, 9.5)))
        // The same numbers read the wrong way round would be in the Indian Ocean.
        #expect(!polygon.contains(at(9.5, 50)))
        // Unclosed, as some services send it: closed when read.
        #expect(try AreaGeometry.capPolygon("49.0,9.0 51.0,9.0 50.0,11.0").contains(at(50, 9.5)))
        #expect(throws: GeometryError.self) { try AreaGeometry.capPolygon("49.0;9.0 51.0,9.0 50.0,11.0 49.0;9.0") }
        let circle = try AreaGeometry.capCircle("59.91,10.75 5")
        #expect(circle.contains(at(59.93, 10.78)))
        #expect(!circle.contains(at(60.1, 10.75)))
    }

    @Test("Within a tolerance of a border counts as inside, farther does not")
    func tolerance() throws {
        let square = AreaGeometry(polygons: [GeoPolygon(outer: try ring([(50, 10), (50, 11), (51, 11), (51, 10)]))])
        let outsideBy600m = at(51.0054, 10.5)
        #expect(!square.contains(outsideBy600m))
        #expect(square.contains(outsideBy600m, toleranceKm: 1.2))
        #expect(!square.contains(at(51.02, 10.5), toleranceKm: 1.2))
    }

    @Test("GeoJSON that is not an area is refused by name")
    func geoJSONErrors() {
        #expect(throws: GeometryError.unsupportedType("Point")) {
            try AreaGeometry.geoJSON(["type": "Point", "coordinates": [10.0, 50.0]])
        }
        #expect(throws: GeometryError.empty) { try AreaGeometry.geoJSON(["type": "Polygon", "coordinates": []]) }
        #expect(throws: GeometryError.self) {
            try AreaGeometry.geoJSON(["type": "Polygon", "coordinates": [[["a", "b"]]]])
        }
    }
}
