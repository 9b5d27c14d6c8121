import FuzzSupport
import WarningDecoders
import WarningFuzzing

/// The decoder of Environment and Climate Change Canada's alerts (OGC API GeoJSON) against arbitrary bodies, in
/// English and French, and the matcher placing what it decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzECCC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = decodeAndPlace(data, size) { body throws(WarningError) in try ECCCDecoder.decode(body, language: "fr") }
    return decodeAndPlace(data, size) { body throws(WarningError) in try ECCCDecoder.decode(body, language: "en") }
}

@_cdecl("FuzzECCC_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzECCC)
}
