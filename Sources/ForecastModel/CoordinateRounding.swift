import Foundation

extension Coordinate {
    /// The coordinate rounded to `decimals` decimals (0...4, half away from zero), as sent to web
    /// services: 2 decimals is about 1.1 km, 4 about 11 m.
    public func rounded(decimals: Int) -> Coordinate {
        let scale = pow(10, Double(max(0, min(decimals, 4))))
        func round(_ value: Double) -> Double {
            let rounded = (value * scale).rounded(.toNearestOrAwayFromZero) / scale
            return rounded == 0 ? 0 : rounded  // no "-0" in URLs
        }
        return Coordinate(latitude: round(latitude), longitude: round(longitude))
    }
}
