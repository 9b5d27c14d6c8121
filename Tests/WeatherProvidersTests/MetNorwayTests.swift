import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import NIOHTTP1
import TestSupport
import Testing

@testable import WeatherProviders

/// MET Norway: the recorded New York answer decoded into days in the location's time zone, and the
/// service's terms (User-Agent, 4 decimals, Expires, If-Modified-Since/304) kept over real HTTP.
@Suite("MET Norway", .timeLimit(.minutes(3)))
struct MetNorwayTests {
    static let fixture = "met-norway/compact-new-york-lat40.7-lon-74.0-alt10-with-headers.json"
    static let path = "/weatherapi/locationforecast/2.0/compact"
    /// The recording's `Date` header: "now" for the recorded series.
    static let recordedAt = Timestamps.parseUTC("2020-07-20T11:44:31Z")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func body() throws -> [UInt8] {
        try ReplayResponse.wrapped(fixture).body
    }

    @Test("The recorded New York series: current, 48 hours, 9 local days")
    func decodeNewYork() throws {
        let forecast = try MetNorwayDecoder.decode(
            Self.body(), fetchedAt: Self.recordedAt, now: Self.recordedAt, timeZone: Self.newYork)
        #expect(forecast.provider == "met-norway")
        #expect(forecast.attribution == "Weather data from MET Norway (CC BY 4.0)")
        #expect(forecast.coordinate == Coordinate(latitude: 40.7, longitude: -74))
        #expect(forecast.timezone == "America/New_York")
        #expect(forecast.utcOffsetSeconds == -4 * 3600)
        #expect(forecast.notes.isEmpty)

        let current = try #require(forecast.current)
        #expect(current.time == Timestamps.parseUTC("2020-07-20T11:00:00Z"))
        #expect(current.temperature == 26.5)
        #expect(current.humidity == 81.3)
        #expect(approx(current.windSpeed, 13.68, tolerance: 1e-9))  // 3.8 m/s
        #expect(current.windDirection == 243.4)
        #expect(current.pressure == 1010.7)
        #expect(current.cloudCover == 69.5)
        #expect(current.condition == .partlyCloudy)
        #expect(current.isDay == true)
        #expect(current.precipitation == 0)

        #expect(forecast.hourly.count == 48)
        #expect(forecast.hourly.first?.time == current.time)
        #expect(forecast.hourly.last?.time == Timestamps.parseUTC("2020-07-22T10:00:00Z"))
        #expect(forecast.hourly[1].temperature == 27.9)
        // 2020-07-21T01:00Z is 21:00 in New York: "partlycloudy_night".
        let evening = try #require(forecast.hourly.first { $0.time == Timestamps.parseUTC("2020-07-21T01:00:00Z") })
        #expect(evening.condition == .partlyCloudy)
        #expect(evening.isDay == false)

        // Local days (UTC−4); the series' last day, seen through one step, is left out.
        #expect(forecast.daily.map(\.date) == (20...28).map { "2020-07-\($0)" })
        #expect(forecast.daily.map(\.temperatureMin) == [26.5, 22.4, 23.7, 24.9, 24.1, 21.8, 24.1, 25.7, 23.9])
        #expect(forecast.daily.map(\.temperatureMax) == [36.0, 32.2, 30.2, 31.3, 27.7, 27.8, 34.7, 33.8, 33.7])
        #expect(
            forecast.daily.map(\.condition) == [
                .partlyCloudy, .partlyCloudy, .rainShowers, .rainShowers, .rain, .overcast, .rainShowers, .clear,
                .partlyCloudy,
            ])
        // The 3.0 mm of 2020-07-23T00Z–06Z fall from 20:00 to 02:00 local: 2/3 on the 22nd, 1/3 on the 23rd.
        #expect(approx(forecast.daily[2].precipitationSum, 2.0, tolerance: 1e-9))
        #expect(approx(forecast.daily[3].precipitationSum, 2.0, tolerance: 1e-9))
        #expect(approx(forecast.daily[4].precipitationSum, 3.6, tolerance: 1e-9))
        #expect(forecast.daily[0].precipitationSum == 0)
        // Sunrise and sunset come from the sun's position: 05:41 and 20:23 EDT.
        let sunrise = try #require(forecast.daily[0].sunrise)
        let sunset = try #require(forecast.daily[0].sunset)
        #expect(abs(sunrise.timeIntervalSince(Timestamps.parseUTC("2020-07-20T09:41:00Z")!)) < 180)
        #expect(abs(sunset.timeIntervalSince(Timestamps.parseUTC("2020-07-21T00:23:00Z")!)) < 180)
    }

    @Test("Without a time zone, days are counted at the offset of the longitude, and the forecast says so")
    func decodeWithoutTimeZone() throws {
        let forecast = try MetNorwayDecoder.decode(
            Self.body(), fetchedAt: Self.recordedAt, now: Self.recordedAt, timeZone: nil)
        #expect(forecast.timezone == nil)
        #expect(forecast.utcOffsetSeconds == -5 * 3600)
        #expect(
            forecast.notes == [
                "met-norway: the location's time zone is unknown, so days are counted at UTC−05:00 (estimated from the longitude)"
            ])
        #expect(forecast.daily.first?.date == "2020-07-20")
    }

    @Test("A series that does not reach now, or is not a series, is refused")
    func unusableBodies() throws {
        let later = Timestamps.parseUTC("2026-11-22T05:00:00Z")!
        let stale = #expect(throws: ProviderError.self) {
            try MetNorwayDecoder.decode(Self.body(), fetchedAt: later, now: later, timeZone: Self.newYork)
        }
        #expect(stale?.kind == .badResponse)
        #expect(
            stale?.message
                == "met-norway: the forecast steps (2020-07-20T11:00:00Z to 2020-07-29T06:00:00Z) do not cover now")
        let cases: [(String, String)] = [
            ("<html>busy</html>", "met-norway: the response is not JSON"),
            (#"{"type":"Feature"}"#, "met-norway: the response has no properties.timeseries"),
            (
                #"{"geometry":{"coordinates":[10,60]},"properties":{"timeseries":[{"time":"soon"},{"data":{}}]}}"#,
                "met-norway: the response has no forecast steps"
            ),
        ]
        for (body, message) in cases {
            let error = #expect(throws: ProviderError.self) {
                try MetNorwayDecoder.decode(Array(body.utf8), fetchedAt: later, now: later, timeZone: nil)
            }
            #expect(error?.message == message)
        }
    }

    static func provider(
        _ server: ReplayServer, _ client: HTTPClient, clock: ManualClock, contact: String = "+mailto:ops@example.org",
        logger: Logger = Logger(label: "test")
    ) -> MetNorwayProvider {
        MetNorwayProvider(
            url: server.url(path), contact: contact,
            fetcher: .test(
                "met-norway", client: client, userAgent: UserAgent(version: "0.2.0").identifying(contact: contact),
                logger: logger),
            logger: logger, timeZone: { _ in newYork }, now: { clock.now })
    }

    @Test("Identifying User-Agent, 4 decimals, and no request again before Expires")
    func termsAndExpires() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.recordedAt)
            let provider = Self.provider(server, client, clock: clock)
            server.setRoute(path: Self.path, try .wrapped(Self.fixture))
            let here = Coordinate(latitude: 40.712_776, longitude: -74.005_974)

            let first = try await provider.forecast(for: here)
            #expect(first.provider == "met-norway")
            #expect(first.current?.temperature == 26.5)
            let request = try #require(server.requests().first)
            #expect(request.header("User-Agent") == "forecastd/0.2.0 (+mailto:ops@example.org)")
            #expect(request.query == ["lat": "40.7128", "lon": "-74.006"])
            #expect(request.header("If-Modified-Since") == nil)

            // Expires is 12:14:53: asking again before then is answered from the cache, without a request.
            clock.advance(by: 20 * 60)
            let second = try await provider.forecast(for: here)
            #expect(server.requestCount(path: Self.path) == 1)
            #expect(second.fetchedAt == first.fetchedAt)
            #expect(second.current?.time == Timestamps.parseUTC("2020-07-20T12:00:00Z"))  // "now" moved on

            // After Expires: a conditional request; 304 serves the cache, stamped now, with the new Expires.
            clock.set(Timestamps.parseUTC("2020-07-20T12:15:00Z")!)
            server.setRoute(
                path: Self.path,
                ReplayResponse(
                    status: 304,
                    headers: [
                        ("Expires", "Mon, 20 Jul 2020 12:45:00 GMT"),
                        ("Last-Modified", "Mon, 20 Jul 2020 11:44:31 GMT"),
                    ]))
            let third = try await provider.forecast(for: here)
            #expect(server.requestCount(path: Self.path) == 2)
            #expect(server.requests().last?.header("If-Modified-Since") == "Mon, 20 Jul 2020 11:44:31 GMT")
            #expect(third.fetchedAt == clock.now)
            #expect(third.daily.count == first.daily.count)

            clock.set(Timestamps.parseUTC("2020-07-20T12:40:00Z")!)
            _ = try await provider.forecast(for: here)
            #expect(server.requestCount(path: Self.path) == 2)

            // Another place is another cache entry.
            server.setRoute(path: Self.path, try .wrapped(Self.fixture))
            _ = try await provider.forecast(for: Coordinate(latitude: 40.8, longitude: -74))
            #expect(server.requestCount(path: Self.path) == 3)
        }
    }

    @Test("203: the forecast is used and carries the deprecation warning")
    func deprecated() async throws {
        try await withServer { server, client in
            let capture = LogCapture()
            let provider = Self.provider(
                server, client, clock: ManualClock(Self.recordedAt), logger: capture.logger())
            server.setRoute(path: Self.path, try ReplayResponse.wrapped(Self.fixture).withStatus(203))
            let forecast = try await provider.forecast(for: Coordinate(latitude: 40.7, longitude: -74))
            #expect(forecast.current?.temperature == 26.5)
            #expect(
                forecast.notes == [
                    "met-norway: MET Norway announced (HTTP 203) that this product version is deprecated and will be withdrawn; update forecastd"
                ])
            #expect(capture.all.contains { $0.level == .warning && $0.message.contains("deprecated (HTTP 203)") })
        }
    }

    @Test("403 explains the User-Agent rule; 429 is a rate limit with its delay; 5xx a provider error")
    func errors() async throws {
        try await withServer { server, client in
            let capture = LogCapture()
            let provider = Self.provider(
                server, client, clock: ManualClock(Self.recordedAt), contact: "", logger: capture.logger())
            let here = Coordinate(latitude: 40.7, longitude: -74)

            server.setRoute(path: Self.path, .html("<h1>403 Forbidden</h1>", status: 403))
            let forbidden = await failure(provider, at: here)
            #expect(forbidden?.kind == .auth)
            #expect(
                forbidden?.message
                    == "met-norway: HTTP 403: MET Norway refused the request. Its terms require a User-Agent that identifies the application and a contact (sent: \"forecastd/0.2.0\"); set [providers.met_norway] contact to your e-mail address or URL"
            )
            #expect(server.requests().first?.header("User-Agent") == "forecastd/0.2.0")

            server.setRoute(
                path: Self.path, ReplayResponse(status: 429, headers: [("Retry-After", "90")], body: "slow down"))
            let throttled = await failure(provider, at: here)
            #expect(throttled?.kind == .rateLimited)
            #expect(throttled?.retryAfter == .seconds(90))

            server.setRoute(path: Self.path, .html("<h1>Bad Gateway</h1>", status: 502))
            let gateway = await failure(provider, at: here)
            #expect(gateway?.kind == .providerError)
            #expect(gateway?.message == "met-norway: HTTP 502: Bad Gateway")

            server.setRoute(path: Self.path, .html("<html>Wi-Fi login</html>", status: 200))
            let portal = await failure(provider, at: here)
            #expect(portal?.kind == .badResponse)
            #expect(portal?.message == "met-norway: the response is not JSON (text/html, 200)")

            // Four requests, one warning about the missing contact.
            #expect(server.requestCount(path: Self.path) == 4)
            #expect(capture.all.filter { $0.message.contains("[providers.met_norway] contact") }.count == 1)
        }
    }

    @Test("A 304 without a cached answer is refused")
    func unexpectedNotModified() async throws {
        try await withServer { server, client in
            let provider = Self.provider(server, client, clock: ManualClock(Self.recordedAt))
            server.setRoute(path: Self.path, ReplayResponse(status: 304))
            let error = await failure(provider, at: Coordinate(latitude: 40.7, longitude: -74))
            #expect(error?.kind == .badResponse)
        }
    }

    @Test("Expires is read as an HTTP date, and never believed beyond 3 hours")
    func expiry() {
        func answer(_ expires: String) -> HTTPAnswer {
            HTTPAnswer(status: 200, headers: HTTPHeaders([("Expires", expires)]), body: [])
        }
        #expect(
            MetNorwayProvider.expiry(answer("Mon, 20 Jul 2020 12:14:53 GMT"), receivedAt: Self.recordedAt)
                == HTTPDate.parse("Mon, 20 Jul 2020 12:14:53 GMT"))
        #expect(
            MetNorwayProvider.expiry(answer("Fri, 31 Dec 2021 00:00:00 GMT"), receivedAt: Self.recordedAt)
                == Self.recordedAt.addingTimeInterval(3 * 3600))
        #expect(MetNorwayProvider.expiry(answer("Mon, 20 Jul 2020 11:00:00 GMT"), receivedAt: Self.recordedAt) == nil)
        #expect(MetNorwayProvider.expiry(answer("Monday, 20-Jul-20 12:14:53 GMT"), receivedAt: Self.recordedAt) == nil)
    }
}

/// The error a provider throws, recording an issue when it returns a forecast instead.
func failure(_ provider: any WeatherProvider, at coordinate: Coordinate) async -> ProviderError? {
    do {
        let forecast = try await provider.forecast(for: coordinate)
        Issue.record("expected an error, got a forecast from \(forecast.provider)")
        return nil
    } catch {
        return error
    }
}
