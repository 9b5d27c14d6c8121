import ForecastModel
import Foundation
import Location
import Logging
import TestSupport
import Testing
import Waiting

/// The provider against a scripted gpsd peer: what gpsfake cannot make a real gpsd send (mode 99, an error of
/// 1e300 m, a fix dated 2099), and the exact byte timing the no-polling reader must cope with. libgps parses it all.
@Suite("GPSDLocationProvider against a scripted gpsd peer", .serialized)
struct ScriptedGPSDTests {
    static let paris = (latitude: 48.8566, longitude: 2.3522)
    static let sydney = (latitude: -33.8688, longitude: 151.2093)

    /// A good fix at Saint-Ouen, sent last: once it arrives, everything before it has been read.
    static func sentinel(at time: Date = Date()) -> ScriptedGPSD.Step {
        .line(
            ScriptedGPSD.tpv(
                mode: 3, time: time, latitude: saintOuen.latitude, longitude: saintOuen.longitude, extra: #""eph":8.5"#))
    }

    func provider(_ peer: ScriptedGPSD, logger: Logger = quietLogger()) -> GPSDLocationProvider {
        GPSDLocationProvider(host: "127.0.0.1", port: peer.port, backoff: quickBackoff, logger: logger)
    }

    func fixes(_ events: [LocationEvent]) -> [LocationFix] {
        events.compactMap { event in
            guard case .fix(let fix) = event else { return nil }
            return fix
        }
    }

    func warnings(_ logs: RecordingLogHandler.Store, problem: String) -> Int {
        logs.all.count { $0.level == .warning && $0.metadata["gps.problem"] == .string(problem) }
    }

    @Test("mode 99 with a position is not a fix; said once in the log however often it comes")
    func modeNinetyNine() async throws {
        let bad = ScriptedGPSD.tpv(mode: 99, time: Date(), latitude: Self.paris.latitude, longitude: Self.paris.longitude)
        let peer = try ScriptedGPSD(script: Array(repeating: .line(bad), count: 5) + [Self.sentinel()])
        defer { peer.stop() }
        let (logger, logs) = RecordingLogHandler.logger()
        try await running(provider(peer, logger: logger)) { recorder in
            let first = try #require(await recorder.firstFix(within: 10), "no fix; events: \(recorder.all)")
            #expect(isNear(first.fix.coordinate, saintOuen.latitude, saintOuen.longitude), "fix at \(first.fix.coordinate)")
            #expect(recorder.all[..<first.index] == [.connected(source: .gpsd), .noFix(source: .gpsd)])
        }
        #expect(warnings(logs, problem: "unknown_mode") == 1, "log: \(logs.all.map(\.message))")
    }

    @Test("an error estimate of 1e300 m (or negative, or above 10 km) is not a fix and never reaches accuracy_m")
    func hugeErrors() async throws {
        let members = [#""eph":1e300"#, #""epy":1e300"#, #""epx":-4.0"#, #""epv":20000"#]
        let bad = members.map {
            ScriptedGPSD.Step.line(
                ScriptedGPSD.tpv(
                    mode: 3, time: Date(), latitude: Self.paris.latitude, longitude: Self.paris.longitude, extra: $0))
        }
        let peer = try ScriptedGPSD(script: bad + bad + [Self.sentinel()])
        defer { peer.stop() }
        let (logger, logs) = RecordingLogHandler.logger()
        try await running(provider(peer, logger: logger)) { recorder in
            let first = try #require(await recorder.firstFix(within: 10), "no fix; events: \(recorder.all)")
            #expect(isNear(first.fix.coordinate, saintOuen.latitude, saintOuen.longitude), "fix at \(first.fix.coordinate)")
            #expect(first.fix.accuracyMeters == 8.5)
            #expect(fixes(recorder.all).count == 1)
        }
        #expect(warnings(logs, problem: "implausible_error") == 1, "log: \(logs.all.map(\.message))")
    }

    @Test("a fix dated 2099 loses its time, so the jump filter holds Paris → Sydney back")
    func futureDatedJump() async throws {
        let now = Date()
        let far = Date(timeIntervalSince1970: 4_070_908_800)  // 2099-01-01, as a glitching receiver might say
        let script: [ScriptedGPSD.Step] = [
            .line(
                ScriptedGPSD.tpv(
                    mode: 3, time: now, latitude: Self.paris.latitude, longitude: Self.paris.longitude,
                    extra: #""eph":12.0"#)),
            .line(
                ScriptedGPSD.tpv(
                    mode: 3, time: far, latitude: Self.sydney.latitude, longitude: Self.sydney.longitude,
                    extra: #""eph":12.0"#)),
            .line(
                ScriptedGPSD.tpv(
                    mode: 3, time: far.addingTimeInterval(1), latitude: Self.sydney.latitude,
                    longitude: Self.sydney.longitude, extra: #""eph":12.0"#)),
        ]
        let peer = try ScriptedGPSD(script: script)
        defer { peer.stop() }
        let (logger, logs) = RecordingLogHandler.logger()
        try await running(provider(peer, logger: logger)) { recorder in
            _ = try #require(
                await recorder.first(within: 10) { event in
                    guard case .fix(let fix) = event else { return false }
                    return fix.coordinate.latitude < 0
                }, "Sydney never arrived; events: \(recorder.all)")
            let fixes = fixes(recorder.all)
            #expect(fixes.count >= 2)
            let paris = try #require(fixes.first)
            let sydney = try #require(fixes.dropFirst().first)
            #expect(paris.fixTime.map { abs($0.timeIntervalSince(now)) < 0.01 } == true)
            #expect(sydney.fixTime == nil, "a fix time of \(String(describing: sydney.fixTime)) was believed")

            // The daemon's jump filter, fed what the provider delivered.
            var filter = JumpFilter(maxSpeedKmh: 1200)
            #expect(filter.consider(paris) == .accepted)
            guard case .held = filter.consider(sydney) else {
                Issue.record("Paris → Sydney in a second was not held back")
                return
            }
        }
        #expect(warnings(logs, problem: "future_time") == 1, "log: \(logs.all.map(\.message))")
    }

    @Test("lines that arrive together, and a line split by a pause, all become fixes in order")
    func bufferedAndSplitLines() async throws {
        let start = Date().addingTimeInterval(-10)
        let lines = (0..<4).map { second in
            ScriptedGPSD.tpv(
                mode: 3, time: start.addingTimeInterval(Double(second)), latitude: 48.90 + Double(second) / 1000,
                longitude: 2.33)
        }
        let fourth = lines[3] + "\n"
        let split = fourth.index(fourth.startIndex, offsetBy: fourth.count / 2)
        let peer = try ScriptedGPSD(script: [
            // One segment with three lines: libgps keeps the second and third after reading the first, and the
            // socket has nothing more to say, so a reader that waited on the socket first would miss them.
            .send(lines[0..<3].map { $0 + "\n" }.joined()),
            .send(String(fourth[..<split])),
            .pause(.milliseconds(400)),
            .send(String(fourth[split...])),
        ])
        defer { peer.stop() }
        try await running(provider(peer)) { recorder in
            _ = try #require(
                await recorder.first(within: 10) { event in
                    guard case .fix(let fix) = event else { return false }
                    return abs(fix.coordinate.latitude - 48.903) < 1e-9
                }, "the split line never arrived; events: \(recorder.all)")
            let latitudes = fixes(recorder.all).map(\.coordinate.latitude)
            #expect(latitudes.count == 4)
            for (index, latitude) in latitudes.enumerated() {
                #expect(abs(latitude - (48.90 + Double(index) / 1000)) < 1e-9)
            }
        }
    }

    @Test("a receiver sitting still: the first fix, then the last one kept back, handed on before 'no fix'")
    func keptFixBeforeNoFix() async throws {
        let start = Date().addingTimeInterval(-10)
        let still = (0..<4).map { second in
            ScriptedGPSD.tpv(
                mode: 3, time: start.addingTimeInterval(Double(second)), latitude: saintOuen.latitude,
                longitude: saintOuen.longitude, extra: #""eph":8.5"#)
        }
        let peer = try ScriptedGPSD(
            script: still.map { .line($0) } + [.line(ScriptedGPSD.tpv(mode: 1, time: nil, latitude: 0, longitude: 0))])
        defer { peer.stop() }
        try await running(provider(peer)) { recorder in
            _ = try #require(await recorder.first(within: 10) { $0.isNoFix }, "no 'no fix'; events: \(recorder.all)")
            let events = recorder.all
            #expect(events.count == 4, "events: \(events)")
            #expect(events.first == .connected(source: .gpsd))
            #expect(events.last == .noFix(source: .gpsd))
            // The two fixes in between change nothing the daemon judges: kept back, then dropped for the newer.
            // (The script writes times to the millisecond.)
            let times = fixes(events).map { $0.fixTime.map { $0.timeIntervalSince(start) } ?? -1 }
            #expect(times.count == 2, "times: \(times)")
            #expect(zip(times, [0.0, 3.0]).allSatisfy { abs($0 - $1) < 0.01 }, "times: \(times)")
        }
    }

    @Test("gpsd falls silent after a fix kept back: it is handed on 1.5 intervals later, and then the reader sleeps")
    func keptFixWhenSilent() async throws {
        let start = Date().addingTimeInterval(-10)
        let peer = try ScriptedGPSD(
            script: (0..<2).map { second in
                .line(
                    ScriptedGPSD.tpv(
                        mode: 3, time: start.addingTimeInterval(Double(second)), latitude: saintOuen.latitude,
                        longitude: saintOuen.longitude))
            })
        defer { peer.stop() }
        let provider = GPSDLocationProvider(
            host: "127.0.0.1", port: peer.port, backoff: quickBackoff, handOnInterval: .milliseconds(400),
            logger: quietLogger())
        try await running(provider) { recorder in
            _ = try #require(await recorder.firstFix(within: 10))
            let kept = try #require(
                await recorder.firstFix(from: 2, within: 5), "the kept fix never came; events: \(recorder.all)")
            #expect(kept.fix.fixTime.map { abs($0.timeIntervalSince(start) - 1) < 0.01 } == true)
            try await Task.sleep(for: .milliseconds(200))
            let before = provider.readerWakeups
            let emptyBefore = DescriptorWaiter.shared.emptyWakeups
            try await Task.sleep(for: .milliseconds(1500))
            let after = provider.readerWakeups
            // Nor does the waiter wake for a deadline that never rings.
            #expect(DescriptorWaiter.shared.emptyWakeups == emptyBefore)
            #expect(after - before == 0, "the reader woke \(after - before) times in 1.5 s of silence")
            #expect(fixes(recorder.all).count == 2)
        }
    }

    @Test("while gpsd is silent the reader sleeps: no wakeups at all")
    func noWakeupsWhileSilent() async throws {
        let peer = try ScriptedGPSD(script: [Self.sentinel()])
        defer { peer.stop() }
        let provider = provider(peer)
        try await running(provider) { recorder in
            _ = try #require(await recorder.firstFix(within: 10))
            // Let the reader finish with the last line and go to sleep.
            try await Task.sleep(for: .milliseconds(200))
            let before = provider.readerWakeups
            let emptyBefore = DescriptorWaiter.shared.emptyWakeups
            try await Task.sleep(for: .milliseconds(1500))
            let after = provider.readerWakeups
            // Nor does the waiter wake for a deadline that never rings.
            #expect(DescriptorWaiter.shared.emptyWakeups == emptyBefore)
            // A reader that polled every 250 ms would have woken about six times.
            #expect(after - before == 0, "the reader woke \(after - before) times in 1.5 s of silence")
        }
    }

    @Test("waiting to reconnect, the reader sleeps until the backoff ends: no wakeups")
    func noWakeupsDuringBackoff() async throws {
        let port = try GPSFake.freePort()
        let provider = GPSDLocationProvider(
            host: "127.0.0.1", port: port, backoff: .init(initial: .seconds(30), maximum: .seconds(30)),
            logger: quietLogger())
        try await running(provider) { recorder in
            _ = try #require(await recorder.first(within: 5) { $0.isUnavailable })
            try await Task.sleep(for: .milliseconds(200))
            let before = provider.readerWakeups
            let emptyBefore = DescriptorWaiter.shared.emptyWakeups
            try await Task.sleep(for: .milliseconds(1500))
            let after = provider.readerWakeups
            // Nor does the waiter wake for a deadline that never rings.
            #expect(DescriptorWaiter.shared.emptyWakeups == emptyBefore)
            #expect(after - before == 0, "the reader woke \(after - before) times in 1.5 s of backoff")
        }
    }
}
