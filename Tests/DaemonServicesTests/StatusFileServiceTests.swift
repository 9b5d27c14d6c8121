import DaemonServices
import DaemonState
import ForecastModel
import Foundation
import Logging
import ServiceLifecycleTestKit
import Settings
import Testing
import TestSupport

/// The JSON status file as the daemon leaves it when it stops: what bars and `forecastctl watch` read while the
/// daemon is away.
@Suite("Status file service", .onEventLoops)
struct StatusFileServiceTests {
    /// Runs the service on a pinned state until its first write, publishes a forecast and stops it at once;
    /// returns the report the file holds afterwards.
    func reportLeftAfterAStopRightBehindAForecast() async throws -> Report {
        let base = TestState()
        let pin = Coordinate(latitude: 48.9, longitude: 2.33)
        let state = base.makeState(Settings.testing(pin: pin, gpsd: false, mode: .pinned))
        let directory = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/run/forecastd.json"
        let (firstWrite, wrote) = AsyncStream.makeStream(of: Void.self)
        let service = StatusFileService(
            path: path, state: state, logger: Logger(label: "test"), published: { wrote.yield() })
        try await testGracefulShutdown { shutdown in
            try await withThrowingTaskGroup { group in
                group.addTask { try await service.run() }
                await state.tick()
                for await _ in firstWrite { break }
                // The forecast comes in, and the stop right behind it (a user logging out as it arrives).
                await state.forecastSucceeded(base.forecast(), for: pin)
                shutdown.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try Report.makeDecoder().decode(Report.self, from: data)
    }

    @Test("a forecast published just before a stop is in the status file the daemon leaves behind")
    func newestReportWrittenAtStop() async throws {
        // Two hundred stops: before the service wrote the newest report at its end, the stop ended its loop with
        // the write still to do in 10 to 41 of them (four runs), and the file kept "no forecast yet".
        var missing = 0
        for _ in 0..<200 {
            let report = try await reportLeftAfterAStopRightBehindAForecast()
            if report.current?.temperature == nil { missing += 1 }
        }
        #expect(missing == 0, "\(missing) of 200 status files left without the forecast published before the stop")
    }
}
