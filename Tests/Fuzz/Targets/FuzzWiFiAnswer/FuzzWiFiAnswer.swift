import ForecastModel
import FuzzSupport
import LocationDecoders

/// The Wi-Fi geolocation service's answer against arbitrary bodies, under each status the decoder reads differently.
/// Whatever it decides, a position it lets through must be a real place with a Wi-Fi accuracy.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWiFiAnswer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    for status in [200, 403, 404, 429, 500] {
        if case .position(let position) = WiFiGeolocationAnswer.decode(status: status, body: body) {
            precondition(position.coordinate.isPlausible, "an implausible position was let through")
            precondition(
                position.accuracyMeters > 0 && position.accuracyMeters <= WiFiGeolocationAnswer.maxAccuracyMeters,
                "an accuracy out of bounds was let through")
        }
    }
    return 0
}

@_cdecl("FuzzWiFiAnswer_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzWiFiAnswer)
}
