import ForecastModel
import Foundation
import FuzzSupport
import WarningDecoders

/// The decoder of NWS alerts (GeoJSON with CAP fields) against arbitrary bodies, and the matcher placing what it decoded (shapes on the
/// sphere, holes, the antimeridian) against a point.
let point = Coordinate(latitude: 40.7, longitude: -74.0)
let far = Coordinate(latitude: -16.5, longitude: 179.9)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNWS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard let feed = try? NWSDecoder.decode(Data(bytes: data, count: size), askedPoint: point) else { return 0 }
    let matcher = WarningMatcher()
    for message in feed.messages {
        _ = matcher.placement(of: message, at: point)
        _ = matcher.placement(of: message, at: far)
    }
    return 0
}

@_cdecl("FuzzNWS_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzNWS)
}
