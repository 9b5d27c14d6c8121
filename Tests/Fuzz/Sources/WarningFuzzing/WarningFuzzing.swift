import ForecastModel
import Foundation
import WarningDecoders

/// What every warning target does with an input: decodes it with `decode`, then places each message it
/// decoded with the geometry matcher (shapes on the sphere, holes, the antimeridian) at two points, one
/// near the antimeridian.
public func decodeAndPlace(
    _ data: UnsafePointer<UInt8>?, _ size: Int, _ decode: (Data) throws(WarningError) -> DecodedFeed
) -> CInt {
    guard let data, let feed = try? decode(Data(bytes: data, count: size)) else { return 0 }
    let matcher = WarningMatcher()
    for message in feed.messages {
        _ = matcher.placement(of: message, at: Coordinate(latitude: 40.7, longitude: -74.0))
        _ = matcher.placement(of: message, at: Coordinate(latitude: -16.5, longitude: 179.9))
    }
    return 0
}
