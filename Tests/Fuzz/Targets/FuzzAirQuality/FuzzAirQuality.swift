import ForecastModel
import Foundation
import FuzzSupport
import ProviderDecoders

/// Open-Meteo's air-quality decoder against arbitrary bodies, on both index scales.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAirQuality(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let body = UnsafeBufferPointer(start: data, count: size)
    let now = Date(timeIntervalSince1970: 1_760_000_000)
    for scale in AQIScale.allCases {
        _ = try? OpenMeteoAirQualityDecoder.decode(
            body, scale: scale, fetchedAt: now, now: now, requested: Coordinate(latitude: 49.2, longitude: 16.6))
    }
    return 0
}

@_cdecl("FuzzAirQuality_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzAirQuality)
}
