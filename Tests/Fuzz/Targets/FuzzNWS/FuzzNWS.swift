import ForecastModel
import FuzzSupport
import WarningDecoders
import WarningFuzzing

/// The decoder of NWS alerts (GeoJSON with CAP fields) against arbitrary bodies, and the matcher placing what it decoded.

/// The point NWS is asked about (its answers name the zones that hold it).
let asked = Coordinate(latitude: 40.7, longitude: -74.0)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNWS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    decodeAndPlace(data, size, { data throws(WarningError) in try NWSDecoder.decode(data, askedPoint: asked) })
}

@_cdecl("FuzzNWS_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzNWS)
}
