import ForecastModel
import Foundation
import FuzzSupport
import MQTTPayloads

/// A follower's decoding of a message on a followed report topic: whatever arrives, it is taken or refused with
/// a reason, and what is taken renders as a report in another's units.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSharedReport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    do {
        if case .report(let shared) = try SharedReport.decode(payload, now: now) {
            let inputs = shared.model.reportInputs(units: .imperial, staleAfter: 3600, nowcastHorizon: 7200)
            _ = try? Report.makeEncoder().encode(Report(inputs, now: now))
        }
    } catch {
        _ = error.reason
    }
    return 0
}

@_cdecl("FuzzSharedReport_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSharedReport)
}
