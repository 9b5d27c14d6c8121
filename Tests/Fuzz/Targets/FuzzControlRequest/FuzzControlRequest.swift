import Control
import FuzzSupport

/// The socket's request parser against arbitrary lines, plain and JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try ControlRequest.parse(line)
    } catch {
        _ = "\(error)"
    }
    return 0
}

@_cdecl("FuzzControlRequest_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzControlRequest)
}
