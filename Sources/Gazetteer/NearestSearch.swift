/// One nearest-neighbour search down the implicit k-d tree of stored unit vectors.
///
/// The node of the index range [lo, hi) sits at lo + (hi - lo) / 2, with its left subtree in
/// [lo, mid) and its right subtree in [mid + 1, hi); each node is four Int32 words, the scaled
/// unit vector's x, y, z and a word whose low two bits are the coordinate the node splits on
/// (0, 1 or 2).
/// Distances are squared chords in the stored scale (2^30 per unit), computed in Double from the
/// exact stored integers. Pruning compares with `>` only, so a place at exactly the best distance
/// is still visited and the lower index wins the tie, as in `bruteForce`: both give the same answer.
/// Nothing here allocates: the state is this struct and the recursion is at most the tree's
/// depth (18 levels for 170,000 places).
struct NearestSearch {
    let nodes: UnsafePointer<Int32>
    let query: (x: Double, y: Double, z: Double)
    private(set) var bestIndex = -1
    private(set) var bestDistance = Double.infinity

    /// Subtrees this small are checked place by place.
    static let leafSize = 16

    init(tables: GazetteerTables, query: (x: Double, y: Double, z: Double)) {
        nodes = tables.nodes
        self.query = query
    }

    /// Searches the tree of `count` places.
    mutating func run(count: Int) {
        visit(0, count, offsets: CellOffsets())
    }

    /// Searches the subtree of [lowerBound, upperBound), whose cell lies at least `offsets` away
    /// from the query along each axis (``CellOffsets``: the bound matters most when the nearest
    /// place is far away, as it is at sea).
    private mutating func visit(_ lowerBound: Int, _ upperBound: Int, offsets: CellOffsets) {
        var lo = lowerBound
        var hi = upperBound
        var offsets = offsets
        // The far side of each node is searched by looping rather than recursing.
        while lo < hi {
            if hi - lo <= Self.leafSize {
                // Checking a handful of places outright is cheaper than walking their subtree.
                for index in lo..<hi {
                    let point = nodes + 4 * index
                    let dx = query.x - Double(point[0])
                    let dy = query.y - Double(point[1])
                    let dz = query.z - Double(point[2])
                    consider(index, distance: dx * dx + dy * dy + dz * dz)
                }
                return
            }
            let mid = lo + (hi - lo) >> 1
            let point = nodes + 4 * mid
            let dx = query.x - Double(point[0])
            let dy = query.y - Double(point[1])
            let dz = query.z - Double(point[2])
            consider(mid, distance: dx * dx + dy * dy + dz * dz)

            // The far cell is at least as far from the query as this node's splitting plane.
            let (side, farOffsets) = offsets.split(
                axis: Int(point[3] & Int32(GazetteerFormat.axisMask)), dx: dx, dy: dy, dz: dz)
            if side < 0 {
                visit(lo, mid, offsets: offsets)
                lo = mid + 1
            } else {
                visit(mid + 1, hi, offsets: offsets)
                hi = mid
            }
            if farOffsets.squaredLength > bestDistance { return }
            offsets = farOffsets
        }
    }

    @inline(__always)
    private mutating func consider(_ index: Int, distance: Double) {
        if distance < bestDistance || (distance == bestDistance && index < bestIndex) {
            bestDistance = distance
            bestIndex = index
        }
    }

    /// Checks every place; the reference the tree search is tested against.
    mutating func bruteForce(count: Int) {
        for index in 0..<count {
            let point = nodes + 4 * index
            let dx = query.x - Double(point[0])
            let dy = query.y - Double(point[1])
            let dz = query.z - Double(point[2])
            consider(index, distance: dx * dx + dy * dy + dz * dz)
        }
    }
}
