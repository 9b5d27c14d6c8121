import ForecastModel
import Foundation
import FuzzSupport
import ProviderDecoders

/// MET Norway's Locationforecast (compact) decoder against arbitrary bodies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetNorway(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let body = UnsafeBufferPointer(start: data, count: size)
    let now = Date(timeIntervalSince1970: 1_760_000_000)
    _ = try? MetNorwayDecoder.decode(
        body, fetchedAt: now, now: now, timeZone: TimeZone(identifier: "Europe/Oslo"),
        requested: Coordinate(latitude: 59.9, longitude: 10.7))
    return 0
}

@_cdecl("FuzzMetNorway_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMetNorway)
}
