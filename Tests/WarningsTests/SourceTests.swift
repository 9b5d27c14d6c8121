import Fetching
import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import Warnings

/// Each source through its real HTTP stack against the local replay server.
@Suite("Warning sources over HTTP", .timeLimit(.minutes(2)))
struct SourceTests {
    static let nwsPath = "/alerts/active"
    static let metNorwayPath = "/weatherapi/metalerts/2.0/current.json"
    static let brightSkyPath = "/alerts"
    static let meteoAlarmPath = "/api/v1/warnings/feeds-bosnia-herzegovina"
    static let bosnia = "meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"

    static func json(_ data: Data, headers: ReplayHeaders = []) -> ReplayResponse {
        ReplayResponse(status: 200, headers: [("Content-Type", "application/json")] + headers, body: data)
    }

    static func meteoAlarm(_ server: ReplayServer, _ context: WarningSourceContext) throws -> MeteoAlarmSource {
        try #require(
            MeteoAlarmSource(
                country: "ba", url: server.url("/api/v1/warnings/"), areasFiles: [MeteoAlarmAreas.sourceTreeURL, MeteoAlarmAreas.nutsSourceTreeURL],
                context: context))
    }

    // MARK: NWS

    @Test("NWS: a point in Iowa's tornado polygon gets exactly that warning, asked the documented way")
    func nwsInside() async throws {
        let clock = TestClock(Alerts.time("2024-05-21T22:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(path: Self.nwsPath, Self.json(try Alerts.iowa(now: clock.now)))
            let source = PointFeedSource(.nws, url: server.url(Self.nwsPath), context: context)
            let answer = try await source.warnings(at: Alerts.at(41.011_73, -95.161_72))
            let merged = WarningMerger.merge([answer.feed], now: clock.now)
            // The recording is Iowa's area answer: its zone-only watches are not confirmed for the point.
            #expect(merged.warnings.filter(\.areaConfirmed).map(\.event) == ["Tornado Warning"])

            let request = try #require(server.requests().first)
            #expect(request.query == ["status": "actual", "point": "41.01,-95.16"])
            #expect(request.header("User-Agent") == Alerts.userAgent)
            #expect(request.header("Accept") == "application/geo+json")
        }
    }

    @Test("NWS: a point with no alert gets none (the recorded empty answer for New York)")
    func nwsOutside() async throws {
        try await Alerts.withServer(coordinatePrecision: 4) { server, context in
            server.setRoute(path: Self.nwsPath, try .fixture("alerts/nws/linecast-alerts-active-point-nyc-empty.json"))
            let answer = try await PointFeedSource(.nws, url: server.url(Self.nwsPath), context: context)
                .warnings(at: Alerts.at(40.7128, -74.006))
            #expect(answer.feed.covering.isEmpty && answer.feed.unplaced.isEmpty)
            #expect(server.requests().first?.query["point"] == "40.7128,-74.006")
        }
    }

    // MARK: MET Norway

    @Test("MET Norway: in the Tromsøflaket gale area, that warning; in Oslo, none; 4 decimals at most")
    func metNorway() async throws {
        let clock = TestClock(Alerts.time("2026-03-07T06:00:00Z"))
        try await Alerts.withServer(clock: clock, coordinatePrecision: 4) { server, context in
            server.setRoute(
                path: Self.metNorwayPath, try .fixture("alerts/met-norway/linecast-metalerts-current-marine-gale-2026-03-07.json"))
            let source = PointFeedSource(.metNorwayAlerts, url: server.url(Self.metNorwayPath), context: context)
            let boat = try await source.warnings(at: Alerts.at(71.513_04, 19.218_26))
            #expect(boat.feed.covering.map(\.area) == ["Tromsøflaket"])
            let request = try #require(server.requests().first)
            #expect(request.query == ["lat": "71.513", "lon": "19.2183", "lang": "en"])
            #expect(request.header("User-Agent") == Alerts.userAgent)

            clock.advance(minutes: 10)
            let oslo = try await source.warnings(at: Alerts.at(59.91, 10.75))
            #expect(oslo.feed.covering.isEmpty)
        }
    }

    @Test("MET Norway: at most one request per 10 minutes, counted on an injected clock")
    func metNorwayCadence() async throws {
        let clock = TestClock(Alerts.time("2026-03-07T06:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(
                path: Self.metNorwayPath, try .fixture("alerts/met-norway/linecast-metalerts-current-marine-gale-2026-03-07.json"))
            // Asking for a shorter interval is not allowed: the terms' 10 minutes win.
            let source = PointFeedSource(
                .metNorwayAlerts, url: server.url(Self.metNorwayPath), minimumInterval: .seconds(60), context: context)
            #expect(source.minimumInterval == .seconds(600))
            let boat = Alerts.at(71.513, 19.218)

            let first = try await source.warnings(at: boat)
            #expect(!first.fromCache && first.nextRequest == clock.now.addingTimeInterval(600))
            // Every minute for the next nine: answered from the last answer, no request.
            for _ in 1...9 {
                clock.advance(minutes: 1)
                let again = try await source.warnings(at: boat)
                #expect(again.fromCache && again.feed.covering.count == 1)
            }
            // Another position within the interval is refused with the time it may be asked.
            let error = await Alerts.failure { () async throws(WarningError) in
                try await source.warnings(at: Alerts.at(60.39, 5.32))
            }
            #expect(error?.reason == .throttled(until: Alerts.time("2026-03-07T06:10:00Z")))
            #expect(server.requestCount(path: Self.metNorwayPath) == 1)

            clock.advance(minutes: 1)
            let later = try await source.warnings(at: boat)
            #expect(!later.fromCache)
            #expect(server.requestCount(path: Self.metNorwayPath) == 2)

            // An accelerated day of asking every minute: 144 requests at most (one per 10 minutes).
            for _ in 0..<(24 * 60) {
                clock.advance(minutes: 1)
                _ = try await source.warnings(at: boat)
            }
            #expect(server.requestCount(path: Self.metNorwayPath) == 2 + 144)
        }
    }

    // MARK: Bright Sky

    @Test("Bright Sky: Berlin-Mitte gets its frost warning; the request carries 2 decimals")
    func brightSky() async throws {
        let clock = TestClock(Alerts.time("2026-03-06T12:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(
                path: Self.brightSkyPath, try .fixture("alerts/bright-sky/linecast-alerts-berlin-mitte-frost-2026-03-06.json"))
            let answer = try await PointFeedSource(.brightSky, url: server.url(Self.brightSkyPath), context: context)
                .warnings(at: Alerts.at(52.520_07, 13.404_95))
            #expect(answer.feed.covering.map(\.event) == ["frost"])
            #expect(server.requests().first?.query == ["lat": "52.52", "lon": "13.4"])
        }
    }

    // MARK: MeteoAlarm

    @Test("MeteoAlarm: Banja Luka gets its region's warning, Mostar none; the feed request carries no position")
    func meteoAlarmInsideOutside() async throws {
        let clock = TestClock(Alerts.time("2024-01-07T12:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(path: Self.meteoAlarmPath, try .fixture("alerts/" + Self.bosnia))
            let source = try Self.meteoAlarm(server, context)
            let banjaLuka = try await source.warnings(at: Alerts.at(44.7722, 17.191))
            #expect(banjaLuka.feed.covering.map(\.area) == ["Banja Luka"])
            // Moving within the country inside the interval re-places the same feed without a request.
            let mostar = try await source.warnings(at: Alerts.at(43.3438, 17.8078))
            #expect(mostar.fromCache && mostar.feed.covering.isEmpty)
            #expect(server.requestCount(path: Self.meteoAlarmPath) == 1)
            let request = try #require(server.requests().first)
            #expect(request.uri == Self.meteoAlarmPath)
            #expect(request.header("User-Agent") == Alerts.userAgent)
        }
    }

    @Test("MeteoAlarm: the feed is served with an ETag, asked again with If-None-Match, and a 304 keeps the warnings")
    func meteoAlarmETag() async throws {
        let clock = TestClock(Alerts.time("2024-01-07T12:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(
                path: Self.meteoAlarmPath,
                try ReplayResponse.fixture("alerts/" + Self.bosnia, headers: [("Last-Modified", "Sun, 07 Jan 2024 07:00:00 GMT")])
                    .withETag("\"feed-v1\""))
            let source = try Self.meteoAlarm(server, context)
            let point = Alerts.at(44.8169, 15.8708)
            let first = try await source.warnings(at: point)
            #expect(first.feed.covering.count == 2)

            clock.advance(minutes: 5)
            _ = try await source.warnings(at: point)
            #expect(server.requestCount(path: Self.meteoAlarmPath) == 1)

            clock.advance(minutes: 5)
            let second = try await source.warnings(at: point)
            #expect(!second.fromCache)
            #expect(second.fetchedAt == clock.now)
            #expect(second.feed.covering.map(\.identifier) == first.feed.covering.map(\.identifier))
            let requests = server.requests()
            #expect(requests.count == 2)
            #expect(requests[0].header("If-None-Match") == nil)
            #expect(requests[1].header("If-None-Match") == "\"feed-v1\"")
            #expect(requests[1].header("If-Modified-Since") == "Sun, 07 Jan 2024 07:00:00 GMT")

            // An accelerated day: 144 conditional requests, every one after the first a 304.
            for _ in 0..<(24 * 60) {
                clock.advance(minutes: 1)
                _ = try await source.warnings(at: point)
            }
            #expect(server.requestCount(path: Self.meteoAlarmPath) == 2 + 144)
        }
    }

    @Test("Without the region file the feed still answers, its code-only warnings unplaced")
    func meteoAlarmWithoutAreaFile() async throws {
        try await Alerts.withServer { server, context in
            server.setRoute(path: Self.meteoAlarmPath, try .fixture("alerts/" + Self.bosnia))
            let source = try #require(
                MeteoAlarmSource(
                    country: "BA", url: server.url("/api/v1/warnings/"),
                    areasFiles: [URL(fileURLWithPath: "/nonexistent/meteoalarm-areas.jsonl")], context: context))
            let answer = try await source.warnings(at: Alerts.at(44.7722, 17.191))
            #expect(answer.feed.covering.isEmpty)
            #expect(answer.feed.unplaced.count == 5)
        }
    }

    @Test("A 304 without a validator having been sent is refused by name")
    func unexpectedNotModified() async throws {
        try await Alerts.withServer { server, context in
            server.setRoute(path: Self.meteoAlarmPath, ReplayResponse(status: 304))
            let source = try Self.meteoAlarm(server, context)
            let error = await Alerts.failure { () async throws(WarningError) in
                try await source.warnings(at: Alerts.at(44.77, 17.19))
            }
            #expect(error?.reason == .unexpectedNotModified)
        }
    }

    // MARK: Bad input

    /// `timeout` is the whole request's: generous, since the tests run in parallel on a loaded CI machine and no test
    /// here is about the timeout; the 50 MB answers take longer still to stream, and
    /// what they test is the size cap, not the timeout.
    static func meteoAlarmFailure(_ response: ReplayResponse, timeout: Duration = .seconds(60)) async throws -> WarningError? {
        var failure: WarningError?
        try await Alerts.withServer(timeout: timeout) { server, context in
            server.setRoute(path: Self.meteoAlarmPath, response)
            let source = try Self.meteoAlarm(server, context)
            failure = await Alerts.failure { () async throws(WarningError) in
                try await source.warnings(at: Alerts.at(44.77, 17.19))
            }
        }
        return failure
    }

    @Test("An HTML page instead of the feed is refused by name")
    func html() async throws {
        let error = try await Self.meteoAlarmFailure(
            .html("<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body>down</body></html>", status: 200))
        #expect(error?.reason == .html)
        let status = try await Self.meteoAlarmFailure(.html("<html><body>502 Bad Gateway</body></html>", status: 502))
        #expect(status?.reason == .httpStatus(502))
        #expect(status?.description == "meteoalarm: HTTP 502 (an HTML error page)")
    }

    @Test("JSON cut short inside a complete HTTP answer is refused as truncated")
    func truncatedJSON() async throws {
        let data = try Alerts.data(Self.bosnia)
        let error = try await Self.meteoAlarmFailure(Self.json(data.prefix(5000)))
        #expect(error?.reason == .truncated)
        let garbage = try await Self.meteoAlarmFailure(Self.json(Data("{\"warnings\": [}".utf8)))
        #expect(garbage?.reason == .malformed)
    }

    @Test("An answer that stops before its announced length is refused as truncated")
    func truncatedTransfer() async throws {
        let data = try Alerts.data(Self.bosnia)
        let error = try await Self.meteoAlarmFailure(Self.json(data).behaving(.truncateBody(afterBytes: 5000)))
        #expect(error?.reason == .truncated)
    }

    @Test("An Atom (XML) feed where the JSON feed belongs is refused by name")
    func xmlInsteadOfJSON() async throws {
        let atom = #"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Meteoalarm</title></feed>"#
        let error = try await Self.meteoAlarmFailure(
            ReplayResponse(status: 200, headers: [("Content-Type", "application/atom+xml")], body: atom))
        #expect(error?.reason == .malformed)
        #expect(error?.detail == "the response is XML, not the JSON feed")
    }

    /// A 50 MB Atom feed: a real header and one entry repeated.
    static let hugeFeed: [UInt8] = {
        let head = #"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:cap="urn:oasis:names:tc:emergency:cap:1.2">"#
        let entry = #"<entry><cap:event>Moderate avalanches warning</cap:event><cap:areaDesc>Haute Savoie</cap:areaDesc></entry>"#
        var bytes = Array(head.utf8)
        bytes.reserveCapacity(50 * 1024 * 1024 + entry.utf8.count)
        while bytes.count < 50 * 1024 * 1024 { bytes += entry.utf8 }
        return bytes
    }()

    @Test("A 50 MB feed that announces its length is refused before its body is read")
    func hugeAnnounced() async throws {
        let error = try await Self.meteoAlarmFailure(
            ReplayResponse(status: 200, headers: [("Content-Type", "application/atom+xml")], body: Self.hugeFeed), timeout: .seconds(300))
        #expect(error?.reason == .tooLarge(limit: MeteoAlarmSource.defaultMaxBodyBytes))
        #expect(error?.detail.contains("larger than 16 MiB") == true)
    }

    @Test("A 50 MB feed sent in chunks without a length is cut off at the cap")
    func hugeChunked() async throws {
        let error = try await Self.meteoAlarmFailure(
            ReplayResponse(
                status: 200, headers: [("Content-Type", "application/atom+xml"), ("Transfer-Encoding", "chunked")],
                body: Self.hugeFeed), timeout: .seconds(300))
        #expect(error?.reason == .tooLarge(limit: MeteoAlarmSource.defaultMaxBodyBytes))
    }

    @Test("429 says to slow down, with the service's Retry-After")
    func rateLimited() async throws {
        let error = try await Self.meteoAlarmFailure(.json("{}", status: 429, headers: [("Retry-After", "120")]))
        #expect(error?.reason == .rateLimited(retryAfter: .seconds(120)))
    }

    @Test("A Retry-After that is not a count of seconds is not believed (a negative one once was)")
    func rateLimitedOddRetryAfter() async throws {
        for value in ["-1", "+5", "1e3", "Wed, 21 Oct 2015 07:28:00 GMT"] {
            let error = try await Self.meteoAlarmFailure(.json("{}", status: 429, headers: [("Retry-After", value)]))
            #expect(error?.reason == .rateLimited(retryAfter: nil), "Retry-After: \(value)")
        }
    }

    @Test("Transport failures read as the providers' do: a stalled feed, a connection closed without an answer")
    func transportWording() async throws {
        let data = try Alerts.data(Self.bosnia)
        let stalled = try await Self.meteoAlarmFailure(
            Self.json(data).behaving(.stallBody(afterBytes: 100)), timeout: .seconds(1))
        #expect(stalled?.reason == .timeout)
        #expect(stalled?.description == "meteoalarm: no answer within 1 s")
        try await Alerts.withServer { server, context in
            server.setRoute(path: Self.meteoAlarmPath, Self.json(data).behaving(.closeWithoutAnswer))
            let source = try Self.meteoAlarm(server, context)
            let closed = await Alerts.failure { () async throws(WarningError) in
                try await source.warnings(at: Alerts.at(44.7722, 17.191))
            }
            #expect(closed?.reason == .truncated)
            #expect(closed?.detail == "127.0.0.1:\(server.port) closed the connection without a complete answer")
        }
    }

    @Test("401 and 403 name the User-Agent that was sent")
    func refused() async throws {
        for status in [401, 403] {
            let error = try await Self.meteoAlarmFailure(.json("{}", status: status))
            #expect(error?.reason == .httpStatus(status))
            #expect(
                error?.detail
                    == "HTTP \(status): the service refused the request (its terms ask for an identifying User-Agent; "
                    + "sent \"\(Alerts.userAgent)\")")
        }
    }

    @Test("A refused answer is not kept: the next request after the interval asks again")
    func failureNotCached() async throws {
        let clock = TestClock(Alerts.time("2024-01-07T12:00:00Z"))
        try await Alerts.withServer(clock: clock) { server, context in
            server.setRoute(
                path: Self.meteoAlarmPath,
                sequence: [.html("<html>maintenance</html>", status: 200), try .fixture("alerts/" + Self.bosnia)])
            let source = try Self.meteoAlarm(server, context)
            let point = Alerts.at(44.7722, 17.191)
            let error = await Alerts.failure { () async throws(WarningError) in try await source.warnings(at: point) }
            #expect(error?.reason == .html)
            clock.advance(minutes: 10)
            let answer = try await source.warnings(at: point)
            #expect(answer.feed.covering.count == 1)
        }
    }

    @Test("An unreachable service is offline, not a crash")
    func offline() async throws {
        // A port nothing listens on and no replay server can be given (they take ephemeral ports): a
        // server's port released here could be reused by a test running in parallel, which would answer.
        let port = try GPSFake.freePort()
        try await Alerts.withServer { _, context in
            let base = try #require(URL(string: "http://127.0.0.1:\(port)/api/v1/warnings/"))
            let source = try #require(MeteoAlarmSource(country: "BA", url: base, areasFiles: [], context: context))
            let error = await Alerts.failure { () async throws(WarningError) in
                try await source.warnings(at: Alerts.at(44.77, 17.19))
            }
            #expect(error?.reason == .offline)
        }
    }
}

/// The warning sources' row of the one mapping (the substrate plan's section 2b), every kind once.
@Suite("Transport failures as WarningError")
struct WarningErrorMappingTests {
    @Test(
        "Each FetchFailure kind maps to one WarningError reason, the sentence kept",
        arguments: [
            (FetchFailure.Kind.offline, WarningError.Reason.offline), (.timeout, .timeout), (.closed, .truncated),
            (.truncated, .truncated), (.tooLarge(limit: 1024), .tooLarge(limit: 1024)), (.malformed, .malformed),
            (.invalidURL, .malformed), (.unexpectedNotModified, .unexpectedNotModified),
        ])
    func failure(kind: FetchFailure.Kind, expected: WarningError.Reason) {
        let error = WarningError(FetchFailure(service: "x", kind: kind, detail: "what happened"), source: "nws")
        #expect(error.reason == expected)
        #expect(error.description == "nws: what happened")
    }
}
