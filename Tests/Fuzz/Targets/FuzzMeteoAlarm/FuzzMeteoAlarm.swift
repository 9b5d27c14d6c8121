import FuzzSupport
import WarningDecoders
import WarningFuzzing

/// The decoder of a MeteoAlarm country feed against arbitrary bodies, and the matcher placing what it decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeteoAlarm(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    decodeAndPlace(data, size, MeteoAlarmDecoder.decode)
}

@_cdecl("FuzzMeteoAlarm_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMeteoAlarm)
}
