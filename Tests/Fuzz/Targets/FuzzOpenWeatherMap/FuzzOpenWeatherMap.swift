import ForecastModel
import Foundation
import ProviderDecoders
import FuzzSupport

/// OpenWeatherMap's decoders against arbitrary bodies: the input's first half as the current-weather answer
/// and its second as the 5-day forecast, then the whole as a One Call answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenWeatherMap(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let fetchedAt = Date(timeIntervalSince1970: 1_760_000_000)
    for units in OpenWeatherMapDecoder.Units.allCases {
        let half = bytes.count / 2
        _ = try? OpenWeatherMapDecoder.decode(
            current: Array(bytes[..<half]), forecast: Array(bytes[half...]), units: units, fetchedAt: fetchedAt)
        _ = try? OpenWeatherMapDecoder.decode(current: bytes, forecast: nil, units: units, fetchedAt: fetchedAt)
        _ = try? OpenWeatherMapDecoder.decode(current: nil, forecast: bytes, units: units, fetchedAt: fetchedAt)
        _ = try? OpenWeatherMapDecoder.decode(oneCall: bytes, units: units, fetchedAt: fetchedAt)
    }
    return 0
}

@_cdecl("FuzzOpenWeatherMap_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOpenWeatherMap)
}
