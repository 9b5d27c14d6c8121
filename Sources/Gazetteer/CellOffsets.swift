/// How far a k-d tree cell lies from the query along each axis: the incremental bound of Arya and
/// Mount, shared by the nearest-place search and the covering-city search.
///
/// The squared length is a lower bound on the distance to every place in the cell, which prunes far
/// more than the distance to the last splitting plane alone. Summed in the same order as a distance,
/// it never exceeds the computed distance of any place in the cell: rounding is monotonic, so the
/// pruning stays exact.
struct CellOffsets {
    var x = 0.0
    var y = 0.0
    var z = 0.0

    /// No place in the cell is closer than this squared chord.
    @inline(__always)
    var squaredLength: Double { x * x + y * y + z * z }

    /// Which side of a node's splitting plane the query is on (the signed distance from the node along
    /// `axis`: negative means the lower side), and the offsets of the cell on the other side, which is at
    /// least as far from the query as the plane. An axis other than 0 or 1 counts as 2, so a corrupt axis
    /// word only spoils the answer.
    @inline(__always)
    func split(axis: Int, dx: Double, dy: Double, dz: Double) -> (side: Double, far: CellOffsets) {
        var far = self
        switch axis {
        case 0:
            far.x = dx
            return (dx, far)
        case 1:
            far.y = dy
            return (dy, far)
        default:
            far.z = dz
            return (dz, far)
        }
    }
}
