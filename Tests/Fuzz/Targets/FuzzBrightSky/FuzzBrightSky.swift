import FuzzSupport
import WarningDecoders
import WarningFuzzing

/// The decoder of Bright Sky's DWD alerts against arbitrary bodies, and the matcher placing what it decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrightSky(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    decodeAndPlace(data, size, BrightSkyDecoder.decode)
}

@_cdecl("FuzzBrightSky_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzBrightSky)
}
