import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// The provider through its real HTTP stack against a local server that replays recorded answers.
@Suite("Open-Meteo provider over HTTP", .timeLimit(.minutes(3)))
struct OpenMeteoProviderTests {
    static let path = "/v1/forecast"
    static let fetchedAt = Date(timeIntervalSince1970: 1_789_460_000)
    static let samara = Coordinate(latitude: 53.195_873_12, longitude: 50.100_193_9)
    static let userAgent = "forecastd/0.1 (+https://example.org/forecastd)"

    /// Runs `body` with a fresh server and a provider pointed at it, and tears both down.
    static func withProvider(
        timeout: Duration = .seconds(60), query: String? = nil,
        _ body: (ReplayServer, OpenMeteoProvider) async throws -> Void
    ) async throws {
        try await ReplayServer.withClient { server, client in
            var url = server.url(path)
            if let query { url = URL(string: url.absoluteString + "?" + query)! }
            let provider = OpenMeteoProvider(
                url: url, fetcher: .test(client: client, userAgent: userAgent, timeout: timeout), now: { fetchedAt })
            try await body(server, provider)
        }
    }

    static func failure(_ provider: OpenMeteoProvider, at coordinate: Coordinate = samara) async -> ProviderError? {
        do {
            let forecast = try await provider.forecast(for: coordinate)
            Issue.record("expected an error, got a forecast from \(forecast.provider)")
            return nil
        } catch {
            return error
        }
    }

    @Test("200: one GET with the documented parameters, decoded into a forecast")
    func success() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(
                path: Self.path,
                try .recorded("open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json"))
            let forecast = try await provider.forecast(for: Self.samara)

            #expect(forecast.provider == "open-meteo")
            #expect(forecast.fetchedAt == Self.fetchedAt)
            #expect(forecast.current?.temperature == 18.5)
            #expect(forecast.daily.count == 7)

            #expect(server.requestCount(path: Self.path) == 1)
            let request = try #require(server.requests().first)
            #expect(request.method == "GET")
            #expect(request.path == Self.path)
            let query = request.query
            #expect(query["latitude"] == "53.1959")
            #expect(query["longitude"] == "50.1002")
            #expect(query["timezone"] == "auto")
            #expect(query["forecast_days"] == "7")
            #expect(query["forecast_hours"] == "48")
            #expect(query["temperature_unit"] == "celsius")
            #expect(query["wind_speed_unit"] == "kmh")
            #expect(query["precipitation_unit"] == "mm")
            #expect(
                query["current"]
                    == "temperature_2m,apparent_temperature,relative_humidity_2m,dew_point_2m,weather_code,is_day,precipitation,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,wind_gusts_10m"
            )
            #expect(query["minutely_15"] == "precipitation")
            #expect(query["forecast_minutely_15"] == "12")
            #expect(
                query["hourly"]
                    == "temperature_2m,apparent_temperature,relative_humidity_2m,dew_point_2m,precipitation_probability,precipitation,weather_code,pressure_msl,cloud_cover,visibility,wind_speed_10m,wind_direction_10m,wind_gusts_10m,uv_index,is_day"
            )
            #expect(
                query["daily"]
                    == "weather_code,temperature_2m_max,temperature_2m_min,sunrise,sunset,uv_index_max,precipitation_sum,precipitation_probability_max,wind_speed_10m_max,wind_gusts_10m_max"
            )
            // 38 variables: Open-Meteo counts this request as 3.8 calls (docs/privacy.md).
            #expect(OpenMeteoProvider.variableCount == 38)
            #expect(request.header("User-Agent") == Self.userAgent)
            // The commas stay literal: that is how Open-Meteo documents its lists.
            #expect(request.uri.contains("current=temperature_2m,apparent_temperature,"))
        }
    }

    @Test("The configured URL's own query is kept and ours appended")
    func existingQuery() async throws {
        try await Self.withProvider(query: "apikey=secret&models=icon_seamless") { server, provider in
            server.setRoute(
                path: Self.path,
                try .fixture(
                    "open-meteo/forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json"))
            let forecast = try await provider.forecast(for: Coordinate(latitude: -33.86882, longitude: 151.209296))
            #expect(forecast.hourly.count == 168)
            let request = try #require(server.requests().first)
            #expect(
                request.uri.hasPrefix(
                    "\(Self.path)?apikey=secret&models=icon_seamless&latitude=-33.8688&longitude=151.2093&"))
        }
    }

    @Test("Coordinates are sent with at most 4 decimals and no exponent")
    func coordinateFormat() {
        #expect(OpenMeteoProvider.format(53.195_873_12) == "53.1959")
        #expect(OpenMeteoProvider.format(-2.06) == "-2.06")
        #expect(OpenMeteoProvider.format(0.000_01) == "0")
        #expect(OpenMeteoProvider.format(-0.000_01) == "0")
        #expect(OpenMeteoProvider.format(0.0001) == "0.0001")
        #expect(OpenMeteoProvider.format(180) == "180")
    }

    @Test("400: a provider error carrying Open-Meteo's reason")
    func badRequest() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(
                path: Self.path, try .fixture("open-meteo/error-400-latitude-out-of-range.json", status: 400))
            let error = await Self.failure(provider, at: Coordinate(latitude: 999, longitude: 10))
            #expect(error?.kind == .providerError)
            #expect(error?.message == "open-meteo: HTTP 400: Latitude must be in range of -90 to 90°. Given: 999.0.")
            #expect(error?.retryAfter == nil)
            #expect(server.requests().first?.query["latitude"] == "999")
        }
    }

    @Test("429 with Retry-After: rate limited, with the delay to wait")
    func rateLimited() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(
                path: Self.path,
                try .fixture("open-meteo/error-429-daily-limit.json", status: 429, headers: [("Retry-After", "3600")]))
            let error = await Self.failure(provider)
            #expect(error?.kind == .rateLimited)
            #expect(error?.retryAfter == .seconds(3600))
            #expect(error?.rateLimitWindow == .day)
            #expect(
                error?.message == "open-meteo: HTTP 429: Daily API request limit exceeded. Please try again tomorrow.")
        }
    }

    @Test("429 without a JSON body or Retry-After is still a rate limit")
    func rateLimitedBare() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(path: Self.path, .html("<html>slow down</html>", status: 429))
            let error = await Self.failure(provider)
            #expect(error?.kind == .rateLimited)
            #expect(error?.retryAfter == nil)
            #expect(error?.message == "open-meteo: HTTP 429: Too Many Requests")
        }
    }

    @Test("401 and 403 are authentication problems")
    func auth() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(path: Self.path, .json(#"{"reason":"Invalid API key","error":true}"#, status: 401))
            let unauthorized = await Self.failure(provider)
            #expect(unauthorized?.kind == .auth)
            #expect(unauthorized?.message == "open-meteo: HTTP 401: Invalid API key")

            server.setRoute(path: Self.path, .html("<h1>Forbidden</h1>", status: 403))
            let forbidden = await Self.failure(provider)
            #expect(forbidden?.kind == .auth)
            #expect(forbidden?.message == "open-meteo: HTTP 403: Forbidden")
        }
    }

    @Test("HTML 502 from a load balancer is a bad response naming the type and status")
    func htmlBadGateway() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(
                path: Self.path,
                .html(
                    "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
                ))
            let error = await Self.failure(provider)
            #expect(error?.kind == .badResponse)
            #expect(error?.message == "open-meteo: the response is not JSON (text/html, 502)")
        }
    }

    @Test("A JSON 5xx is the provider's own error")
    func serverError() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(path: Self.path, .json(#"{"error":true}"#, status: 503))
            let error = await Self.failure(provider)
            #expect(error?.kind == .providerError)
            #expect(error?.message == "open-meteo: HTTP 503: Service Unavailable")
        }
    }

    @Test("A 200 that is a captive portal page is a bad response")
    func captivePortal() async throws {
        try await Self.withProvider { server, provider in
            server.setRoute(path: Self.path, .html("<html>Please log in to the hotel Wi-Fi</html>", status: 200))
            let error = await Self.failure(provider)
            #expect(error?.kind == .badResponse)
            #expect(error?.message == "open-meteo: the response is not JSON (text/html, 200)")
        }
    }

    @Test("A slow answer times out at the deadline, not later")
    func slowAnswer() async throws {
        try await Self.withProvider(timeout: .seconds(1)) { server, provider in
            let samara = try ReplayResponse.fixture(
                "open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json")
            // The answer comes 5 minutes late, so that a bound far above the deadline still tells the two apart: a
            // loaded machine (CI's two cores, the suite in parallel) can hold this test's awaits up for seconds.
            server.setRoute(path: Self.path, samara.delayed(by: .seconds(300)))
            let started = ContinuousClock.now
            let error = await Self.failure(provider)
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timeout)
            #expect(error?.message == "open-meteo: no answer within 1 s")
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(60))  // the deadline, not the answer 300 s later
        }
    }

    @Test("A body that stalls half way times out within the same deadline")
    func stalledBody() async throws {
        try await Self.withProvider(timeout: .seconds(1)) { server, provider in
            let samara = try ReplayResponse.fixture(
                "open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json")
            server.setRoute(path: Self.path, samara.behaving(.stallBody(afterBytes: 100)))
            let started = ContinuousClock.now
            let error = await Self.failure(provider)
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timeout)
            #expect(error?.message == "open-meteo: no answer within 1 s")
            #expect(elapsed < .seconds(60))  // the deadline, not the stalled body's end (never); slack for a loaded machine
        }
    }

    @Test("A truncated body or a connection closed without answer is reported, not decoded")
    func truncatedAndClosed() async throws {
        try await Self.withProvider { server, provider in
            let samara = try ReplayResponse.fixture(
                "open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json")
            server.setRoute(path: Self.path, samara.behaving(.truncateBody(afterBytes: 300)))
            let truncated = await Self.failure(provider)
            #expect(truncated?.kind == .badResponse)
            #expect(
                truncated?.message
                    == "open-meteo: the response from 127.0.0.1:\(server.port) ended before its announced length")

            server.setRoute(path: Self.path, samara.behaving(.closeWithoutAnswer))
            let closed = await Self.failure(provider)
            #expect(closed?.kind == .providerError)
            #expect(
                closed?.message
                    == "open-meteo: 127.0.0.1:\(server.port) closed the connection without a complete answer")
        }
    }

    @Test("A body over the size cap is refused")
    func oversizedBody() async throws {
        try await Self.withProvider { server, provider in
            let huge = ReplayResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(repeating: UInt8(ascii: " "), count: Fetcher.weatherMaxBodyBytes + 1))
            server.setRoute(path: Self.path, huge)
            let error = await Self.failure(provider)
            #expect(error?.kind == .badResponse)
            #expect(error?.message == "open-meteo: the response is larger than 2 MiB")
        }
    }

    @Test("Nobody listening on the port: offline")
    func closedPort() async throws {
        // Not a released server's port: a replay server of a test running in parallel could be given it.
        let url = try #require(URL(string: "http://127.0.0.1:\(try GPSFake.freePort())\(Self.path)"))
        // The daemon's client, which does not retry a refused connection until the deadline.
        let client = ReplayServer.makeClient()
        let provider = OpenMeteoProvider(
            url: url, fetcher: .test(client: client, userAgent: Self.userAgent, timeout: .seconds(300)))
        let started = ContinuousClock.now
        let error = await Self.failure(provider)
        let elapsed = ContinuousClock.now - started
        try await client.shutdown()

        #expect(error?.kind == .offline)
        #expect(error?.message == "open-meteo: could not connect to 127.0.0.1:\(url.port!) (Connection refused)")
        // Refused at once, not after the 5-minute deadline (the bound leaves room for a loaded machine).
        #expect(elapsed < .seconds(60))
    }
}
