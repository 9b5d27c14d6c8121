import ForecastModel
import Foundation

/// Why an area's shape was refused. Every case names the rule that was broken.
public enum GeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A ring needs at least 4 positions (3 corners and the first one again).
    case tooFewPositions(count: Int)
    /// A ring needs 3 distinct corners to enclose anything.
    case tooFewDistinctPoints(count: Int)
    /// The last position of a ring must repeat the first (GeoJSON, RFC 7946 §3.1.6; CAP 1.2 §3.2.4).
    case notClosed
    /// Two edges of one ring cross or overlap (edges counted from 0).
    case selfIntersecting(edge: Int, otherEdge: Int)
    /// A position outside −90…90 / −180…180 or not a finite number.
    case invalidCoordinate(latitude: Double, longitude: Double)
    /// An edge covering 180° of longitude or more: which way it goes round the Earth is ambiguous.
    case edgeTooLong(edge: Int)
    /// A `Polygon` or `MultiPolygon` with no rings at all.
    case empty
    /// A geometry type that cannot cover an area (`Point`, `LineString`) or is unknown.
    case unsupportedType(String)
    /// Coordinates that are not numbers in the expected nesting, or a CAP polygon/circle that is not
    /// `lat,lon` pairs.
    case malformed(String)

    public var description: String {
        switch self {
        case .tooFewPositions(let count):
            "a ring has \(count) position\(count == 1 ? "" : "s"); "
                + "at least 4 are needed (3 corners, then the first again)"
        case .tooFewDistinctPoints(let count):
            "a ring has \(count) distinct corner\(count == 1 ? "" : "s"); at least 3 are needed"
        case .notClosed:
            "a ring does not end where it starts"
        case .selfIntersecting(let edge, let other):
            "a ring crosses itself (edges \(edge) and \(other))"
        case .invalidCoordinate(let latitude, let longitude):
            "a position (\(latitude), \(longitude)) is outside latitude -90...90 / longitude -180...180"
        case .edgeTooLong(let edge):
            "edge \(edge) of a ring spans 180° of longitude or more, so its direction is ambiguous"
        case .empty:
            "the geometry has no rings"
        case .unsupportedType(let type):
            "geometry type \"\(type)\" cannot cover an area (expected Polygon or MultiPolygon)"
        case .malformed(let detail):
            "malformed coordinates: \(detail)"
        }
    }
}

/// A closed ring of positions on the Earth, checked for the rules in ``GeometryError``.
///
/// Edges are straight lines in longitude and latitude, as GeoJSON defines them (RFC 7946 §3.1.1),
/// and always go the short way round in longitude, so a ring may cross the ±180° meridian. A ring
/// whose edges go once round a pole (a polar cap) encloses that pole. Winding direction is ignored:
/// sources send both.
public struct GeoRing: Sendable, Hashable {
    /// The positions, closed (the last equals the first), without consecutive repeats.
    public let positions: [Coordinate]
    /// +1 when the ring encloses the North Pole, −1 the South Pole, 0 neither.
    let enclosedPole: Int
    /// The latitude range of the positions, to skip rings far from a point.
    let minimumLatitude: Double
    let maximumLatitude: Double

    /// Checks and keeps `positions`.
    ///
    /// - Throws: ``GeometryError`` when the ring is not closed, has fewer than 4 positions or 3
    ///   distinct corners, has an out-of-range position or an edge of 180° or more, or crosses itself.
    public init(_ positions: [Coordinate]) throws(GeometryError) {
        for position in positions {
            guard position.latitude.isFinite, position.longitude.isFinite, abs(position.latitude) <= 90,
                abs(position.longitude) <= 180
            else { throw .invalidCoordinate(latitude: position.latitude, longitude: position.longitude) }
        }
        guard positions.count >= 4 else { throw .tooFewPositions(count: positions.count) }
        guard positions.first == positions.last else { throw .notClosed }
        var ring: [Coordinate] = []
        ring.reserveCapacity(positions.count)
        for position in positions where ring.last != position { ring.append(position) }
        let distinct = Set(ring.dropLast().map { [$0.latitude, $0.longitude] }).count
        guard distinct >= 3 else { throw .tooFewDistinctPoints(count: distinct) }

        // Unwrapped longitudes: each vertex continues from the previous one the short way round.
        var unwrapped: [Double] = [ring[0].longitude]
        unwrapped.reserveCapacity(ring.count)
        for index in 1..<ring.count {
            let span = Self.wrap(ring[index].longitude - ring[index - 1].longitude)
            guard abs(span) < 180 else { throw .edgeTooLong(edge: index - 1) }
            unwrapped.append(unwrapped[index - 1] + span)
        }
        let turns = ((unwrapped[unwrapped.count - 1] - unwrapped[0]) / 360).rounded()
        if turns == 0 {
            if let (edge, other) = Self.firstIntersection(x: unwrapped, y: ring.map(\.latitude)) {
                throw .selfIntersecting(edge: edge, otherEdge: other)
            }
            enclosedPole = 0
        } else {
            // Going round a pole: the ring separates the two polar caps, and the one it lies in
            // (judged by the mean latitude) is its inside.
            let meanLatitude = ring.dropLast().map(\.latitude).reduce(0, +) / Double(ring.count - 1)
            enclosedPole = meanLatitude >= 0 ? 1 : -1
        }
        self.positions = ring
        minimumLatitude = ring.map(\.latitude).min() ?? 0
        maximumLatitude = ring.map(\.latitude).max() ?? 0
    }

    /// Whether `point` is inside the ring (a point exactly on an edge may fall either way).
    ///
    /// Counts the crossings of the meridian arc from the point to the North Pole, in longitudes taken
    /// relative to the point, so neither the ±180° meridian nor the poles need special cases.
    public func contains(_ point: Coordinate) -> Bool {
        if enclosedPole == 0, point.latitude < minimumLatitude || point.latitude > maximumLatitude {
            return false
        }
        var inside = false
        var previous = positions[0]
        var previousX = Self.wrap(previous.longitude - point.longitude)
        for position in positions.dropFirst() {
            let x = previousX + Self.wrap(position.longitude - previous.longitude)
            if (previousX <= 0 && x > 0) || (x <= 0 && previousX > 0) {
                let t = (0 - previousX) / (x - previousX)
                let latitude = previous.latitude + t * (position.latitude - previous.latitude)
                if latitude > point.latitude { inside.toggle() }
            }
            previous = position
            previousX = Self.wrap(position.longitude - point.longitude)
        }
        // With the North Pole inside, crossing the ring an even number of times on the way there means inside.
        return enclosedPole == 1 ? !inside : inside
    }

    /// The distance in kilometres from `point` to the nearest edge, measured in a plane tangent at the
    /// point (exact enough within a few hundred kilometres).
    public func distanceKm(to point: Coordinate) -> Double {
        let kmPerDegreeLatitude = Coordinate.earthRadiusKm * .pi / 180
        let kmPerDegreeLongitude = kmPerDegreeLatitude * cos(point.latitude * .pi / 180)
        func plane(_ position: Coordinate) -> (Double, Double) {
            (
                Self.wrap(position.longitude - point.longitude) * kmPerDegreeLongitude,
                (position.latitude - point.latitude) * kmPerDegreeLatitude
            )
        }
        var best = Double.infinity
        var (ax, ay) = plane(positions[0])
        for position in positions.dropFirst() {
            let (bx, by) = plane(position)
            let dx = bx - ax, dy = by - ay
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / lengthSquared))
            let cx = ax + t * dx, cy = ay + t * dy
            best = min(best, (cx * cx + cy * cy).squareRoot())
            (ax, ay) = (bx, by)
        }
        return best
    }

    /// A longitude difference brought into (−180, 180].
    static func wrap(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value > 180 { value -= 360 }
        if value <= -180 { value += 360 }
        return value
    }

    /// The first pair of non-adjacent edges of the closed polyline (x, y) that touch, by a sweep over
    /// the edges sorted by their leftmost x.
    static func firstIntersection(x: [Double], y: [Double]) -> (Int, Int)? {
        let edgeCount = x.count - 1
        guard edgeCount >= 3 else { return nil }
        let order = (0..<edgeCount).sorted { min(x[$0], x[$0 + 1]) < min(x[$1], x[$1 + 1]) }
        var active: [Int] = []
        var found: (Int, Int)?
        for edge in order {
            let left = min(x[edge], x[edge + 1])
            active.removeAll { max(x[$0], x[$0 + 1]) < left }
            for other in active {
                let gap = abs(edge - other)
                if gap == 1 || gap == edgeCount - 1 { continue }  // neighbours share a corner
                if segmentsTouch(
                    (x[edge], y[edge]), (x[edge + 1], y[edge + 1]), (x[other], y[other]), (x[other + 1], y[other + 1]))
                {
                    let pair = (min(edge, other), max(edge, other))
                    if found == nil || pair < found! { found = pair }
                }
            }
            active.append(edge)
        }
        if let found { return found }
        // Adjacent edges that fold back onto each other (a spike) also make the ring cross itself.
        for edge in 0..<edgeCount {
            let next = (edge + 1) % edgeCount
            let a = (x[edge], y[edge]), b = (x[edge + 1], y[edge + 1]), c = (x[next + 1], y[next + 1])
            if orientation(a, b, c) == 0, (c.0 - b.0) * (a.0 - b.0) + (c.1 - b.1) * (a.1 - b.1) > 0 {
                return (min(edge, next), max(edge, next))
            }
        }
        return nil
    }

    private static func orientation(_ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double)) -> Int {
        let value = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
        return value > 0 ? 1 : (value < 0 ? -1 : 0)
    }

    private static func onSegment(_ a: (Double, Double), _ b: (Double, Double), _ p: (Double, Double)) -> Bool {
        min(a.0, b.0) <= p.0 && p.0 <= max(a.0, b.0) && min(a.1, b.1) <= p.1 && p.1 <= max(a.1, b.1)
    }

    private static func segmentsTouch(
        _ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double), _ d: (Double, Double)
    ) -> Bool {
        let o1 = orientation(a, b, c), o2 = orientation(a, b, d)
        let o3 = orientation(c, d, a), o4 = orientation(c, d, b)
        if o1 != o2 && o3 != o4 { return true }
        if o1 == 0 && onSegment(a, b, c) { return true }
        if o2 == 0 && onSegment(a, b, d) { return true }
        if o3 == 0 && onSegment(c, d, a) { return true }
        if o4 == 0 && onSegment(c, d, b) { return true }
        return false
    }
}

/// An outer ring with the holes cut out of it.
public struct GeoPolygon: Sendable, Hashable {
    public let outer: GeoRing
    public let holes: [GeoRing]

    public init(outer: GeoRing, holes: [GeoRing] = []) {
        self.outer = outer
        self.holes = holes
    }

    /// Inside the outer ring and in none of the holes.
    public func contains(_ point: Coordinate) -> Bool {
        outer.contains(point) && !holes.contains { $0.contains(point) }
    }

    /// The distance in kilometres from `point` to the nearest edge of any ring.
    public func distanceKm(to point: Coordinate) -> Double {
        ([outer] + holes).map { $0.distanceKm(to: point) }.min() ?? .infinity
    }
}

/// A circle as CAP describes one: a centre and a radius in kilometres.
public struct GeoCircle: Sendable, Hashable {
    public let center: Coordinate
    public let radiusKm: Double

    public init(center: Coordinate, radiusKm: Double) throws(GeometryError) {
        guard center.latitude.isFinite, center.longitude.isFinite, abs(center.latitude) <= 90,
            abs(center.longitude) <= 180
        else { throw .invalidCoordinate(latitude: center.latitude, longitude: center.longitude) }
        guard radiusKm.isFinite, radiusKm >= 0 else { throw .malformed("a circle's radius must be 0 km or more") }
        self.center = center
        self.radiusKm = radiusKm
    }

    public func contains(_ point: Coordinate) -> Bool {
        center.distanceKm(to: point) <= radiusKm
    }
}

/// The shape of a warning's area: polygons (with holes) and circles, any of which may hold the point.
public struct AreaGeometry: Sendable, Hashable {
    public let polygons: [GeoPolygon]
    public let circles: [GeoCircle]

    public init(polygons: [GeoPolygon], circles: [GeoCircle] = []) {
        self.polygons = polygons
        self.circles = circles
    }

    public var isEmpty: Bool { polygons.isEmpty && circles.isEmpty }

    public func contains(_ point: Coordinate) -> Bool {
        polygons.contains { $0.contains(point) } || circles.contains { $0.contains(point) }
    }

    /// Inside, or within `toleranceKm` of an edge: for shapes simplified by up to that much.
    public func contains(_ point: Coordinate, toleranceKm: Double) -> Bool {
        if contains(point) { return true }
        guard toleranceKm > 0 else { return false }
        return polygons.contains { $0.distanceKm(to: point) <= toleranceKm }
            || circles.contains { $0.center.distanceKm(to: point) <= $0.radiusKm + toleranceKm }
    }

    /// All areas in one.
    public static func union(_ areas: [AreaGeometry]) -> AreaGeometry {
        AreaGeometry(polygons: areas.flatMap(\.polygons), circles: areas.flatMap(\.circles))
    }

    // MARK: Reading shapes

    /// A GeoJSON `Polygon` or `MultiPolygon` geometry object, as `JSONSerialization` reads it.
    public static func geoJSON(_ object: Any) throws(GeometryError) -> AreaGeometry {
        guard let geometry = object as? [String: Any] else { throw .malformed("the geometry is not an object") }
        let type = geometry["type"] as? String ?? "(none)"
        switch type {
        case "Polygon":
            return AreaGeometry(polygons: [try polygon(geometry["coordinates"])])
        case "MultiPolygon":
            guard let list = geometry["coordinates"] as? [Any] else {
                throw .malformed("MultiPolygon coordinates are not a list of polygons")
            }
            var polygons: [GeoPolygon] = []
            for item in list { polygons.append(try polygon(item)) }
            guard !polygons.isEmpty else { throw .empty }
            return AreaGeometry(polygons: polygons)
        default:
            throw .unsupportedType(type)
        }
    }

    private static func polygon(_ object: Any?) throws(GeometryError) -> GeoPolygon {
        guard let rings = object as? [Any] else { throw .malformed("Polygon coordinates are not a list of rings") }
        guard !rings.isEmpty else { throw .empty }
        var parsed: [GeoRing] = []
        for ring in rings {
            guard let positions = ring as? [Any] else { throw .malformed("a ring is not a list of positions") }
            var coordinates: [Coordinate] = []
            coordinates.reserveCapacity(positions.count)
            for position in positions {
                guard let pair = position as? [Any], pair.count >= 2, let longitude = number(pair[0]),
                    let latitude = number(pair[1])
                else { throw .malformed("a position is not [longitude, latitude]") }
                coordinates.append(Coordinate(latitude: latitude, longitude: longitude))
            }
            parsed.append(try GeoRing(coordinates))
        }
        return GeoPolygon(outer: parsed[0], holes: Array(parsed.dropFirst()))
    }

    private static func number(_ value: Any) -> Double? {
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        return (value as? NSNumber)?.doubleValue
    }

    /// A CAP `polygon`: space-separated `latitude,longitude` pairs, the first repeated at the end.
    public static func capPolygon(_ text: String) throws(GeometryError) -> GeoRing {
        var coordinates: [Coordinate] = []
        for pair in text.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: ",")
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                throw .malformed("\"\(pair)\" in a CAP polygon is not a latitude,longitude pair")
            }
            coordinates.append(Coordinate(latitude: latitude, longitude: longitude))
        }
        return try GeoRing(coordinates)
    }

    /// A CAP `circle`: `latitude,longitude radius` with the radius in kilometres.
    public static func capCircle(_ text: String) throws(GeometryError) -> GeoCircle {
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard parts.count == 2 else { throw .malformed("CAP circle \"\(text)\" is not \"latitude,longitude radius\"") }
        let center = parts[0].split(separator: ",")
        guard center.count == 2, let latitude = Double(center[0]), let longitude = Double(center[1]),
            let radius = Double(parts[1])
        else { throw .malformed("CAP circle \"\(text)\" is not \"latitude,longitude radius\"") }
        return try GeoCircle(center: Coordinate(latitude: latitude, longitude: longitude), radiusKm: radius)
    }
}
