/// One nearest-neighbour search down the implicit k-d tree of stored unit vectors.
///
/// The node of the index range [lo, hi) sits at lo + (hi - lo) / 2, with its left subtree in
/// [lo, mid) and its right subtree in [mid + 1, hi); `axes[mid]` says which coordinate it splits.
/// Distances are squared chords in the stored scale (2^30 per unit), computed in Double from the
/// exact stored integers. Pruning compares with `>` only, so a place at exactly the best distance
/// is still visited and the lower index wins the tie, as in `bruteForce`: both give the same answer.
struct NearestSearch {
    let vectors: UnsafePointer<Int32>
    let axes: UnsafePointer<UInt8>
    let query: (x: Double, y: Double, z: Double)
    private(set) var bestIndex = -1
    private(set) var bestDistance = Double.infinity

    init(tables: GazetteerTables, query: (x: Double, y: Double, z: Double)) {
        vectors = tables.vectors
        axes = tables.axes
        self.query = query
    }

    /// Searches the tree of `count` places.
    mutating func run(count: Int) {
        visit(0, count)
    }

    private mutating func visit(_ lowerBound: Int, _ upperBound: Int) {
        var lo = lowerBound
        var hi = upperBound
        // The far side of each node is searched by looping rather than recursing.
        while lo < hi {
            let mid = lo + (hi - lo) >> 1
            let point = vectors + 3 * mid
            let dx = query.x - Double(point[0])
            let dy = query.y - Double(point[1])
            let dz = query.z - Double(point[2])
            consider(mid, distance: dx * dx + dy * dy + dz * dz)
            // A corrupt axis byte must not index outside (dx, dy, dz); it only spoils the answer.
            let split: Double
            switch axes[mid] {
            case 0: split = dx
            case 1: split = dy
            default: split = dz
            }
            if split < 0 {
                visit(lo, mid)
                if split * split > bestDistance { return }
                lo = mid + 1
            } else {
                visit(mid + 1, hi)
                if split * split > bestDistance { return }
                hi = mid
            }
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
            let point = vectors + 3 * index
            let dx = query.x - Double(point[0])
            let dy = query.y - Double(point[1])
            let dz = query.z - Double(point[2])
            consider(index, distance: dx * dx + dy * dy + dz * dz)
        }
    }
}
