import ForecastModel
import Foundation
import FuzzSupport
import WarningDecoders

/// The decoder of MET Norway MetAlerts 2.0 against arbitrary bodies, and the matcher placing what it decoded (shapes on the
/// sphere, holes, the antimeridian) against a point.
let point = Coordinate(latitude: 40.7, longitude: -74.0)
let far = Coordinate(latitude: -16.5, longitude: 179.9)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetAlerts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard let feed = try? MetNorwayAlertsDecoder.decode(Data(bytes: data, count: size)) else { return 0 }
    let matcher = WarningMatcher()
    for message in feed.messages {
        _ = matcher.placement(of: message, at: point)
        _ = matcher.placement(of: message, at: far)
    }
    return 0
}

@_cdecl("FuzzMetAlerts_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMetAlerts)
}
