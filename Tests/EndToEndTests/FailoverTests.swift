import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// Failover, staleness and the economy rules seen from outside: the real daemon, a pinned position,
/// and a local replay server standing in for Open-Meteo and MET Norway that counts every request.
@Suite("Failover, staleness and economy end to end", .serialized)
struct FailoverTests {
    static let openMeteoPath = "/v1/forecast"
    static let metNorwayPath = "/weatherapi/locationforecast/2.0/compact"
    static let metNorwayFixture = "met-norway/compact-new-york-lat40.7-lon-74.0-alt10-with-headers.json"
    static let samara = (53.2, 50.15, String?.none)

    /// The recorded MET Norway answer for New York, moved so that its series starts yesterday (UTC).
    ///
    /// The recording starts at 11:00Z on its first day and is hourly for about 55 hours. The decoder
    /// refuses a series that does not cover now, so moving it to *today* fails whenever the test runs
    /// before 10:00Z (the first step would be in the future): that is why a first draft of this test
    /// timed out waiting for MET Norway. From yesterday, every moment of today is inside the hourly part.
    static func metNorwayResponse() throws -> ReplayResponse {
        let text = try String(contentsOf: Fixtures.url(metNorwayFixture), encoding: .utf8)
        let yesterday = RecordedForecast.today(utcOffsetSeconds: 0, now: Date().addingTimeInterval(-86_400))
        let rebased = RecordedForecast.rebased(text, firstDate: "2020-07-20", to: yesterday)
        guard let wrapper = try JSONSerialization.jsonObject(with: Data(rebased.utf8)) as? [String: Any],
            let data = wrapper["data"]
        else { throw TestFailure("\(metNorwayFixture) is not a {status_code, headers, data} wrapper") }
        let body = try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys, .withoutEscapingSlashes])
        // No Expires: the recorded one is years old, and MET Norway's cache plays no part here.
        return .json(String(decoding: body, as: UTF8.self))
    }

    static func samaraOK() throws -> ReplayResponse {
        ReplayResponse.json(try samaraResponse())
    }

    /// How long after a failure a user's refresh is refused, shortened for these tests from the real 10 s
    /// (`FORECASTD_TEST_INTERVALS`), so a test sees the refusal end in seconds. Long enough that the
    /// refusal is still seen on a loaded machine.
    static let userRefresh: Duration = .seconds(3)

    /// A daemon pinned at `pin`, its providers on `server` (MET Norway second when `withMetNorway`), a user's
    /// refresh refused for ``userRefresh`` after a failure.
    static func startDaemon(
        _ server: ReplayServer, pin: (Double, Double, String?) = samara, withMetNorway: Bool = false,
        userRefresh: Duration = userRefresh
    ) async throws -> DaemonProcess {
        let text = settingsText(
            gpsdPort: nil, openMeteoURL: server.url(openMeteoPath), pin: pin, mode: "pinned",
            metNorwayURL: withMetNorway ? server.url(metNorwayPath) : nil)
        let daemon = try DaemonProcess.start(
            config: text, environment: DaemonProcess.shortenedWaits(["user_refresh": userRefresh]))
        try await daemon.waitForSocket()
        return daemon
    }

    /// Sends `refresh` on the socket and returns the daemon's answer (it comes when the fetch is done).
    static func refresh(_ daemon: DaemonProcess) async throws -> ControlAnswer {
        let line = try await onOwnThread {
            try ControlClient(socketPath: daemon.socketPath, timeout: .seconds(30)).request("refresh")
        }
        return try JSONDecoder().decode(ControlAnswer.self, from: Data(line.utf8))
    }

    /// `forecastctl refresh` against the daemon.
    static func forecastctlRefresh(_ daemon: DaemonProcess) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), ["refresh", "--config", daemon.configPath],
            environment: DaemonProcess.environment(for: daemon.directory))
    }

    /// The first RFC 3339 UTC time after `marker` in `text`.
    static func time(after marker: String, in text: String) -> Date? {
        guard let range = text.range(of: marker) else { return nil }
        return Timestamps.parseUTC(String(text[range.upperBound...].prefix(20)))
    }

    @Test("Open-Meteo answers a 502 HTML page: MET Norway serves, and the report names it")
    func failoverToMetNorway() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.openMeteoPath, .html("<html><body><h1>502 Bad Gateway</h1></body></html>"))
        server.setRoute(path: Self.metNorwayPath, try Self.metNorwayResponse())
        let daemon = try await Self.startDaemon(server, pin: (40.7128, -74.006, nil), withMetNorway: true)
        defer { daemon.removeDirectory() }

        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "a forecast from MET Norway") {
            report = try await socketReport(daemon.socketPath)
            return report.provider?.name == "met-norway" && report.current != nil
        }
        // Open-Meteo was asked first, once; MET Norway once, for the position rounded to 2 decimals.
        #expect(server.requestCount(path: Self.openMeteoPath) == 1)
        #expect(server.requestCount(path: Self.metNorwayPath) == 1)
        let request = try #require(server.requests().last)
        #expect(request.path == Self.metNorwayPath)
        #expect(request.query["lat"] == "40.71")
        #expect(request.query["lon"] == "-74.01")
        #expect(request.header("User-Agent")?.contains("forecastd-tests@example.org") == true)

        // A failover that succeeded is a refresh that succeeded: docs/report.md makes `stale` true only
        // for an old forecast or a failed refresh, and any provider error in `errors` would make the
        // report stale. So: fresh, no errors, and the provider named (with its own attribution).
        #expect(report.status == .ok)
        #expect(report.stale == false)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.provider?.attribution.contains("MET Norway") == true)
        // The first choice's failure is told, as a note about this forecast.
        #expect(report.provider?.notes?.contains { $0.hasPrefix("Served by met-norway because open-meteo: ") } == true, "\(String(describing: report.provider?.notes))")
        #expect(report.place?.timezone == "America/New_York")
        let current = try #require(report.current)
        #expect(current.temperature != nil)
        #expect(current.condition != nil)
        #expect(!report.hourly.isEmpty)
        #expect(!report.daily.isEmpty)
        let line = try await socketReportLine(daemon.socketPath)
        let schema = try await validateAgainstSchema(line)
        #expect(schema.valid, "\(schema.output)")
        #expect(daemon.log.contains("A weather provider failed; the next one in order is asked."))

        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    /// How the server breaks after the first good forecast, and the error kind the report must show.
    static let breakages: [(String, String)] = [("500", "provider_error"), ("truncated", "bad_response")]

    @Test(
        "After a good forecast the server fails: the last values stay, stale, with a typed error; recovery is at once",
        arguments: breakages.map(\.0))
    func staleNeverBlank(_ breakage: String) async throws {
        let expectedKind = try #require(Self.breakages.first { $0.0 == breakage }?.1)
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.openMeteoPath, try Self.samaraOK())
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
        let good = try await socketReport(daemon.socketPath)
        #expect(good.stale == false)
        #expect(good.current?.temperature == 18.5)

        switch breakage {
        case "500": server.setRoute(path: Self.openMeteoPath, .json(#"{"error":true,"reason":"internal"}"#, status: 500))
        default: server.setRoute(path: Self.openMeteoPath, try Self.samaraOK().behaving(.truncateBody(afterBytes: 400)))
        }
        let failed = try await Self.refresh(daemon)
        let failedAt = ContinuousClock.now
        #expect(failed.ok == false)
        #expect(failed.message.hasPrefix("open-meteo: "), "\(failed.message)")
        #expect(server.requestCount(path: Self.openMeteoPath) == 2)

        // Never blank: the last values stay, marked stale, with their age and the typed error. Read at
        // once on a new connection, as `forecastctl refresh && forecastctl status` would: the report the
        // socket answers on its event loop (the state's published value) must already show what the refresh did.
        let stale = try await socketReport(daemon.socketPath)
        #expect(stale.status == .ok)
        #expect(stale.stale == true)
        #expect(stale.ageSeconds != nil)
        #expect(stale.current == good.current)
        #expect(stale.daily == good.daily)
        #expect(stale.provider == good.provider)
        #expect(stale.errors.map(\.kind) == [expectedKind])
        #expect(stale.errors.first?.message == failed.message)
        #expect(stale.errors.first?.since != nil)

        // Asking again at once is refused without a request, saying when the next attempt is due.
        let tooSoon = try await Self.refresh(daemon)
        let askedAgainAfter = ContinuousClock.now - failedAt
        #expect(tooSoon.ok == false, "\(tooSoon.message)")
        // (Asked later than the interval on a starved machine, it went through to the failing server instead.)
        if askedAgainAfter < Self.userRefresh {
            #expect(tooSoon.message.contains("moments ago"), "\(tooSoon.message)")
            #expect(tooSoon.message.contains("the next one is due at "), "\(tooSoon.message)")
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
        }
        let schema = try await validateAgainstSchema(try await socketReportLine(daemon.socketPath))
        #expect(schema.valid, "\(schema.output)")

        // The server answers again. Once a user may ask again (the shortened interval after the failure), a
        // refresh recovers at once, although the chain's own backoff (24–36 s) has not run out.
        server.setRoute(path: Self.openMeteoPath, try Self.samaraOK())
        try await Task.sleep(until: failedAt.advanced(by: Self.userRefresh + .milliseconds(300)))
        let requestsBefore = server.requestCount(path: Self.openMeteoPath)
        let recovered = try await Self.refresh(daemon)
        #expect(recovered.ok == true, "\(recovered.message)")
        #expect(recovered.message == "fetched a new forecast from open-meteo")
        #expect(server.requestCount(path: Self.openMeteoPath) == requestsBefore + 1)
        let fresh = try await socketReport(daemon.socketPath)
        #expect(fresh.stale == false)
        #expect(fresh.errors.isEmpty, "\(fresh.errors)")
        #expect(fresh.current == good.current)

        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    /// The recorded Samara answer moved a month back: every time in it is in the past, as from a cache
    /// that serves an old copy or a provider whose clock is wrong.
    static func samaraMonthOld() throws -> ReplayResponse {
        let text = try String(
            contentsOf: Fixtures.url("open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json"),
            encoding: .utf8)
        let monthAgo = RecordedForecast.today(utcOffsetSeconds: 14_400, now: Date().addingTimeInterval(-30 * 86_400))
        return .json(RecordedForecast.rebased(text, firstDate: "2026-09-15", to: monthAgo))
    }

    /// Waits for the daemon's first forecast and its saved state: the report then, where state.json is, and its bytes.
    static func firstForecastSaved(_ daemon: DaemonProcess) async throws -> (good: Report, statePath: String, saved: Data) {
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
        let good = try await socketReport(daemon.socketPath)
        let statePath = daemon.directory.path + "/state/forecastd/state.json"
        try await daemon.wait(for: "the saved state") { FileManager.default.fileExists(atPath: statePath) }
        return (good, statePath, try Data(contentsOf: URL(fileURLWithPath: statePath)))
    }

    @Test("an answer from a month ago is refused: it never replaces the last good forecast, here or in state.json")
    func answerFromThePast() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.openMeteoPath, try Self.samaraOK())
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }
        let (good, statePath, saved) = try await Self.firstForecastSaved(daemon)

        server.setRoute(path: Self.openMeteoPath, try Self.samaraMonthOld())
        let refused = try await Self.refresh(daemon)
        #expect(refused.ok == false, "\(refused.message)")
        #expect(server.requestCount(path: Self.openMeteoPath) == 2)
        #expect(refused.message.hasPrefix("open-meteo: "), "\(refused.message)")
        let report = try await socketReport(daemon.socketPath)
        #expect(report.stale == true)
        #expect(report.errors.map(\.kind) == ["bad_response"])
        #expect(report.current == good.current)
        #expect(report.daily == good.daily)
        #expect(report.provider?.fetchedAt == good.provider?.fetchedAt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == saved, "state.json was overwritten")
        #expect(await daemon.stop() == 0)

        // With nothing better to show, the old answer is not shown as a forecast either.
        let second = try await Self.startDaemon(server)
        defer { second.removeDirectory() }
        var first = try await socketReport(second.socketPath)
        try await second.wait(for: "the refused answer in the report") {
            first = try await socketReport(second.socketPath)
            return !first.errors.isEmpty
        }
        #expect(first.status == .noForecast)
        #expect(first.current == nil)
        #expect(first.errors.map(\.kind) == ["bad_response"])
        #expect(await second.stop() == 0)
        try await server.shutdown()
    }

    @Test("an answer hours older than the forecast held is refused: the newer one stays, here and in state.json")
    func answerOlderThanHeld() async throws {
        // Today's answer speaks for 12:00 in Samara; the same answer from a cache 7 hours behind speaks for
        // 05:00, less than a day ago whatever the time now, so only its being older than what is held refuses it.
        let today = RecordedForecast.today(utcOffsetSeconds: 14_400)
        let fresh = try samaraResponse()
        #expect(fresh.contains("\"time\":\"\(today)T12:00\""))
        let behind = fresh.replacingOccurrences(of: "\"time\":\"\(today)T12:00\"", with: "\"time\":\"\(today)T05:00\"")
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.openMeteoPath, .json(fresh))
        let daemon = try await Self.startDaemon(server)
        defer { daemon.removeDirectory() }
        let (good, statePath, saved) = try await Self.firstForecastSaved(daemon)

        server.setRoute(path: Self.openMeteoPath, .json(behind))
        let refused = try await Self.refresh(daemon)
        #expect(refused.ok == false, "\(refused.message)")
        #expect(refused.message.contains("older than the forecast already held"), "\(refused.message)")
        #expect(server.requestCount(path: Self.openMeteoPath) == 2)
        let report = try await socketReport(daemon.socketPath)
        #expect(report.errors.map(\.kind) == ["bad_response"])
        #expect(report.current == good.current)
        #expect(report.provider?.fetchedAt == good.provider?.fetchedAt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == saved, "state.json was overwritten")

        // The provider catches up: its answer is taken again.
        server.setRoute(path: Self.openMeteoPath, .json(fresh))
        try await Task.sleep(for: Self.userRefresh + .milliseconds(300))
        let taken = try await Self.refresh(daemon)
        #expect(taken.ok == true, "\(taken.message)")
        #expect(try await socketReport(daemon.socketPath).errors.isEmpty)
        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }

    @Test("20 concurrent readers and 5 watchers: exactly one forecast request")
    func economy() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: Self.openMeteoPath, try Self.samaraOK())
        server.setRoute(path: Self.metNorwayPath, try Self.metNorwayResponse())
        let daemon = try await Self.startDaemon(server, withMetNorway: true)
        defer { daemon.removeDirectory() }
        try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
        let socketPath = daemon.socketPath

        // Five watchers stay connected until the end, each having had its first report.
        let release = DispatchSemaphore(value: 0)
        let watchers = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await onOwnThread {
                            let client = try ControlClient(socketPath: socketPath, timeout: .seconds(30))
                            let first = try client.request(#"{"request":"watch"}"#)
                            release.wait()
                            return first
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        defer { for _ in 0..<5 { release.signal() } }
        try await daemon.wait(for: "5 watchers") {
            let line = try await onOwnThread {
                try ControlClient(socketPath: socketPath).request(#"{"request":"status"}"#)
            }
            let status = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return status?["watchers"] as? Int == 5
        }

        // Twenty readers at once, five reports each: some on one connection, some on a new one each time.
        let lines = try await withThrowingTaskGroup(of: [String].self) { group in
            for reader in 0..<20 {
                group.addTask {
                    try await onOwnThread {
                        var lines: [String] = []
                        let shared = try ControlClient(socketPath: socketPath, timeout: .seconds(30))
                        for _ in 0..<5 {
                            if reader.isMultiple(of: 2) {
                                lines.append(try shared.request("report"))
                            } else {
                                lines.append(try ControlClient(socketPath: socketPath, timeout: .seconds(30)).request("report"))
                            }
                        }
                        return lines
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(lines.count == 100)
        // Every reader got the daemon's one copy of the report.
        #expect(Set(lines).count == 1)
        #expect(try ReportJSON.decode(try #require(lines.first)).current != nil)

        #expect(server.requestCount(path: Self.openMeteoPath) == 1)

        for _ in 0..<5 { release.signal() }
        let firsts = try await watchers.value
        #expect(firsts.count == 5)
        #expect(firsts.allSatisfy { (try? ReportJSON.decode($0).current) != nil })
        #expect(await daemon.stop() == 0)
        // Over the daemon's whole life, readers and watchers included: the one request, and the second
        // provider never asked. (No sleep: nothing in the daemon ticks; its one timer is set for the
        // refresh 15 min on, and a request a reader caused would be counted here.)
        #expect(server.requestCount(path: Self.openMeteoPath) == 1)
        #expect(server.requestCount(path: Self.metNorwayPath) == 0)
        #expect(server.requests().count == 1)
        try await server.shutdown()
    }

    @Test("429 with Retry-After: 3600: no request before then, by the timer or by refreshes; refresh says how long")
    func rateLimitedWaits() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(
            path: Self.openMeteoPath,
            .json(#"{"reason":"Too many concurrent requests","error":true}"#, status: 429, headers: [("Retry-After", "3600")]))
        // forecastctl is a process to start: on a loaded machine that takes a while, so the refusal lasts longer.
        let userRefresh = Duration.seconds(5)
        let daemon = try await Self.startDaemon(server, userRefresh: userRefresh)
        defer { daemon.removeDirectory() }
        var report = try await socketReport(daemon.socketPath)
        try await daemon.wait(for: "the rate limit in the report") {
            report = try await socketReport(daemon.socketPath)
            return report.errors.contains { $0.kind == "rate_limited" }
        }
        let failedAt = ContinuousClock.now
        let limitedAt = Date()
        #expect(report.status == .noForecast)
        #expect(report.errors.map(\.kind) == ["rate_limited"])
        #expect(report.errors.first?.message == "open-meteo: HTTP 429: Too many concurrent requests")
        #expect(server.requestCount(path: Self.openMeteoPath) == 1)

        // At once: refused, saying when the next attempt is due (an hour away), with no request.
        let soon = try await Self.forecastctlRefresh(daemon)
        #expect(soon.status == 1)
        #expect(soon.stderr.contains("Too many concurrent requests"), "\(soon.stderr)")
        let due = try #require(Self.time(after: "the next one is due at ", in: soon.stderr), "\(soon.stderr)")
        #expect(due.timeIntervalSince(limitedAt) > 3500, "\(soon.stderr)")
        #expect(server.requestCount(path: Self.openMeteoPath) == 1)

        // The automatic retry is set for the Retry-After (the time just checked: the one timer follows it).
        // Until a user may ask again (the shortened interval after the failure): no request.
        while ContinuousClock.now < failedAt.advanced(by: userRefresh + .milliseconds(300)) {
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requestCount(path: Self.openMeteoPath) == 1)
        }

        // A refresh now is let through to the chain, which honours Retry-After: still no request, and
        // the answer says until when.
        let later = try await Self.forecastctlRefresh(daemon)
        #expect(later.status == 1)
        let until = try #require(Self.time(after: "not asked again before ", in: later.stderr), "\(later.stderr)")
        #expect(until.timeIntervalSince(limitedAt) > 3500, "\(later.stderr)")
        #expect(later.stderr.contains("HTTP 429"), "\(later.stderr)")
        #expect(server.requestCount(path: Self.openMeteoPath) == 1)
        report = try await socketReport(daemon.socketPath)
        #expect(report.errors.map(\.kind) == ["rate_limited"])
        #expect(report.status == .noForecast)

        #expect(await daemon.stop() == 0)
        try await server.shutdown()
    }
}
