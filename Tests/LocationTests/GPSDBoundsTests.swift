import ForecastModel
import Foundation
import Location
import Logging
import TestSupport
import Testing

/// What a gpsd peer cannot make forecastd publish or do: a fix time that is no time (`"not-a-time"`, which
/// libgps reads as 1899-12-31) or one far behind this machine's clock published as the fix's, and a peer that
/// sends an endless line reconnected to every second.
@Suite("gpsd: fix times and backoff bounded", .serialized)
struct GPSDBoundsTests {
    func decode(_ line: String) throws -> GPSDReport {
        try #require(GPSDReport(decodingJSONLines: [line]), "libgps refused \(line)")
    }

    @Test("\"not-a-time\" is no fix time: the position counts, the time (libgps's 1899-12-31) is not published")
    func notATime() throws {
        let now = Date()
        // gpsd 3.22's libgps reads the time as 1899-12-31; should another version refuse the line or read no time
        // at all, nothing is published as the fix's time either.
        guard
            let report = GPSDReport(
                decodingJSONLines: [
                    #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"not-a-time","lat":48.9043,"lon":2.333}"#
                ])
        else { return }
        guard case .fix(let fix, let problem) = report.judged(receivedAt: now) else {
            Issue.record("a 3D fix with a broken time lost its position")
            return
        }
        #expect(fix.fixTime == nil, "published as \(String(describing: fix.fixTime))")
        if report.seconds != 0 || report.nanoseconds != 0 {
            #expect(problem?.kind == .invalidTime)
        }
        #expect(fix.receivedAt == now)
    }

    @Test("a fix time more than 5 minutes behind this machine's clock is not published; within 5 minutes it is")
    func pastTimes() throws {
        let now = Date()
        let offsets: [TimeInterval] = [-301, -3600, -40 * 86_400, -1024 * 7 * 86_400]
        for offset in offsets {
            let report = try decode(
                ScriptedGPSD.tpv(mode: 3, time: now.addingTimeInterval(offset), latitude: 48.9043, longitude: 2.333))
            guard case .fix(let fix, let problem) = report.judged(receivedAt: now) else {
                Issue.record("a fix dated \(offset) s from now lost its position")
                continue
            }
            #expect(fix.fixTime == nil, "a fix time \(offset) s from now was published")
            #expect(problem?.kind == .pastTime)
        }
        let recent = try decode(
            ScriptedGPSD.tpv(mode: 3, time: now.addingTimeInterval(-299), latitude: 48.9043, longitude: 2.333))
        guard case .fix(let fix, nil) = recent.judged(receivedAt: now) else {
            Issue.record("a fix 299 s old was not a plain fix")
            return
        }
        #expect(fix.fixTime.map { abs($0.timeIntervalSince(now) + 299) < 0.01 } == true)
    }

    @Test("through the reader: a fix dated \"not-a-time\" or a day ago arrives without a time, logged once")
    func throughTheReader() async throws {
        let broken = #"{"class":"TPV","device":"\#(ScriptedGPSD.device)","mode":3,"time":"not-a-time","lat":48.85,"lon":2.35}"#
        let old = ScriptedGPSD.tpv(mode: 3, time: Date().addingTimeInterval(-86_400), latitude: 48.86, longitude: 2.35)
        // Each sent twice (gpsd may report an epoch more than once), then a good fix: once it is in, all is read.
        let good = ScriptedGPSD.tpv(mode: 3, time: Date(), latitude: 48.87, longitude: 2.35)
        let peer = try ScriptedGPSD(script: [.line(broken), .line(broken), .line(old), .line(old), .line(good)])
        defer { peer.stop() }
        let (logger, logs) = RecordingLogHandler.logger()
        let provider = GPSDLocationProvider(
            host: "127.0.0.1", port: peer.port, backoff: quickBackoff, handOnInterval: .zero, logger: logger)
        try await running(provider) { recorder in
            _ = try #require(
                await recorder.first(within: 10) { event in
                    guard case .fix(let fix) = event else { return false }
                    return fix.coordinate.latitude == 48.87
                }, "the good fix never arrived; events: \(recorder.all)")
            let fixes = recorder.all.compactMap { event -> LocationFix? in
                guard case .fix(let fix) = event else { return nil }
                return fix
            }
            // 48.85 only where libgps reads the broken line (gpsd 3.22 does, as 1899-12-31).
            #expect(fixes.map(\.coordinate.latitude).filter { $0 != 48.85 } == [48.86, 48.87], "\(fixes)")
            #expect(fixes.dropLast().allSatisfy { $0.fixTime == nil }, "\(fixes)")
            #expect(fixes.last?.fixTime != nil)
        }
        func warned(_ problem: String) -> Int {
            logs.all.count { $0.level == .warning && $0.metadata["gps.problem"] == .string(problem) }
        }
        #expect(warned("past_time") == 1, "\(logs.all.map(\.message))")
        #expect(warned("invalid_time") <= 1, "\(logs.all.map(\.message))")
    }

    @Test("a peer that greets, then sends an endless line: reconnected with a growing backoff, not at its start")
    func endlessLine() async throws {
        // libgps gives up on a line longer than its buffer and the reader closes the connection. The greeting
        // alone is no working connection, so the backoff (100 ms doubling to 400 ms here) keeps growing.
        let peer = try ScriptedGPSD(script: [.send(String(repeating: "x", count: 256 * 1024))])
        defer { peer.stop() }
        let provider = GPSDLocationProvider(
            host: "127.0.0.1", port: peer.port, backoff: quickBackoff, logger: quietLogger())
        try await running(provider) { _ in
            let deadline = ContinuousClock.now + .seconds(20)
            while peer.connectionTimes.count < 6, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let times = peer.connectionTimes
        try #require(times.count >= 6, "only \(times.count) connections in 20 s")
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        // 100, 200, 400, 400 ms of backoff (each plus the time to connect and read): from the fourth on, at
        // least the maximum. Before, every reconnection waited the first 100 ms.
        for gap in gaps.dropFirst(3).prefix(2) {
            #expect(gap >= .milliseconds(380), "reconnected after \(gap); gaps \(gaps)")
        }
    }
}
