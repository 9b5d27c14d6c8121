import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import WeatherProviders

/// The provider-neutral pieces: error classification, Retry-After, log redaction, the replay server.
@Suite("Provider support", .timeLimit(.minutes(3)))
struct ProviderSupportTests {
    @Test("HTTP statuses map to the kinds the daemon acts on")
    func statusKinds() {
        let cases: [(Int, String?, ErrorKind, String)] = [
            (429, nil, .rateLimited, "met-norway: HTTP 429: Too Many Requests"),
            (
                401, "Invalid API key. Please see https://openweathermap.org/faq#error401", .auth,
                "met-norway: HTTP 401: Invalid API key. Please see https://openweathermap.org/faq#error401"
            ),
            (403, "", .auth, "met-norway: HTTP 403: Forbidden"),
            (400, "bad\nlines\n", .providerError, "met-norway: HTTP 400: bad lines"),
            (500, nil, .providerError, "met-norway: HTTP 500: Internal Server Error"),
            (404, "city not found", .providerError, "met-norway: HTTP 404: city not found"),
        ]
        for (status, reason, kind, message) in cases {
            let error = ProviderError.httpStatus(provider: "met-norway", status: status, reason: reason)
            #expect(error.kind == kind, "status \(status)")
            #expect(error.message == message)
            #expect(error.description == message)
            #expect(error.provider == "met-norway")
        }
        let long = ProviderError.httpStatus(provider: "x", status: 400, reason: String(repeating: "a", count: 500))
        #expect(long.message.count < 230)
    }

    @Test("API keys never reach the logs")
    func redaction() throws {
        let url = try #require(
            URL(string: "https://api.openweathermap.org/data/2.5/weather?lat=1&lon=2&appid=abc123&units=metric"))
        let logged = QueryURL.redacted(url)
        #expect(!logged.contains("abc123"))
        #expect(logged == "https://api.openweathermap.org/data/2.5/weather?lat=1&lon=2&appid=REDACTED&units=metric")
    }

    @Test("The replay server answers in sequence, records requests, replays recorded headers, 404s the rest")
    func replayServer() async throws {
        let server = try await ReplayServer.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            server.setRoute(path: "/a", sequence: [.json(#"{"n":1}"#, status: 500), .json(#"{"n":2}"#)])
            server.setRoute(
                path: "/berlin",
                try .recorded("open-meteo/forecast-berlin-current-minutely15-hourly-daily-weather_code-gmt.json"))

            func get(_ path: String) async throws -> (Int, HTTPHeaders, String) {
                var request = HTTPClientRequest(url: server.url(path).absoluteString)
                request.headers.add(name: "X-Test", value: path)
                let response = try await client.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), response.headers, String(buffer: body))
            }

            #expect(try await get("/a?x=1").0 == 500)
            #expect(try await get("/a").2 == #"{"n":2}"#)
            #expect(try await get("/a").2 == #"{"n":2}"#)
            let (status, headers, body) = try await get("/berlin")
            #expect(status == 200)
            #expect(headers.first(name: "content-type") == "application/json; charset=utf-8")
            #expect(headers.first(name: "date") == "Mon, 13 Nov 2023 10:47:45 GMT")
            #expect(headers.first(name: "content-encoding") == nil)  // the saved body is plain
            #expect(
                body.utf8.count
                    == (try Fixtures.data(
                        "open-meteo/forecast-berlin-current-minutely15-hourly-daily-weather_code-gmt.json")).count)
            #expect(try await get("/nowhere").0 == 404)
            server.setRoute(
                path: "/text", ReplayResponse(status: 203, headers: ["Content-Type": "text/plain"], body: "hi"))
            let (textStatus, textHeaders, text) = try await get("/text")
            #expect(textStatus == 203)
            #expect(textHeaders.first(name: "content-type") == "text/plain")
            #expect(text == "hi")

            #expect(server.requestCount(path: "/a") == 3)
            #expect(server.requests().count == 6)
            #expect(server.requestCount(path: "/berlin") == 1)
            let first = try #require(server.requests().first)
            #expect(first.method == "GET")
            #expect(first.uri == "/a?x=1")
            #expect(first.query == ["x": "1"])
            #expect(first.header("x-test") == "/a?x=1")
        } catch {
            try? await client.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await client.shutdown()
        try await server.shutdown()
    }
}

/// The providers' row of the one mapping (docs: the substrate plan's section 2b), every kind once.
@Suite("Transport failures and statuses as ProviderError")
struct ProviderErrorMappingTests {
    @Test(
        "Each FetchFailure kind maps to one ProviderError kind, the sentence kept",
        arguments: [
            (FetchFailure.Kind.offline, ErrorKind.offline), (.timeout, .timeout), (.closed, .providerError),
            (.truncated, .badResponse), (.tooLarge(limit: 1024), .badResponse), (.malformed, .badResponse),
            (.invalidURL, .providerError), (.unexpectedNotModified, .badResponse),
        ])
    func failure(kind: FetchFailure.Kind, expected: ErrorKind) {
        let error = ProviderError(FetchFailure(service: "x", kind: kind, detail: "what happened"), provider: "open-meteo")
        #expect(error.kind == expected)
        #expect(error.message == "open-meteo: what happened")
    }

    @Test(
        "A status maps by its meaning; a rate limit keeps Retry-After and its quota window",
        arguments: [(429, ErrorKind.rateLimited), (401, .auth), (403, .auth), (404, .providerError), (500, .providerError), (400, .providerError)])
    func status(status: Int, expected: ErrorKind) {
        let answer = HTTPAnswer(status: status, headers: HTTPHeaders([("Retry-After", "60")]), body: [])
        let error = ProviderError(provider: "open-meteo", answer: answer, reason: "Daily API request limit exceeded")
        #expect(error.kind == expected)
        #expect(error.message == "open-meteo: HTTP \(status): Daily API request limit exceeded")
        #expect(error.retryAfter == .seconds(60))
        #expect(error.rateLimitWindow == (status == 429 ? .day : nil))
    }
}
