import ForecastModel
import Foundation

/// A part of the map between two parallels and two meridians, as a map's view shows it.
public struct MapArea: Sendable, Hashable {
    /// The southern and northern edges, -90 to 90, south ≤ north.
    public var south: Double
    public var north: Double
    /// The western and eastern edges, -180 to 180; west > east means the area crosses the 180th meridian.
    public var west: Double
    public var east: Double

    /// An area from a map view's edges, which may run past ±180 in longitude once the map has been panned
    /// round the world (Leaflet gives west -200, east -160): the longitudes are brought into -180...180,
    /// and a view at least 360° wide covers every longitude. Nil for edges that are not finite, latitudes
    /// outside -90...90 or south above north.
    public init?(south: Double, west: Double, north: Double, east: Double) {
        guard south.isFinite, north.isFinite, west.isFinite, east.isFinite,
            (-90...90).contains(south), (-90...90).contains(north), south <= north, west <= east
        else { return nil }
        self.south = south
        self.north = north
        if east - west >= 360 {
            self.west = -180
            self.east = 180
        } else {
            self.west = Self.normalized(west)
            self.east = Self.normalized(east)
            // A view exactly one turn wide after normalizing (west -180, east 180) stays whole.
            if self.west == self.east && east > west {
                self.west = -180
                self.east = 180
            }
        }
    }

    /// A longitude brought into -180...180 (180 stays 180, -180 stays -180).
    public static func normalized(_ longitude: Double) -> Double {
        guard !(-180...180).contains(longitude) else { return longitude }
        let turned = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (turned < 0 ? turned + 360 : turned) - 180
    }

    /// Whether `coordinate` lies in the area, edges included.
    public func contains(_ coordinate: Coordinate) -> Bool {
        guard (south...north).contains(coordinate.latitude) else { return false }
        return longitudeSpans.contains { $0.contains(coordinate.longitude) }
    }

    /// The area's longitudes as one or two spans that do not cross the 180th meridian.
    var longitudeSpans: [ClosedRange<Double>] {
        west <= east ? [west...east] : [west...180, -180...east]
    }
}

extension Gazetteer {
    /// The most populous places in `area`, at most `limit` of them, most populous first (of equal
    /// populations, the lower index first): what a map shows as dots when it has no tiles.
    ///
    /// The k-d tree is walked with two bounds: a subtree whose cell (the box its unit vectors lie in)
    /// misses the area's box is skipped, and so is one whose largest population (each node's fourth
    /// word) cannot beat the `limit`-th place found so far. A view of the whole world opens only the
    /// cells that hold its few largest cities; a view of a valley, only the cells that overlap it.
    public func largestPlaces(in area: MapArea, limit: Int) -> [Place] {
        guard limit > 0, tables.count > 0 else { return [] }
        var search = AreaSearch(tables: tables, boxes: area.longitudeSpans.map { unitVectorBox(area, $0) }, limit: limit)
        search.run(count: tables.count) { index in area.contains(coordinate(at: index)) }
        return search.found.compactMap { place(at: $0, distanceFrom: coordinate(at: $0)) }.map { place in
            var place = place
            place.distanceKm = 0
            return place
        }
    }

    /// The same answer as `largestPlaces(in:limit:)` by checking every place: for tests.
    public func largestPlacesBruteForce(in area: MapArea, limit: Int) -> [Place] {
        guard limit > 0 else { return [] }
        let inside = (0..<tables.count).filter { area.contains(coordinate(at: $0)) }
        let ranked = inside.sorted {
            let (a, b) = (tables.record($0).population, tables.record($1).population)
            return a != b ? a > b : $0 < $1
        }
        return ranked.prefix(limit).compactMap { index in
            place(at: index, distanceFrom: coordinate(at: index)).map { place in
                var place = place
                place.distanceKm = 0
                return place
            }
        }
    }

    /// The box, in the stored scale, that holds every unit vector of the area's latitudes and of
    /// `longitudes` (one span that does not cross the 180th meridian), a little widened so that no
    /// stored vector on the edge falls outside by rounding.
    func unitVectorBox(_ area: MapArea, _ longitudes: ClosedRange<Double>) -> VectorBox {
        let radians = Double.pi / 180
        let (south, north) = (area.south * radians, area.north * radians)
        let (west, east) = (longitudes.lowerBound * radians, longitudes.upperBound * radians)
        // cos φ over the latitudes: largest at the equator when it is inside, else at an edge.
        let cosines = [cos(south), cos(north)]
        let cosLatitude = (
            low: max(0, cosines.min()!), high: south <= 0 && north >= 0 ? 1 : cosines.max()!
        )
        // cos λ and sin λ over the longitudes: their edges' values, and ±1 where the span passes the
        // longitude at which they peak.
        func range(_ function: (Double) -> Double, peaks: [(at: Double, value: Double)]) -> (low: Double, high: Double) {
            var values = [function(west), function(east)]
            for peak in peaks where west <= peak.at && peak.at <= east { values.append(peak.value) }
            return (values.min()!, values.max()!)
        }
        let cosLongitude = range(cos, peaks: [(0, 1), (-.pi, -1), (.pi, -1)])
        let sinLongitude = range(sin, peaks: [(.pi / 2, 1), (-.pi / 2, -1)])
        // x = cos φ cos λ and y = cos φ sin λ with cos φ ≥ 0: the extremes are products of the ends.
        func product(_ a: (low: Double, high: Double), _ b: (low: Double, high: Double)) -> (low: Double, high: Double) {
            let corners = [a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high]
            return (corners.min()!, corners.max()!)
        }
        let x = product(cosLatitude, cosLongitude)
        let y = product(cosLatitude, sinLongitude)
        let z = (low: sin(south), high: sin(north))
        let scale = tables.scale
        // Stored vectors are rounded to whole units and the trigonometry above to a few ulps.
        let margin = 4.0
        return VectorBox(
            low: (x.low * scale - margin, y.low * scale - margin, z.low * scale - margin),
            high: (x.high * scale + margin, y.high * scale + margin, z.high * scale + margin))
    }
}

/// An axis-aligned box of scaled unit vectors.
struct VectorBox {
    var low: (Double, Double, Double)
    var high: (Double, Double, Double)

    /// The whole space (the root cell).
    static let everything = VectorBox(
        low: (-.infinity, -.infinity, -.infinity), high: (.infinity, .infinity, .infinity))

    func intersects(_ other: VectorBox) -> Bool {
        low.0 <= other.high.0 && other.low.0 <= high.0 && low.1 <= other.high.1 && other.low.1 <= high.1
            && low.2 <= other.high.2 && other.low.2 <= high.2
    }

    func contains(_ point: UnsafePointer<Int32>) -> Bool {
        let (x, y, z) = (Double(point[0]), Double(point[1]), Double(point[2]))
        return low.0 <= x && x <= high.0 && low.1 <= y && y <= high.1 && low.2 <= z && z <= high.2
    }

    func component(_ axis: Int, of bounds: (Double, Double, Double)) -> Double {
        switch axis {
        case 0: bounds.0
        case 1: bounds.1
        default: bounds.2
        }
    }

    /// The cell on the low side of a node's splitting plane at `value` (places sort there by their
    /// coordinate along `axis`, so the lower subtree's are at most `value`), and the cell on its high side.
    func split(axis: Int, at value: Double) -> (low: VectorBox, high: VectorBox) {
        var lower = self
        var upper = self
        switch axis {
        case 0:
            lower.high.0 = min(high.0, value)
            upper.low.0 = max(low.0, value)
        case 1:
            lower.high.1 = min(high.1, value)
            upper.low.1 = max(low.1, value)
        default:
            lower.high.2 = min(high.2, value)
            upper.low.2 = max(low.2, value)
        }
        return (lower, upper)
    }
}

/// The walk behind `Gazetteer.largestPlaces(in:limit:)`: the `limit` most populous places whose vectors
/// lie in one of `boxes` and that `isInside` accepts, kept in a small heap.
struct AreaSearch {
    let tables: GazetteerTables
    let boxes: [VectorBox]
    let limit: Int
    /// The best places so far, a min-heap by (population, -index): the root is the one to beat.
    private var heap: [(population: UInt32, index: Int)] = []

    init(tables: GazetteerTables, boxes: [VectorBox], limit: Int) {
        self.tables = tables
        self.boxes = boxes
        self.limit = limit
        heap.reserveCapacity(limit)
    }

    /// The places found, most populous first.
    var found: [Int] {
        heap.sorted { $0.population != $1.population ? $0.population > $1.population : $0.index < $1.index }.map(\.index)
    }

    mutating func run(count: Int, isInside: (Int) -> Bool) {
        visit(0, count, cell: .everything, isInside: isInside)
    }

    private mutating func visit(_ lowerBound: Int, _ upperBound: Int, cell: VectorBox, isInside: (Int) -> Bool) {
        guard lowerBound < upperBound, boxes.contains(where: { $0.intersects(cell) }) else { return }
        let mid = lowerBound + (upperBound - lowerBound) >> 1
        let split = tables.split(mid)
        // Nothing in this subtree is more populous than the place to beat.
        if heap.count == limit, split.largestPopulation < heap[0].population { return }
        let point = tables.nodes + GazetteerFormat.wordsPerEntry * mid
        if boxes.contains(where: { $0.contains(point) }), isInside(mid) {
            consider(population: tables.record(mid).population, index: mid)
        }
        let value = Double(point[split.axis > 2 ? 2 : split.axis])
        let (low, high) = cell.split(axis: split.axis, at: value)
        // The side with the larger largest population first, so the heap fills with big places early.
        let lowFirst = lowerBound < mid && (mid + 1 >= upperBound || subtreeLargest(lowerBound, mid) >= subtreeLargest(mid + 1, upperBound))
        if lowFirst {
            visit(lowerBound, mid, cell: low, isInside: isInside)
            visit(mid + 1, upperBound, cell: high, isInside: isInside)
        } else {
            visit(mid + 1, upperBound, cell: high, isInside: isInside)
            visit(lowerBound, mid, cell: low, isInside: isInside)
        }
    }

    private func subtreeLargest(_ lowerBound: Int, _ upperBound: Int) -> UInt32 {
        guard lowerBound < upperBound else { return 0 }
        return tables.split(lowerBound + (upperBound - lowerBound) >> 1).largestPopulation
    }

    /// Whether (population, index) ranks below `other` (fewer people, or as many and a higher index).
    private static func ranksBelow(_ a: (population: UInt32, index: Int), _ b: (population: UInt32, index: Int)) -> Bool {
        a.population != b.population ? a.population < b.population : a.index > b.index
    }

    private mutating func consider(population: UInt32, index: Int) {
        let entry = (population: population, index: index)
        if heap.count < limit {
            heap.append(entry)
            siftUp(heap.count - 1)
        } else if Self.ranksBelow(heap[0], entry) {
            heap[0] = entry
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.ranksBelow(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var lowest = parent
            for child in [2 * parent + 1, 2 * parent + 2] where child < heap.count {
                if Self.ranksBelow(heap[child], heap[lowest]) { lowest = child }
            }
            guard lowest != parent else { return }
            heap.swapAt(parent, lowest)
            parent = lowest
        }
    }
}
