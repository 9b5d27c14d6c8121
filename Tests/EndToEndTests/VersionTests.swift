import Control
import Foundation
import TestSupport
import Testing

/// `--version` names the libgps API the binaries were built against, so a bug report says which gpsd they fit.
@Suite("--version")
struct VersionTests {
    @Test("forecastd and forecastctl print their version and the libgps API of the installed gps.h", arguments: ["forecastd", "forecastctl"])
    func versionLine(program: String) async throws {
        let api = try installedLibgpsAPI()
        let result = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent(program), ["--version"],
            environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "\(program) \(ForecastdVersion.current) (libgps API \(api))\n")
    }
}
