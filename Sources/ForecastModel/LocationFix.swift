import Foundation

/// Where a position came from. Raw values appear in the report's `location.source`.
public enum LocationSource: String, Sendable, Hashable, Codable, CaseIterable {
    case gpsd
    case pinned
    case ip
    case staticFile = "static_file"
    /// The Wi-Fi access points around, located by a geolocation service (beaconDB).
    case wifi
    /// GeoClue 2, the desktop's location service.
    case geoclue
    /// One of the user's listed cities (`[[cities]]`), in a city's own report.
    case city
}

/// One position from one source.
public struct LocationFix: Sendable, Hashable, Codable {
    public var coordinate: Coordinate
    public var source: LocationSource
    /// Horizontal accuracy in metres (95 % radius when the source says so), when known.
    public var accuracyMeters: Double?
    /// Altitude above mean sea level in metres, when known.
    public var altitudeMeters: Double?
    /// When the source measured the position (the receiver's clock for gpsd).
    public var fixTime: Date?
    /// When forecastd received it, by this machine's clock. Freshness is judged on this,
    /// because receivers' clocks can be far off (GPS week rollover).
    public var receivedAt: Date
    /// A display name given with the position (the pin's `name`).
    public var label: String?

    public init(
        coordinate: Coordinate, source: LocationSource, accuracyMeters: Double? = nil,
        altitudeMeters: Double? = nil, fixTime: Date? = nil, receivedAt: Date, label: String? = nil
    ) {
        self.coordinate = coordinate
        self.source = source
        self.accuracyMeters = accuracyMeters
        self.altitudeMeters = altitudeMeters
        self.fixTime = fixTime
        self.receivedAt = receivedAt
        self.label = label
    }
}
