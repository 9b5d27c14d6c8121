import ForecastModel
import Foundation

/// Why a shape cannot be judged. Only a shape with no inside to speak of, or numbers that are not a place on
/// the Earth, is refused: a ring that crosses or touches itself, folds back, is not closed or winds either way is
/// judged as it is (``GeoRing``).
public enum GeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than 3 distinct corners once repeated positions and zero-area spikes are removed: the ring
    /// encloses nothing.
    case tooFewDistinctPoints(count: Int)
    /// More positions in one ring than ``GeometryLimits/maxRingPositions``.
    case tooManyPositions(count: Int, limit: Int)
    /// A position outside latitude −90…90 / longitude −360…360, or not a finite number.
    case invalidCoordinate(latitude: Double, longitude: Double)
    /// A `Polygon` or `MultiPolygon` with no rings at all.
    case empty
    /// A geometry type that cannot cover an area (`Point`, `LineString`) or is unknown.
    case unsupportedType(String)
    /// Coordinates that are not numbers in the expected nesting, or a CAP polygon/circle that is not
    /// `lat,lon` pairs.
    case malformed(String)

    public var description: String {
        switch self {
        case .tooFewDistinctPoints(let count):
            "a ring has \(count) distinct corner\(count == 1 ? "" : "s") once repeated positions and spikes are "
                + "removed; at least 3 are needed to enclose anything"
        case .tooManyPositions(let count, let limit):
            "a ring has \(count) positions; at most \(limit) are read"
        case .invalidCoordinate(let latitude, let longitude):
            "a position (\(latitude), \(longitude)) is outside latitude -90...90 / longitude -360...360"
        case .empty:
            "the geometry has no rings"
        case .unsupportedType(let type):
            "geometry type \"\(type)\" cannot cover an area (expected Polygon or MultiPolygon)"
        case .malformed(let detail):
            "malformed coordinates: \(detail)"
        }
    }
}

/// The bounds on shapes from outside (docs/reliability.md).
public enum GeometryLimits {
    /// Most positions read in one ring; a longer ring is refused as ``GeometryError/tooManyPositions(count:limit:)``
    /// (the warning's other shapes and codes still decide). Real warning polygons have tens to a few thousand
    /// positions; the largest ring in the corpus (Burkina Faso's ANAM, a country outline) has 41,009.
    public static let maxRingPositions = 100_000
    /// Most positions read in all the shapes of one answer; past it the answer is refused whole
    /// (``PositionBudget``) and the source's last good warnings stay. The most in one corpus document is 93,054
    /// (an NWS high wind watch for Alaska's coast).
    public static let maxFeedPositions = 250_000
}

/// How many positions an answer's shapes may still have: one per answer, spent as shapes are read.
public struct PositionBudget: Sendable {
    /// The answer holds more positions than ``limit``.
    public struct Exceeded: Error, Sendable, Hashable {
        public var limit: Int
    }

    public let limit: Int
    public private(set) var used = 0

    public init(limit: Int = GeometryLimits.maxFeedPositions) {
        self.limit = limit
    }

    /// Takes `count` positions; throws once more than ``limit`` have been taken.
    public mutating func spend(_ count: Int) throws(Exceeded) {
        used += count
        guard used <= limit else { throw Exceeded(limit: limit) }
    }
}

/// A ring of positions on the Earth, judged by the even-odd rule as sent.
///
/// - Repeated consecutive positions and zero-area spikes (the ring going A → B → A, or back along its own
///   edge) are removed; a ring that does not end where it starts is closed. What is left needs 3 corners.
///   A longitude past ±180 (up to ±360) is read modulo 360.
/// - Edges are straight lines in longitude and latitude (GeoJSON, RFC 7946 §3.1.1). An edge spanning more than
///   180° of longitude goes the short way round, across the ±180° meridian (so a ring written 179° → −179° is
///   2° wide); one of exactly 180° or 360° (from −180 to 180) is taken as written, as a box round the whole
///   Earth means. A ring whose edges go round a pole an odd number of times encloses that pole (the one on the
///   side of its mean latitude).
/// - A point is inside when a line from it to the North Pole crosses the ring an odd number of times (with the
///   pole's own side accounted for): the even-odd rule, which judges rings that cross or touch themselves the
///   way GEOS's `make_valid` does. Winding direction does not matter.
public struct GeoRing: Sendable, Hashable {
    /// The positions after cleaning, closed (the last equals the first).
    public let positions: [Coordinate]
    /// +1 when the ring encloses the North Pole, −1 the South Pole, 0 neither.
    let enclosedPole: Int
    /// The latitude range of the positions, to skip rings far from a point.
    let minimumLatitude: Double
    let maximumLatitude: Double

    /// Reads `positions` (closed or not).
    ///
    /// - Throws: ``GeometryError`` for a position that is not on the Earth, more than
    ///   ``GeometryLimits/maxRingPositions`` positions, or fewer than 3 distinct corners after cleaning.
    public init(_ positions: [Coordinate]) throws(GeometryError) {
        guard positions.count <= GeometryLimits.maxRingPositions else {
            throw .tooManyPositions(count: positions.count, limit: GeometryLimits.maxRingPositions)
        }
        var positions = positions
        for index in positions.indices {
            let position = positions[index]
            guard position.latitude.isFinite, position.longitude.isFinite, abs(position.latitude) <= 90,
                abs(position.longitude) <= 360
            else { throw .invalidCoordinate(latitude: position.latitude, longitude: position.longitude) }
            // A longitude past ±180 names the meridian it names modulo 360 (GDACS writes -180.434).
            if position.longitude > 180 { positions[index].longitude -= 360 }
            if position.longitude < -180 { positions[index].longitude += 360 }
        }
        var ring = Self.cleaned(positions)
        guard ring.count >= 3 else {
            // Named by the positions as sent: "2 distinct corners" says more than what spike removal left.
            let sent = Set(positions.map(Key.init)).count
            throw .tooFewDistinctPoints(count: sent < 3 ? sent : Set(ring.map(Key.init)).count)
        }
        ring.append(ring[0])

        var travel = 0.0
        for index in 1..<ring.count {
            travel += Self.step(from: ring[index - 1].longitude, to: ring[index].longitude)
        }
        let turns = Int((travel / 360).rounded())
        if turns % 2 != 0 {
            // Going round a pole: the ring separates the two polar caps, and the one it lies in (judged by the
            // mean latitude) holds its inside.
            let meanLatitude = ring.dropLast().map(\.latitude).reduce(0, +) / Double(ring.count - 1)
            enclosedPole = meanLatitude >= 0 ? 1 : -1
        } else {
            enclosedPole = 0
        }
        self.positions = ring
        minimumLatitude = ring.map(\.latitude).min() ?? 0
        maximumLatitude = ring.map(\.latitude).max() ?? 0
    }

    private struct Key: Hashable {
        var latitude: Double
        var longitude: Double
        init(_ position: Coordinate) {
            latitude = position.latitude
            longitude = position.longitude
        }
    }

    /// The longitude an edge travels from `a` to `b`: the short way round, except for exactly 180° (no
    /// shorter way) and 360° (−180 to 180: round the whole parallel), taken as written.
    static func step(from a: Double, to b: Double) -> Double {
        let difference = b - a
        let size = abs(difference)
        if size > 180 && size < 360 { return difference - 360 * (difference > 0 ? 1 : -1) }
        return difference
    }

    /// The ring without repeated consecutive positions and zero-area spikes, open (the closing position
    /// dropped), seen as a cycle.
    static func cleaned(_ positions: [Coordinate]) -> [Coordinate] {
        var kept: [Coordinate] = []
        kept.reserveCapacity(positions.count)
        for position in positions {
            if kept.last == position { continue }
            while kept.count >= 2, isSpike(kept[kept.count - 2], kept[kept.count - 1], position) {
                kept.removeLast()
            }
            if kept.last == position { continue }
            kept.append(position)
        }
        // The seam where the ring closes: the last position repeating the first, and spikes across it.
        var start = 0
        var changed = true
        while changed && kept.count - start >= 2 {
            changed = false
            if kept.last == kept[start] {
                kept.removeLast()
                changed = true
            } else if kept.count - start >= 3, isSpike(kept[kept.count - 2], kept[kept.count - 1], kept[start]) {
                kept.removeLast()
                changed = true
            } else if kept.count - start >= 3, isSpike(kept[kept.count - 1], kept[start], kept[start + 1]) {
                start += 1
                changed = true
            }
        }
        return Array(kept[start...])
    }

    /// Whether the ring folds back at `corner`: coming from `previous` and going on to `next`, it returns along
    /// the line it came by (zero area, the even-odd count unchanged by removing it).
    static func isSpike(_ previous: Coordinate, _ corner: Coordinate, _ next: Coordinate) -> Bool {
        let ax = step(from: corner.longitude, to: previous.longitude), ay = previous.latitude - corner.latitude
        let bx = step(from: corner.longitude, to: next.longitude), by = next.latitude - corner.latitude
        return ax * by - ay * bx == 0 && ax * bx + ay * by > 0
    }

    /// Whether `point` is inside the ring (a point exactly on an edge may fall either way).
    ///
    /// Counts the crossings of the meridian arc from the point to the North Pole, in longitudes continued
    /// edge by edge from the point's meridian, so neither the ±180° meridian nor the poles need special cases.
    public func contains(_ point: Coordinate) -> Bool {
        if enclosedPole == 0, point.latitude < minimumLatitude || point.latitude > maximumLatitude {
            return false
        }
        var inside = false
        var previous = positions[0]
        var x = Self.wrap(previous.longitude - point.longitude)
        for position in positions.dropFirst() {
            let next = x + Self.step(from: previous.longitude, to: position.longitude)
            let low = min(x, next), high = max(x, next)
            // The point's meridian is at every multiple of 360° in these continued longitudes.
            var meridian = (low / 360).rounded(.up) * 360
            while meridian < high {
                let t = (meridian - x) / (next - x)
                let latitude = previous.latitude + t * (position.latitude - previous.latitude)
                if latitude > point.latitude { inside.toggle() }
                meridian += 360
            }
            previous = position
            x = next
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
}

/// A polygon: an outer ring and holes, judged together by the even-odd rule, as GEOS's `make_valid` reads
/// them: a point is inside when an odd number of the rings hold it. For a valid polygon that is "inside the
/// outer ring and in no hole"; a hole that overlaps another, or strays outside the outer ring, counts as GIS
/// tools count it.
public struct GeoPolygon: Sendable, Hashable {
    public let outer: GeoRing
    public let holes: [GeoRing]

    public init(outer: GeoRing, holes: [GeoRing] = []) {
        self.outer = outer
        self.holes = holes
    }

    public func contains(_ point: Coordinate) -> Bool {
        var inside = outer.contains(point)
        for hole in holes where hole.contains(point) { inside.toggle() }
        return inside
    }

    /// The distance in kilometres from `point` to the nearest edge of any ring.
    public func distanceKm(to point: Coordinate) -> Double {
        ([outer] + holes).map { $0.distanceKm(to: point) }.min() ?? .infinity
    }

    /// How many positions its rings hold.
    public var positionCount: Int { outer.positions.count + holes.reduce(0) { $0 + $1.positions.count } }
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

/// The shape of a warning's area: polygons and circles, any of which may hold the point (their union: two
/// polygons of one area that overlap both cover the overlap).
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

    /// What reading an area's shapes gave: the usable ones, and why each of the others was refused.
    public struct Reading: Sendable, Hashable {
        public var polygons: [GeoPolygon] = []
        public var circles: [GeoCircle] = []
        public var refused: [GeometryError] = []

        public init() {}

        /// The usable shapes, nil when there are none.
        public var geometry: AreaGeometry? {
            polygons.isEmpty && circles.isEmpty ? nil : AreaGeometry(polygons: polygons, circles: circles)
        }
    }

    /// A GeoJSON `Polygon` or `MultiPolygon` geometry object, as ``JSONReader`` or `JSONSerialization` reads
    /// it, one polygon at a time: a polygon that cannot be judged is refused alone, its siblings are kept.
    ///
    /// - Throws: ``PositionBudget/Exceeded`` when the shapes hold more positions than `budget` has left.
    public static func readGeoJSON(_ object: Any, budget: inout PositionBudget) throws(PositionBudget.Exceeded)
        -> Reading
    {
        var reading = Reading()
        guard let geometry = object as? [String: Any] else {
            reading.refused.append(.malformed("the geometry is not an object"))
            return reading
        }
        let type = geometry["type"] as? String ?? "(none)"
        switch type {
        case "Polygon":
            try readPolygon(geometry["coordinates"], into: &reading, budget: &budget)
        case "MultiPolygon":
            guard let list = geometry["coordinates"] as? [Any] else {
                reading.refused.append(.malformed("MultiPolygon coordinates are not a list of polygons"))
                return reading
            }
            if list.isEmpty { reading.refused.append(.empty) }
            for item in list { try readPolygon(item, into: &reading, budget: &budget) }
        case "GeometryCollection":
            for item in geometry["geometries"] as? [Any] ?? [] {
                let part = try readGeoJSON(item, budget: &budget)
                reading.polygons += part.polygons
                reading.refused += part.refused
            }
        default:
            reading.refused.append(.unsupportedType(type))
        }
        return reading
    }

    /// A GeoJSON `Polygon` or `MultiPolygon` whose every polygon must be usable (the shipped region files).
    public static func geoJSON(_ object: Any) throws(GeometryError) -> AreaGeometry {
        var budget = PositionBudget(limit: .max)
        let reading: Reading
        do {
            reading = try readGeoJSON(object, budget: &budget)
        } catch {
            throw .malformed("too many positions")
        }
        if let problem = reading.refused.first { throw problem }
        guard let geometry = reading.geometry else { throw .empty }
        return geometry
    }

    private static func readPolygon(_ object: Any?, into reading: inout Reading, budget: inout PositionBudget)
        throws(PositionBudget.Exceeded)
    {
        guard let rings = object as? [Any] else {
            reading.refused.append(.malformed("Polygon coordinates are not a list of rings"))
            return
        }
        guard !rings.isEmpty else {
            reading.refused.append(.empty)
            return
        }
        var parsed: [GeoRing] = []
        for (index, ring) in rings.enumerated() {
            switch ringPositions(ring) {
            case .failure(let problem):
                // A polygon is judged by all its rings together: without one of them, not at all.
                reading.refused.append(problem)
                return
            case .success(let coordinates):
                try budget.spend(coordinates.count)
                do {
                    parsed.append(try GeoRing(coordinates))
                } catch GeometryError.tooFewDistinctPoints where index > 0 {
                    // A hole that encloses nothing changes no point's count: left out, the polygon stands.
                    continue
                } catch {
                    reading.refused.append(error)
                    return
                }
            }
        }
        reading.polygons.append(GeoPolygon(outer: parsed[0], holes: Array(parsed.dropFirst())))
    }

    private static func ringPositions(_ ring: Any) -> Result<[Coordinate], GeometryError> {
        if let positions = ring as? GeoJSONPositions {
            guard positions.count <= GeometryLimits.maxRingPositions else {
                return .failure(.tooManyPositions(count: positions.count, limit: GeometryLimits.maxRingPositions))
            }
            var coordinates: [Coordinate] = []
            coordinates.reserveCapacity(positions.count)
            var index = 0
            while index + 1 < positions.values.count {
                coordinates.append(Coordinate(latitude: positions.values[index + 1], longitude: positions.values[index]))
                index += 2
            }
            return .success(coordinates)
        }
        guard let list = ring as? [Any] else { return .failure(.malformed("a ring is not a list of positions")) }
        guard list.count <= GeometryLimits.maxRingPositions else {
            return .failure(.tooManyPositions(count: list.count, limit: GeometryLimits.maxRingPositions))
        }
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(list.count)
        for position in list {
            guard let pair = position as? [Any], pair.count >= 2, let longitude = number(pair[0]),
                let latitude = number(pair[1])
            else { return .failure(.malformed("a position is not [longitude, latitude]")) }
            coordinates.append(Coordinate(latitude: latitude, longitude: longitude))
        }
        return .success(coordinates)
    }

    private static func number(_ value: Any) -> Double? {
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        return (value as? NSNumber)?.doubleValue
    }

    /// A CAP `polygon`: space-separated `latitude,longitude` pairs, the first usually repeated at the end.
    public static func capPolygon(_ text: String) throws(GeometryError) -> GeoRing {
        // Counted before anything is built, so a huge polygon costs no memory to refuse.
        var pairs = 0
        var inPair = false
        for byte in text.utf8 {
            let space = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            if !space && !inPair { pairs += 1 }
            inPair = !space
        }
        guard pairs <= GeometryLimits.maxRingPositions else {
            throw .tooManyPositions(count: pairs, limit: GeometryLimits.maxRingPositions)
        }
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(pairs)
        for pair in text.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: ",")
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                throw .malformed("\"\(pair.prefix(60))\" in a CAP polygon is not a latitude,longitude pair")
            }
            coordinates.append(Coordinate(latitude: latitude, longitude: longitude))
        }
        return try GeoRing(coordinates)
    }

    /// A CAP `circle`: `latitude,longitude radius` with the radius in kilometres.
    public static func capCircle(_ text: String) throws(GeometryError) -> GeoCircle {
        let parts = text.split(whereSeparator: \.isWhitespace)
        let shown = text.prefix(80)
        guard parts.count == 2 else { throw .malformed("CAP circle \"\(shown)\" is not \"latitude,longitude radius\"") }
        let center = parts[0].split(separator: ",")
        guard center.count == 2, let latitude = Double(center[0]), let longitude = Double(center[1]),
            let radius = Double(parts[1])
        else { throw .malformed("CAP circle \"\(shown)\" is not \"latitude,longitude radius\"") }
        return try GeoCircle(center: Coordinate(latitude: latitude, longitude: longitude), radiusKm: radius)
    }
}
