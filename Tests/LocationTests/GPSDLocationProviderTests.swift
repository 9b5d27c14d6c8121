import ForecastModel
import Foundation
import Location
import Logging
import TestSupport
import Testing

/// A recorded receiver log and where the README says its first fix is.
struct RecordedLog: Sendable, CustomTestStringConvertible {
    var file: String
    var latitude: Double
    var longitude: Double
    /// Seconds between sentences for gpsfake: the Telit log's first fix comes 260 sentences in.
    var cycle: Double = 0.1

    var testDescription: String { file }
}

/// The logs with a fix, besides gpslim236.log, which has tests of its own (Tests/Fixtures/nmea/README.md).
let logsWithAFix: [RecordedLog] = [
    RecordedLog(file: "bu353s4.log", latitude: -37.7848, longitude: 175.3149),
    RecordedLog(file: "bu303-moving.log", latitude: 46.4983, longitude: 7.5674),
    RecordedLog(file: "telit-he910.log", latitude: 50.8402, longitude: 4.3471, cycle: 0.01),
    RecordedLog(file: "garmin-geko201.log", latitude: 40.3977, longitude: -3.6527),
    RecordedLog(file: "nokia-ld-4w.log", latitude: 65.0504, longitude: 25.4727),
    RecordedLog(file: "polarx2.log", latitude: 38.7373, longitude: -9.1406),
]

/// How far a reported fix may be from the README's rounded coordinates, in degrees.
let tolerance = 0.01
let saintOuen = Coordinate(latitude: 48.9043, longitude: 2.3330)

func isNear(_ coordinate: Coordinate, _ latitude: Double, _ longitude: Double) -> Bool {
    abs(coordinate.latitude - latitude) < tolerance && abs(coordinate.longitude - longitude) < tolerance
}

func quietLogger() -> Logger {
    Logger(label: "forecastd.test") { _ in SwiftLogNoOpLogHandler() }
}

// One gpsd at a time: with every other suite running in parallel on two cores, several gpsfake
// replays at once made a first fix take longer than the budget now and then.
@Suite("GPSDLocationProvider against a real gpsd fed by gpsfake", .serialized)
struct GPSDLocationProviderTests {
    @Test("gpslim236.log: connected, then a first fix near Saint-Ouen with accuracy and altitude within 10 s")
    func firstFixFromGPSlim() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { fake in
            // Every fix handed on: the receiver sits still, so by default most would be kept back.
            let provider = GPSDLocationProvider(
                host: "127.0.0.1", port: fake.port, backoff: quickBackoff, handOnInterval: .zero, logger: quietLogger())
            try await running(provider) { recorder in
                let first = try #require(await recorder.firstFix(within: 20), "no fix within 20 s")
                let events = recorder.all
                #expect(events.first == .connected(source: .gpsd))
                #expect(!events[..<first.index].contains { $0.isUnavailable })

                let fix = first.fix
                #expect(fix.source == .gpsd)
                #expect(isNear(fix.coordinate, 48.9043, 2.3330), "first fix at \(fix.coordinate)")
                let accuracy = try #require(fix.accuracyMeters)
                #expect(accuracy.isFinite && accuracy > 0)
                // The log's 3D fixes put the receiver 120-130 m above mean sea level.
                let altitude = try #require(fix.altitudeMeters)
                #expect((100...150).contains(altitude), "altitude \(altitude) m")
                #expect(Date().timeIntervalSince(fix.receivedAt) < 11)

                // gpsd may report one epoch more than once (this log's first two fixes are the same timeless
                // position): the consumer hears each once. The log was recorded in March 2026 (as gpsd dates it),
                // months behind this machine's clock, so no fix time is published (GPSDBoundsTests): a repeat is
                // the same position, altitude and accuracy arriving together (gpsfake sends a sentence every
                // 0.1 s, an epoch of this log in about half a second).
                try await Task.sleep(for: .seconds(2))
                let fixes = recorder.all.compactMap { event -> LocationFix? in
                    guard case .fix(let fix) = event else { return nil }
                    return fix
                }
                #expect(fixes.count >= 2, "fixes: \(fixes)")
                #expect(fixes.allSatisfy { $0.fixTime == nil }, "a fix time months behind was published: \(fixes)")
                for (earlier, later) in zip(fixes, fixes.dropFirst()) {
                    let repeated =
                        earlier.coordinate == later.coordinate && earlier.altitudeMeters == later.altitudeMeters
                        && earlier.accuracyMeters == later.accuracyMeters
                        && later.receivedAt.timeIntervalSince(earlier.receivedAt) < 0.3
                    #expect(!repeated, "the same fix twice: \(earlier) then \(later)")
                }
            }
        }
    }

    @Test("gpslim236.log sitting still: fewer fixes handed on than gpsd sends, none more than 1.5 intervals behind")
    func fixesKeptBack() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { fake in
            // Two readers of the one gpsd: one hands every fix on, the other keeps back what changes nothing.
            let every = GPSDLocationProvider(
                host: "127.0.0.1", port: fake.port, backoff: quickBackoff, handOnInterval: .zero, logger: quietLogger())
            let interval = 1.0
            let kept = GPSDLocationProvider(
                host: "127.0.0.1", port: fake.port, backoff: quickBackoff, handOnInterval: .seconds(interval), logger: quietLogger())
            try await running(every) { all in
                try await running(kept) { handed in
                    _ = try #require(await handed.firstFix(within: 20), "no fix within 20 s")
                    try await Task.sleep(for: .seconds(4))
                    let allFixes = all.all.compactMap { event -> LocationFix? in
                        guard case .fix(let fix) = event else { return nil }
                        return fix
                    }
                    let handedFixes = handed.all.compactMap { event -> LocationFix? in
                        guard case .fix(let fix) = event else { return nil }
                        return fix
                    }
                    let first = try #require(handedFixes.first)
                    let sent = allFixes.filter { $0.receivedAt >= first.receivedAt }
                    #expect(handedFixes.count < sent.count, "handed on \(handedFixes.count) of \(sent.count)")
                    // Each fix gpsd sent is followed by a handed-on fix at most 1.5 intervals (and some slack for
                    // a loaded machine) later, except the newest, which may still be kept back.
                    for fix in sent.dropLast(3) {
                        let next = try #require(
                            handedFixes.first { $0.receivedAt >= fix.receivedAt.addingTimeInterval(-0.2) },
                            "nothing handed on after \(fix.receivedAt)")
                        #expect(
                            next.receivedAt.timeIntervalSince(fix.receivedAt) <= interval * 1.5 + 0.5,
                            "a fix of \(fix.receivedAt) first handed on at \(next.receivedAt)")
                    }
                }
            }
        }
    }

    @Test("every other recorded log yields a first fix near the README's coordinates", arguments: logsWithAFix)
    func firstFix(log: RecordedLog) async throws {
        try await withGPSFake(log: Fixtures.url("nmea/\(log.file)"), cycle: log.cycle) { fake in
            let provider = GPSDLocationProvider(host: "127.0.0.1", port: fake.port, backoff: quickBackoff, logger: quietLogger())
            try await running(provider) { recorder in
                let first = try #require(
                    await recorder.firstFix(within: 20),
                    "no fix from \(log.file) within 10 s; events: \(recorder.all); gpsfake said: \(fake.output)")
                #expect(
                    isNear(first.fix.coordinate, log.latitude, log.longitude),
                    "\(log.file): first fix at \(first.fix.coordinate), README says (\(log.latitude), \(log.longitude))"
                )
                #expect(first.fix.source == .gpsd)
            }
        }
    }

    @Test("the table above covers every recorded log in Tests/Fixtures/nmea")
    func everyLogIsCovered() throws {
        let directory = Fixtures.url("nmea")
        let logs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".log") }
        let covered = Set(logsWithAFix.map(\.file) + ["gpslim236.log", "bu303-nofix.log"])
        #expect(Set(logs) == covered)
    }

    @Test("bu303-nofix.log: connected, no fix said once, never a position")
    func noFix() async throws {
        let (logger, logs) = RecordingLogHandler.logger()
        try await withGPSFake(log: Fixtures.url("nmea/bu303-nofix.log")) { fake in
            // A host name, not an address: libgps resolves it (gpsd listens on the loopback addresses).
            let provider = GPSDLocationProvider(host: "localhost", port: fake.port, backoff: quickBackoff, logger: logger)
            try await running(provider) { recorder in
                _ = try #require(await recorder.first(within: 20) { $0.isNoFix }, "gpsd never reported no fix")
                // gpsd keeps reporting mode 1 about once a second: those must not become repeated events.
                try await Task.sleep(for: .seconds(3))
                let events = recorder.all
                #expect(events == [.connected(source: .gpsd), .noFix(source: .gpsd)])
            }
        }
        #expect(logs.all.filter { $0.message == "gpsd reports no fix." }.count == 1)
        #expect(logs.all.allSatisfy { $0.metadata["gpsd.port"] != nil && $0.metadata["gpsd.host"] == "localhost" })
    }

    @Test("gpsd absent: unavailable once, no crash; gpsd appearing later on that port brings fixes")
    func reconnectsWhenGPSDAppears() async throws {
        let port = try GPSFake.freePort()
        let (logger, logs) = RecordingLogHandler.logger()
        let provider = GPSDLocationProvider(host: "localhost", port: port, backoff: quickBackoff, logger: logger)
        try await running(provider) { recorder in
            let down = try #require(await recorder.first(within: 5) { $0.isUnavailable }, "no unavailable event")
            guard case .unavailable(.gpsd, let reason) = down.event else { return }
            #expect(reason.contains("localhost:\(port)"), "reason: \(reason)")
            // Several retries happen in 1.5 s with this backoff; the outage is still reported once.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(recorder.all.count { $0.isUnavailable } == 1)
            #expect(logs.all.count { $0.level == .warning } == 1)

            try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log"), port: port) { appeared in
                let fix = try #require(
                    await recorder.firstFix(within: 20),
                    "no fix after gpsd appeared; events: \(recorder.all); gpsfake said: \(appeared.output)")
                #expect(isNear(fix.fix.coordinate, saintOuen.latitude, saintOuen.longitude))
                #expect(recorder.all[..<fix.index].contains(.connected(source: .gpsd)))
            }
        }
    }

    @Test("gpsd killed mid-stream: unavailable once; gpsd restarted on the port: fixes again")
    func reconnectsAfterGPSDDies() async throws {
        let fake = try await GPSFake.start(log: Fixtures.url("nmea/gpslim236.log"))
        defer { fake.stop() }
        let provider = GPSDLocationProvider(host: "127.0.0.1", port: fake.port, backoff: quickBackoff, logger: quietLogger())
        try await running(provider) { recorder in
            _ = try #require(await recorder.firstFix(within: 20), "no fix before gpsd was killed")
            let mark = recorder.all.count
            await fake.killGPSD()
            let lost = try #require(
                await recorder.first(from: mark, within: 5) { $0.isUnavailable }, "gpsd's death went unnoticed")
            if case .unavailable(_, let reason) = lost.event {
                #expect(reason.contains("closed the connection"), "reason: \(reason)")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(recorder.all[lost.index...].count { $0.isUnavailable } == 1)

            // A different log on the same port: its fix proves the position comes from the new gpsd.
            try await withGPSFake(log: Fixtures.url("nmea/polarx2.log"), port: fake.port) { revived in
                let again = try #require(
                    await recorder.firstFix(from: lost.index, within: 20),
                    "no fix after gpsd came back; events: \(recorder.all); gpsfake said: \(revived.output)")
                #expect(isNear(again.fix.coordinate, 38.7373, -9.1406), "fix at \(again.fix.coordinate)")
                #expect(recorder.all[lost.index..<again.index].contains(.connected(source: .gpsd)))
            }
        }
    }

    @Test("cancelling the task stops the reader at once, closes the connection and ends the events")
    func cancellationWhileStreaming() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { fake in
            let provider = GPSDLocationProvider(host: "127.0.0.1", port: fake.port, backoff: quickBackoff, logger: quietLogger())
            let recorder = EventRecorder()
            let task = Task { await provider.run { recorder.append($0) } }
            _ = try #require(await recorder.firstFix(within: 20), "no fix before cancelling")
            // Read on the descriptor waiter: no thread of its own.
            #expect(readerThread(port: fake.port) == nil, "threads: \(threadNames())")
            #expect(establishedConnections(toPort: fake.port) == 1)

            let clock = ContinuousClock()
            let elapsed = await clock.measure {
                task.cancel()
                await task.value
            }
            // Milliseconds on an idle machine; the bound leaves room for a loaded one (CI's two cores).
            #expect(elapsed < .seconds(5), "run returned \(elapsed) after cancellation")
            // run returns once the reader has closed the connection and can deliver nothing more.
            #expect(establishedConnections(toPort: fake.port) == 0)
            let count = recorder.all.count
            try await Task.sleep(for: .milliseconds(500))
            #expect(recorder.all.count == count)
        }
    }

    @Test("cancelling while waiting to reconnect returns at once, not after the backoff")
    func cancellationDuringBackoff() async throws {
        let port = try GPSFake.freePort()
        let provider = GPSDLocationProvider(
            host: "127.0.0.1", port: port, backoff: .init(initial: .seconds(300), maximum: .seconds(300)), logger: quietLogger())
        let recorder = EventRecorder()
        let task = Task { await provider.run { recorder.append($0) } }
        _ = try #require(await recorder.first(within: 5) { $0.isUnavailable })
        let elapsed = await ContinuousClock().measure {
            task.cancel()
            await task.value
        }
        #expect(elapsed < .seconds(30), "run returned \(elapsed) after cancellation")  // not the 5-minute backoff
    }

    @Test("the waiter's thread sits idle between reports instead of spinning")
    func readerIsIdle() async throws {
        try await withGPSFake(log: Fixtures.url("nmea/gpslim236.log")) { fake in
            let provider = GPSDLocationProvider(host: "127.0.0.1", port: fake.port, backoff: quickBackoff, logger: quietLogger())
            try await running(provider) { recorder in
                _ = try #require(await recorder.firstFix(within: 20))
                let thread = try #require(waiterThread(), "no thread named fd-waiter among \(threadNames())")
                let before = try #require(cpuTicks(thread: thread))
                try await Task.sleep(for: .seconds(2))
                let used = try #require(cpuTicks(thread: thread)) - before
                // 2 s are 200 ticks at the usual 100 Hz; a spinning reader would use most of them.
                #expect(used <= 10, "the waiter used \(used) ticks of CPU in 2 s")
            }
        }
    }
}

// MARK: What /proc says about this process

/// The id of this process's thread named `gpsd:PORT`, the provider's reader.
func readerThread(port: Int) -> Int? {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.lazy.compactMap { tid -> Int? in
        let name = readProcFile("/proc/self/task/\(tid)/comm")
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "gpsd:\(port)" ? Int(tid) : nil
    }.first
}

/// A /proc file's text. String(contentsOfFile:) stops after the first page, which /proc/net/tcp outgrows.
func readProcFile(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
}

/// The id of the descriptor waiter's thread (`fd-waiter`), which reads gpsd.
func waiterThread() -> Int? {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.lazy.compactMap { tid -> Int? in
        let name = readProcFile("/proc/self/task/\(tid)/comm")
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "fd-waiter" ? Int(tid) : nil
    }.first
}

/// The names of this process's threads, for failure messages.
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { tid in
        readProcFile("/proc/self/task/\(tid)/comm")?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// User plus system CPU time a thread of this process has used, in clock ticks.
func cpuTicks(thread: Int) -> Int? {
    guard let stat = readProcFile("/proc/self/task/\(thread)/stat"),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    // After "(comm)" come state, ppid, …: utime and stime are the 12th and 13th of those.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}

/// Established TCP connections on this machine whose remote end is `port` on the loopback interface.
///
/// Only the tests' own clients connect to a gpsfake gpsd, so this counts the provider's connections.
func establishedConnections(toPort port: Int) -> Int {
    let hex = String(port, radix: 16, uppercase: true)
    let hexPort = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = readProcFile(table) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl, local_address, rem_address, st: 01 is ESTABLISHED.
            if fields.count > 3, fields[2].hasSuffix(hexPort), fields[3] == "01" { count += 1 }
        }
    }
    return count
}
