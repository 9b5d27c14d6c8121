import AsyncHTTPClient
import FileStore
import ForecastModel
import Foundation
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import Fetching

/// The one HTTP layer through its real stack against real sockets: every failure kind comes from a real
/// exchange with `ReplayServer` (or, for an answer that is not HTTP, a server that speaks something else).
@Suite("Fetcher over HTTP", .timeLimit(.minutes(3)), .onEventLoops)
struct FetcherTests {
    static let userAgent = UserAgent(version: "9.8.7").identifying(contact: "ops@example.org")

    /// Runs `body` with a fresh server and a fetcher (5 s deadline, 1 KiB cap unless given), then tears both down.
    static func withFetcher(
        // Long: no test here is about the deadline unless it sets one, and a loaded machine is slow.
        timeout: Duration = .seconds(60), maxBodyBytes: Int = 1024,
        _ body: (ReplayServer, Fetcher) async throws -> Void
    ) async throws {
        try await ReplayServer.withClient { server, client in
            let fetcher = Fetcher(
                service: "test-service", client: client, userAgent: userAgent,
                limits: Fetcher.Limits(timeout: timeout, maxBodyBytes: maxBodyBytes), logger: Logger(label: "test"))
            try await body(server, fetcher)
        }
    }

    static func failure(_ work: () async throws(FetchFailure) -> HTTPAnswer) async -> FetchFailure? {
        do {
            let answer = try await work()
            Issue.record("expected a failure, got HTTP \(answer.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test("A GET carries the exact User-Agent and Accept, and the answer comes back whole")
    func answer() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/a", .json(#"{"ok":true}"#, headers: [("ETag", "\"v1\"")]))
            let answer = try await fetcher.get(
                server.url("/a?x=1"), accept: "application/geo+json", headers: [("X-Extra", "yes")])
            #expect(answer.status == 200)
            #expect(answer.body == Array(#"{"ok":true}"#.utf8))
            #expect(answer.mediaType == "application/json")
            #expect(answer.etag == "\"v1\"")
            #expect(answer.meaning == .success)
            let request = try #require(server.requests().first)
            #expect(request.method == "GET")
            #expect(request.uri == "/a?x=1")
            #expect(request.header("User-Agent") == "forecastd/9.8.7 (ops@example.org)")
            #expect(request.header("Accept") == "application/geo+json")
            #expect(request.header("X-Extra") == "yes")
            #expect(request.body.isEmpty)
        }
    }

    @Test("The User-Agent strings are exact, byte for byte")
    func userAgents() {
        let agent = UserAgent(version: "0.3.0")
        #expect(agent.daemon == "forecastd/0.3.0 (weather daemon for status bars)")
        #expect(agent.identifying(contact: " me@example.org ") == "forecastd/0.3.0 (me@example.org)")
        #expect(agent.identifying(contact: "+https://example.org/ops") == "forecastd/0.3.0 (+https://example.org/ops)")
        #expect(agent.identifying(contact: "  ") == "forecastd/0.3.0")
        #expect(agent.identifying(contact: nil) == "forecastd/0.3.0")
        #expect(agent.forecastctl == "forecastctl/0.3.0")
    }

    @Test("A POST's JSON body arrives byte for byte, with its content type")
    func postBody() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/v1/geolocate", .json(#"{"location":{"lat":52.5,"lng":13.4},"accuracy":50}"#))
            // Non-ASCII, an escaped NUL and a line break: nothing may be re-encoded on the way.
            let body = Array(#"{"wifiAccessPoints":[{"macAddress":"01:23:45:67:89:ab","ssid":"Café\u0000"}],"#.utf8)
                + [0x0A] + Array(#""considerIp":false}"#.utf8)
            let answer = try await fetcher.post(server.url("/v1/geolocate"), json: body)
            #expect(answer.status == 200)
            let request = try #require(server.requests().first)
            #expect(request.method == "POST")
            #expect(request.body == body)
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.header("Content-Length") == String(body.count))
            #expect(request.header("User-Agent") == Self.userAgent)
        }
    }

    @Test("A request body over the cap is refused before a byte is sent")
    func oversizeRequest() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/v1/geolocate", .json("{}"))
            let body = [UInt8](repeating: UInt8(ascii: " "), count: fetcher.limits.maxRequestBytes + 1)
            let error = await Self.failure { () async throws(FetchFailure) in
                try await fetcher.post(server.url("/v1/geolocate"), json: body)
            }
            #expect(error?.kind == .tooLarge(limit: 64 * 1024))
            #expect(error?.description == "test-service: the request body is larger than 64 KiB; it was not sent")
            #expect(server.requests().isEmpty)
            // At the cap it goes.
            _ = try await fetcher.post(server.url("/v1/geolocate"), json: Array(body.dropLast()))
            #expect(server.requests().count == 1)
        }
    }

    @Test("Nobody listening on the port: offline")
    func refusedPort() async throws {
        let port = try GPSFake.freePort()
        let client = ReplayServer.makeClient()
        let fetcher = Fetcher(
            service: "test-service", client: client, userAgent: Self.userAgent,
            limits: .init(timeout: .seconds(300), maxBodyBytes: 1024), logger: Logger(label: "test"))
        let error = await Self.failure { () async throws(FetchFailure) in
            try await fetcher.get(URL(string: "http://127.0.0.1:\(port)/a")!)
        }
        try await client.shutdown()
        #expect(error?.kind == .offline)
        #expect(error?.description == "test-service: could not connect to 127.0.0.1:\(port) (Connection refused)")
    }

    @Test("A body that stalls past the deadline: timeout, at the deadline rather than the body's end")
    func stalledBody() async throws {
        try await Self.withFetcher(timeout: .seconds(1)) { server, fetcher in
            server.setRoute(
                path: "/a", ReplayResponse(body: String(repeating: "x", count: 500)).behaving(.stallBody(afterBytes: 10)))
            let started = ContinuousClock.now
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .timeout)
            #expect(error?.detail == "no answer within 1 s")
            #expect(ContinuousClock.now - started < .seconds(60))  // not the body's end (never); slack for a loaded machine
        }
    }

    @Test("No head within the deadline: timeout")
    func slowHead() async throws {
        try await Self.withFetcher(timeout: .milliseconds(500)) { server, fetcher in
            server.setRoute(path: "/a", ReplayResponse.json("{}").delayed(by: .seconds(60)))
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .timeout)
            #expect(error?.detail == "no answer within 500 ms")
        }
    }

    @Test("The server closes the connection without answering: closed")
    func closedWithoutAnswer() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/a", ReplayResponse.json("{}").behaving(.closeWithoutAnswer))
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .closed)
            #expect(error?.detail == "127.0.0.1:\(server.port) closed the connection without a complete answer")
        }
    }

    @Test("The body ends before its announced length: truncated")
    func truncatedBody() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(
                path: "/a", ReplayResponse(body: String(repeating: "x", count: 500)).behaving(.truncateBody(afterBytes: 100)))
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .truncated)
            #expect(error?.detail == "the response from 127.0.0.1:\(server.port) ended before its announced length")
        }
    }

    @Test("An announced body over the cap is refused without reading it")
    func announcedOversize() async throws {
        try await Self.withFetcher(timeout: .seconds(300)) { server, fetcher in
            // The server announces 4 KiB and then sends nothing: reading any of it would wait for the deadline.
            server.setRoute(
                path: "/a", ReplayResponse(body: String(repeating: "x", count: 4096)).behaving(.stallBody(afterBytes: 0)))
            let started = ContinuousClock.now
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .tooLarge(limit: 1024))
            #expect(error?.description == "test-service: the response is larger than 1 KiB")
            #expect(ContinuousClock.now - started < .seconds(60))  // not the 5-minute deadline; slack for a loaded machine
        }
    }

    @Test("A streamed body over the cap is refused at the cap, not read to its end")
    func streamedOversize() async throws {
        try await Self.withFetcher(timeout: .seconds(300)) { server, fetcher in
            // Chunked, so no length is announced; 2 KiB arrive and then the server stalls: only stopping at the
            // cap answers before the deadline.
            server.setRoute(
                path: "/a",
                ReplayResponse(headers: [("Transfer-Encoding", "chunked")], body: String(repeating: "x", count: 8192))
                    .behaving(.stallBody(afterBytes: 2048)))
            let started = ContinuousClock.now
            let error = await Self.failure { () async throws(FetchFailure) in try await fetcher.get(server.url("/a")) }
            #expect(error?.kind == .tooLarge(limit: 1024))
            #expect(ContinuousClock.now - started < .seconds(60))  // not the 5-minute deadline; slack for a loaded machine
            // A body exactly at the cap is read.
            server.setRoute(path: "/b", ReplayResponse(body: String(repeating: "y", count: 1024)))
            let atCap = try await fetcher.get(server.url("/b"))
            #expect(atCap.body.count == 1024)
        }
    }

    @Test("Something that is not HTTP answers: malformed")
    func notHTTP() async throws {
        let server = try await NotHTTPServer.start(greeting: "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let fetcher = Fetcher(
            service: "test-service", client: client, userAgent: Self.userAgent,
            limits: .init(timeout: .seconds(60), maxBodyBytes: 1024), logger: Logger(label: "test"))
        let error = await Self.failure { () async throws(FetchFailure) in
            try await fetcher.get(URL(string: "http://127.0.0.1:\(server.port)/a")!)
        }
        try await client.shutdown()
        try await server.close()
        #expect(error?.kind == .malformed)
        #expect(
            error?.detail == "the response from 127.0.0.1:\(server.port) is not valid HTTP (invalid constant string)",
            "\(String(describing: error))")
    }

    @Test("A URL without a host: invalidURL, and nothing is sent")
    func invalidURL() async throws {
        try await Self.withFetcher { _, fetcher in
            let error = await Self.failure { () async throws(FetchFailure) in
                try await fetcher.get(URL(string: "http:///v1/forecast?appid=secret")!)
            }
            #expect(error?.kind == .invalidURL)
            #expect(error?.detail == "the URL http:///v1/forecast?appid=REDACTED is not a valid http(s) URL")
        }
    }

    @Test(
        "Every status comes back as an answer with its one meaning",
        arguments: [
            (200, StatusMeaning.success), (203, .success), (204, .success), (304, .notModified), (429, .rateLimited),
            (401, .refused), (403, .refused), (404, .notFound), (400, .clientError), (418, .clientError),
            (500, .serverError), (503, .serverError), (300, .unexpected),
        ])
    func statusMeaning(status: Int, meaning: StatusMeaning) async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/a", .json(#"{"reason":"x"}"#, status: status))
            let answer = try await fetcher.get(server.url("/a"))
            #expect(answer.status == status)
            #expect(answer.meaning == meaning)
            #expect(answer.isSuccess == (meaning == .success))
        }
    }

    @Test("Statuses outside the classes are unexpected")
    func unexpectedStatuses() {
        for status in [100, 101, 199, 301, 302, 307, 399, 600, 0, -1] {
            #expect(StatusMeaning(status: status) == .unexpected, "\(status)")
        }
    }

    @Test(
        "Retry-After: delta-seconds only, blanks trimmed; a date, a sign or an exponent is not read",
        arguments: [
            ("120", Duration?.some(.seconds(120))), (" 120 ", .seconds(120)), ("0", .seconds(0)), ("-1", nil),
            ("1e3", nil), ("+5", nil), ("12.5", nil), ("", nil), ("Wed, 21 Oct 2015 07:28:00 GMT", nil),
            ("99999999999999999999999", nil),
        ])
    func retryAfter(value: String, expected: Duration?) {
        let answer = HTTPAnswer(status: 429, headers: ["Retry-After": value], body: [])
        #expect(answer.retryAfter == expected)
    }

    @Test("Retry-After read from a real 429")
    func retryAfterOverTheWire() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/a", .json("{}", status: 429, headers: [("Retry-After", "120")]))
            let answer = try await fetcher.get(server.url("/a"))
            #expect(answer.meaning == .rateLimited)
            #expect(answer.retryAfter == .seconds(120))
        }
    }

    @Test("An HTML error page is recognised from its first bytes")
    func htmlPage() async throws {
        try await Self.withFetcher { server, fetcher in
            server.setRoute(path: "/a", .html("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"))
            let answer = try await fetcher.get(server.url("/a"))
            #expect(answer.looksLikeHTML)
            #expect(answer.mediaType == "text/html")
            #expect(answer.meaning == .serverError)
            #expect(!HTTPAnswer(status: 200, headers: [:], body: Array(#"{"html":"<html>"}"#.utf8)).looksLikeHTML)
        }
    }
}

/// A TCP server that greets every connection with a line of another protocol and keeps it open.
struct NotHTTPServer {
    let channel: any Channel
    let port: Int

    static func start(greeting: String) async throws -> NotHTTPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Greeter(greeting: greeting))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return NotHTTPServer(channel: channel, port: channel.localAddress?.port ?? 0)
    }

    func close() async throws {
        try await channel.close()
    }

    private final class Greeter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let greeting: String
        init(greeting: String) { self.greeting = greeting }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: greeting)), promise: nil)
            context.fireChannelActive()
        }
    }
}
