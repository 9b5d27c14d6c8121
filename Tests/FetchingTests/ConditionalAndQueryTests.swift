import AsyncHTTPClient
import ForecastModel
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Fetching

/// Conditional GETs against a server that answers validators with 304, as caching services do.
@Suite("Conditional GET and query URLs", .timeLimit(.minutes(3)), .onEventLoops)
struct ConditionalAndQueryTests {
    struct NotANumber: Error, Equatable {}

    /// The body as a number, or `NotANumber`.
    static func number(_ answer: HTTPAnswer) throws(NotANumber) -> Int {
        guard let value = Int(String(decoding: answer.body, as: UTF8.self)) else { throw NotANumber() }
        return value
    }

    static func value(_ result: ConditionalAnswer<Int>) -> (Int?, String) {
        switch result {
        case .fresh(let value, _): (value, "fresh")
        case .notModified(let value, _): (value, "notModified")
        case .other(let answer): (nil, "other \(answer.status)")
        }
    }

    @Test("Validators are sent from the kept entry; a 304 serves the kept value with renewed times")
    func validators() async throws {
        try await FetcherTests.withFetcher { server, fetcher in
            let cache = ConditionalCache<Int>(capacity: 4)
            let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
            let now: @Sendable () -> Date = { clock.withLock { $0 } }
            server.setRoute(
                path: "/feed",
                ReplayResponse(
                    headers: [("ETag", "\"a1\""), ("Last-Modified", "Mon, 20 Jul 2020 12:14:53 GMT"),
                        ("Expires", "Mon, 20 Jul 2020 13:00:00 GMT")], body: "42"
                ).answeringConditionally())
            let url = server.url("/feed")

            let first = try await fetcher.conditionalGet(url, key: "k", cache: cache, now: now, decode: Self.number)
            #expect(Self.value(first) == (42, "fresh"))
            let sent = server.requests()
            #expect(sent[0].header("If-None-Match") == nil && sent[0].header("If-Modified-Since") == nil)
            let kept = try #require(await cache.entry(for: "k"))
            #expect(kept.etag == "\"a1\"")
            #expect(kept.fetchedAt == Date(timeIntervalSince1970: 1_000_000))
            #expect(kept.expires == Timestamps.parseUTC("2020-07-20T13:00:00Z"))

            clock.withLock { $0 = $0.addingTimeInterval(600) }
            let second = try await fetcher.conditionalGet(
                url, key: "k", cache: cache, now: now, expires: { _, received in received.addingTimeInterval(60) },
                decode: Self.number)
            #expect(Self.value(second) == (42, "notModified"))
            let again = server.requests()[1]
            #expect(again.header("If-None-Match") == "\"a1\"")
            #expect(again.header("If-Modified-Since") == "Mon, 20 Jul 2020 12:14:53 GMT")
            let renewed = try #require(await cache.entry(for: "k"))
            #expect(renewed.fetchedAt == Date(timeIntervalSince1970: 1_000_600))
            #expect(renewed.expires == Date(timeIntervalSince1970: 1_000_660))

            // Another key sends no validators of this one.
            _ = try await fetcher.conditionalGet(url, key: "other", cache: cache, now: now, decode: Self.number)
            #expect(server.requests()[2].header("If-None-Match") == nil)
        }
    }

    @Test("A 304 when no validator was sent: unexpectedNotModified")
    func unexpectedNotModified() async throws {
        try await FetcherTests.withFetcher { server, fetcher in
            server.setRoute(path: "/feed", ReplayResponse(status: 304))
            let cache = ConditionalCache<Int>(capacity: 1)
            do {
                _ = try await fetcher.conditionalGet(
                    server.url("/feed"), key: "k", cache: cache, now: { Date() }, decode: Self.number)
                Issue.record("a 304 without validators was accepted")
            } catch let error as ConditionalFailure<NotANumber> {
                guard case .fetch(let failure) = error else {
                    Issue.record("expected a fetch failure, got \(error)")
                    return
                }
                #expect(failure.kind == .unexpectedNotModified)
                #expect(failure.description == "test-service: HTTP 304 Not Modified came back although no validator was sent")
            }
        }
    }

    @Test("A body that does not decode is not kept, and other statuses are left to the caller")
    func undecodable() async throws {
        try await FetcherTests.withFetcher { server, fetcher in
            let cache = ConditionalCache<Int>(capacity: 1)
            server.setRoute(
                path: "/feed",
                sequence: [
                    ReplayResponse(headers: [("ETag", "\"bad\"")], body: "not a number"),
                    .json("{}", status: 503),
                ])
            do {
                _ = try await fetcher.conditionalGet(
                    server.url("/feed"), key: "k", cache: cache, now: { Date() }, decode: Self.number)
                Issue.record("an undecodable body was accepted")
            } catch let error as ConditionalFailure<NotANumber> {
                guard case .decode(let failure) = error else {
                    Issue.record("expected a decode failure, got \(error)")
                    return
                }
                #expect(failure == NotANumber())
            }
            #expect(await cache.entry(for: "k") == nil)
            let other = try await fetcher.conditionalGet(
                server.url("/feed"), key: "k", cache: cache, now: { Date() }, decode: Self.number)
            #expect(Self.value(other) == (nil, "other 503"))
            #expect(server.requests()[1].header("If-None-Match") == nil)
        }
    }

    @Test("The cache keeps its capacity; the least recently used goes first")
    func leastRecentlyUsed() async {
        let cache = ConditionalCache<Int>(capacity: 2)
        func entry(_ value: Int) -> ConditionalCache<Int>.Entry {
            .init(value: value, etag: nil, lastModified: nil, fetchedAt: Date(), expires: nil)
        }
        await cache.store(entry(1), for: "a")
        await cache.store(entry(2), for: "b")
        _ = await cache.entry(for: "a")  // a is now the most recently used
        await cache.store(entry(3), for: "c")
        #expect(await cache.entry(for: "a")?.value == 1)
        #expect(await cache.entry(for: "b") == nil)
        #expect(await cache.entry(for: "c")?.value == 3)
    }

    @Test("Deadlines read naturally in messages")
    func durations() {
        #expect(FetchFailure.describe(.seconds(15)) == "15 s")
        #expect(FetchFailure.describe(.milliseconds(1500)) == "1.5 s")
        #expect(FetchFailure.describe(.milliseconds(250)) == "250 ms")
    }

    @Test("HTTP dates: IMF-fixdate only")
    func httpDates() {
        #expect(HTTPDate.parse("Mon, 20 Jul 2020 12:14:53 GMT") == Timestamps.parseUTC("2020-07-20T12:14:53Z"))
        #expect(HTTPDate.parse("Monday, 20-Jul-20 12:14:53 GMT") == nil)
        #expect(HTTPDate.parse("0") == nil)
        #expect(HTTPDate.parse(nil) == nil)
    }

    @Test("Coordinates as text: at most the decimals asked, no trailing zeros, no exponent, no -0")
    func format() {
        #expect(QueryURL.format(53.195_873_12) == "53.1959")
        #expect(QueryURL.format(-2.06) == "-2.06")
        #expect(QueryURL.format(-0.000_01) == "0")
        #expect(QueryURL.format(1e-7, decimals: 6) == "0")
        #expect(QueryURL.format(13.4, decimals: 0) == "13")
        #expect(QueryURL.format(52.123_456_78, decimals: 9) == "52.123457")
    }

    @Test("A query URL keeps the base's own query and appends one path segment")
    func make() throws {
        let base = try #require(URL(string: "https://api.example.org/v1/?apikey=k#top"))
        let url = try QueryURL.make(base, appendingPath: "/feeds-de", items: [("lat", "1"), ("lon", "2")])
        #expect(url.absoluteString == "https://api.example.org/v1/feeds-de?apikey=k&lat=1&lon=2")
        let plain = try QueryURL.make(try #require(URL(string: "http://h/x")), items: [])
        #expect(plain.absoluteString == "http://h/x")
        #expect(QueryURL.encode("a&b=c+d/e?") == "a%26b%3Dc%2Bd%2Fe%3F")
    }

    @Test("A base that is not an http(s) URL with a host is refused, its secrets hidden")
    func invalid() throws {
        for text in ["ftp://example.org/x?appid=secret", "file:///etc/passwd?appid=secret", "/relative?appid=secret"] {
            let base = try #require(URL(string: text))
            #expect(throws: QueryURL.Invalid.self) { try QueryURL.make(base, items: [("a", "1")]) }
            do {
                _ = try QueryURL.make(base, items: [])
            } catch {
                #expect(error.detail.contains("appid=REDACTED"), "\(error.detail)")
                #expect(!error.detail.contains("secret"))
            }
        }
    }

    @Test("Positions a service can be asked about")
    func answerable() {
        #expect(QueryURL.isAnswerable(Coordinate(latitude: 90, longitude: -180)))
        #expect(!QueryURL.isAnswerable(Coordinate(latitude: 90.01, longitude: 0)))
        #expect(!QueryURL.isAnswerable(Coordinate(latitude: 0, longitude: 180.5)))
        #expect(!QueryURL.isAnswerable(Coordinate(latitude: .nan, longitude: 0)))
        #expect(!QueryURL.isAnswerable(Coordinate(latitude: 0, longitude: .infinity)))
        #expect(QueryURL.refusal(Coordinate(latitude: 52.5, longitude: 13.4), asking: "warnings") == nil)
        #expect(
            QueryURL.refusal(Coordinate(latitude: 91, longitude: 0), asking: "a forecast")
                == "cannot ask for a forecast at (91.0, 0.0): latitude must be within -90...90 and longitude within "
                + "-180...180")
    }
}
