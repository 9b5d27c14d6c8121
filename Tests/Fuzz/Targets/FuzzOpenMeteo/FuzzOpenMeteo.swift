import ForecastModel
import Foundation
import FuzzSupport
import ProviderDecoders

/// Open-Meteo's forecast decoder (current, minutely_15, hourly, daily) against arbitrary bodies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenMeteo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let body = UnsafeBufferPointer(start: data, count: size)
    let fetchedAt = Date(timeIntervalSince1970: 1_760_000_000)
    _ = try? OpenMeteoDecoder.decode(body, fetchedAt: fetchedAt, requested: Coordinate(latitude: 52.5, longitude: 13.4))
    return 0
}

@_cdecl("FuzzOpenMeteo_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOpenMeteo)
}
