import FuzzSupport
import WarningDecoders
import WarningFuzzing

/// The decoder of MET Norway MetAlerts 2.0 against arbitrary bodies, and the matcher placing what it decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetAlerts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    decodeAndPlace(data, size, MetNorwayAlertsDecoder.decode)
}

@_cdecl("FuzzMetAlerts_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMetAlerts)
}
