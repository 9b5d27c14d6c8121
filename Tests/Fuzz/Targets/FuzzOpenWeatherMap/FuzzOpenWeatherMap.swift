import ForecastModel
import Foundation
import FuzzSupport
import ProviderDecoders

/// OpenWeatherMap's decoders against arbitrary bodies, in the units the input's length picks: its first
/// half as the current-weather answer and its second as the 5-day forecast, each alone, and the whole as a
/// One Call answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenWeatherMap(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    // The input's length picks the units it is read in, so that each seed is read in one of them and the
    // fuzzer's insertions and deletions try the others.
    let units = OpenWeatherMapDecoder.Units.allCases[size % OpenWeatherMapDecoder.Units.allCases.count]
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let fetchedAt = Date(timeIntervalSince1970: 1_760_000_000)
    let half = bytes.count / 2
    _ = try? OpenWeatherMapDecoder.decode(
        current: Array(bytes[..<half]), forecast: Array(bytes[half...]), units: units, fetchedAt: fetchedAt)
    _ = try? OpenWeatherMapDecoder.decode(current: bytes, forecast: nil, units: units, fetchedAt: fetchedAt)
    _ = try? OpenWeatherMapDecoder.decode(current: nil, forecast: bytes, units: units, fetchedAt: fetchedAt)
    _ = try? OpenWeatherMapDecoder.decode(oneCall: bytes, units: units, fetchedAt: fetchedAt)
    return 0
}

@_cdecl("FuzzOpenWeatherMap_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOpenWeatherMap)
}
