import Foundation

/// A point on the Earth in decimal degrees (WGS 84).
public struct Coordinate: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Mean Earth radius used for every distance in forecastd (IUGG), in kilometres.
    public static let earthRadiusKm = 6371.0088

    /// Whether this is a position a receiver or a user could mean.
    ///
    /// Rejects NaN and infinities, out-of-range values and (0, 0): "null island" is what a GPS
    /// without a fix and many broken services report, never where a forecastd user is.
    public var isPlausible: Bool {
        latitude.isFinite && longitude.isFinite
            && (-90...90).contains(latitude) && (-180...180).contains(longitude)
            && !(latitude == 0 && longitude == 0)
    }

    /// Great-circle distance in kilometres (haversine, numerically stable for short distances).
    public func distanceKm(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Coordinate.earthRadiusKm * asin(min(1, sqrt(a)))
    }
}
