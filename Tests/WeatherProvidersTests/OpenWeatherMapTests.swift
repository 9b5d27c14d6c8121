import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// OpenWeatherMap: the recorded answers decoded in their units, the 5-day forecast built into local
/// days, One Call, its error bodies, and the API key kept out of logs and messages.
@Suite("OpenWeatherMap", .timeLimit(.minutes(3)))
struct OpenWeatherMapTests {
    static let key = "s3cr3t-key-123"

    static func data(_ name: String) throws -> [UInt8] {
        Array(try Fixtures.data("openweathermap/\(name)"))
    }

    @Test("Current weather in London, recorded in Kelvin, read in canonical units")
    func currentLondon() throws {
        let forecast = try OpenWeatherMapDecoder.decode(
            current: Self.data("current-london-gb-standard-vcr.json"), forecast: nil, units: .standard,
            fetchedAt: Date(timeIntervalSince1970: 1_588_044_400))
        #expect(forecast.provider == "openweathermap")
        #expect(forecast.attribution == "Weather data provided by OpenWeather (openweathermap.org)")
        #expect(forecast.coordinate == Coordinate(latitude: 51.51, longitude: -0.13))
        #expect(forecast.utcOffsetSeconds == 3600)
        #expect(forecast.notes.isEmpty)
        let current = try #require(forecast.current)
        #expect(current.time == Date(timeIntervalSince1970: 1_588_044_368))
        #expect(approx(current.temperature, 9.42, tolerance: 1e-9))  // 282.57 K
        #expect(approx(current.apparentTemperature, 4.58, tolerance: 1e-9))
        #expect(current.humidity == 81)
        #expect(current.pressure == 1005)
        #expect(approx(current.windSpeed, 20.52, tolerance: 1e-9))  // 5.7 m/s
        #expect(current.windDirection == 70)
        #expect(current.precipitation == 0.51)
        #expect(current.cloudCover == 100)
        #expect(current.visibility == 10_000)
        #expect(current.condition == .rain)
        #expect(current.isDay == false)  // icon 10n
        // Today, from the current temperature alone, with the recorded sunrise.
        #expect(forecast.daily.map(\.date) == ["2020-04-28"])
        #expect(forecast.daily.first?.sunrise == Date(timeIntervalSince1970: 1_588_048_633))
        #expect(forecast.daily.first?.sunset == Date(timeIntervalSince1970: 1_588_101_506))
    }

    @Test("Current weather in Moscow, recorded in imperial units, read in canonical units")
    func currentMoscowImperial() throws {
        let forecast = try OpenWeatherMapDecoder.decode(
            current: Self.data("current-moscow-ru-imperial-lang-ru-vcr.json"), forecast: nil, units: .imperial,
            fetchedAt: Date(timeIntervalSince1970: 1_588_339_006))
        let current = try #require(forecast.current)
        #expect(approx(current.temperature, 12.0, tolerance: 1e-9))  // 53.6 °F
        #expect(approx(current.windSpeed, 10.7988, tolerance: 1e-3))  // 6.71 mph
        #expect(current.condition == .clear)
        #expect(current.isDay == true)
        #expect(current.precipitation == 0)  // no "rain": none fell
        #expect(forecast.utcOffsetSeconds == 10_800)
    }

    @Test("The 5 day / 3 hour forecast: 3-hour steps for 48 hours and local days, and the note that it is 5 days")
    func fiveDay() throws {
        let recorded = Timestamps.parseUTC("2025-03-20T18:27:56Z")!
        let forecast = try OpenWeatherMapDecoder.decode(
            current: nil, forecast: Self.data("forecast5-london-gb-standard-40entries-vcr-2025.json"),
            units: .standard, fetchedAt: recorded)
        #expect(forecast.coordinate == Coordinate(latitude: 51.5073, longitude: -0.1277))
        #expect(forecast.notes == [OpenWeatherMapDecoder.fiveDayNote])
        #expect(
            OpenWeatherMapDecoder.fiveDayNote
                == "openweathermap: the free 5 day / 3 hour forecast covers 5 days (not today + 6) in 3-hour steps")
        #expect(forecast.current == nil)

        #expect(forecast.hourly.count == 16)
        let first = try #require(forecast.hourly.first)
        #expect(first.time == Timestamps.parseUTC("2025-03-20T21:00:00Z"))
        #expect(approx(first.temperature, 14.87, tolerance: 1e-9))  // 288.02 K
        #expect(approx(first.windSpeed, 10.836, tolerance: 1e-9))
        #expect(approx(first.windGusts, 35.28, tolerance: 1e-9))
        #expect(first.condition == .partlyCloudy)
        #expect(first.isDay == false)
        #expect(first.cloudCover == 33)
        #expect(first.precipitationProbability == 0)
        #expect(first.precipitation == 0)
        #expect(first.pressure == 1017)
        #expect(
            forecast.hourly.allSatisfy {
                $0.time.timeIntervalSince(first.time).truncatingRemainder(dividingBy: 10_800) == 0
            })

        #expect(forecast.daily.map(\.date) == (20...25).map { "2025-03-\($0)" })
        let minima = [12.62, 10.31, 9.41, 8.02, 6.92, 4.13]
        let maxima = [14.87, 15.61, 12.61, 11.10, 11.37, 12.79]
        for (index, day) in forecast.daily.enumerated() {
            #expect(approx(day.temperatureMin, minima[index], tolerance: 1e-6), "\(day.date)")
            #expect(approx(day.temperatureMax, maxima[index], tolerance: 1e-6), "\(day.date)")
        }
        #expect(forecast.daily.map(\.condition) == [.partlyCloudy, .rain, .rain, .rain, .rain, .overcast])
        #expect(forecast.daily.map(\.precipitationProbability) == [0, 57, 100, 45, 20, 0])
        #expect(forecast.daily.map(\.precipitationSum) == [0, 0.32, 7.24, 0.3, 0.1, 0])
        // Sun events computed at London: about 06:00 and 18:15 UTC near the equinox.
        #expect(forecast.daily.allSatisfy { $0.sunrise != nil && $0.sunset != nil })
    }

    @Test("One Call 3.0: current, 48 hours, today + 6 days, alerts as notes")
    func oneCall() throws {
        let forecast = try OpenWeatherMapDecoder.decode(
            oneCall: Self.data("onecall-3.0-scottsdale-az-33.53--111.94-standard-vcr.json"), units: .standard,
            fetchedAt: Date(timeIntervalSince1970: 1_704_064_820))
        #expect(forecast.coordinate == Coordinate(latitude: 33.5312, longitude: -111.9426))
        #expect(forecast.timezone == "America/Phoenix")
        #expect(forecast.utcOffsetSeconds == -25_200)
        let current = try #require(forecast.current)
        #expect(approx(current.temperature, 16.05, tolerance: 1e-9))
        #expect(approx(current.dewPoint, 5.05, tolerance: 1e-9))
        #expect(current.uvIndex == 0.4)
        #expect(approx(current.windSpeed, 7.416, tolerance: 1e-9))
        #expect(current.condition == .clear)
        #expect(current.isDay == true)
        #expect(forecast.hourly.count == 48)
        #expect(approx(forecast.hourly[0].windGusts, 1.764, tolerance: 1e-9))
        #expect(forecast.daily.count == 7)
        let today = forecast.daily[0]
        #expect(today.date == "2023-12-31")
        #expect(approx(today.temperatureMin, 10.94, tolerance: 1e-9))
        #expect(approx(today.temperatureMax, 16.05, tolerance: 1e-9))
        #expect(today.condition == .partlyCloudy)
        #expect(today.uvIndexMax == 2.94)
        #expect(approx(today.windGustsMax, 13.752, tolerance: 1e-9))
        #expect(today.sunrise == Date(timeIntervalSince1970: 1_704_033_103))
        #expect(
            forecast.notes == [
                "openweathermap: alert: Air Quality Alert (NWS Phoenix (Central Arizona and California Desert)) until 2024-01-01T21:00:00-07:00"
            ])
    }

    @Test("A time far outside any forecast (sunrise 1.6e95, dt 1e19) is left out, not a crash (found by FuzzOpenWeatherMap)")
    func implausibleTimes() throws {
        var text = String(decoding: try Self.data("current-moscow-ru-imperial-lang-ru-vcr.json"), as: UTF8.self)
        let sunrise = try #require(text.range(of: #""sunrise":\d+"#, options: .regularExpression))
        text.replaceSubrange(sunrise, with: #""sunrise":1588297549777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"#)
        let forecast = try OpenWeatherMapDecoder.decode(
            current: Array(text.utf8), forecast: Array(#"{"cod":"200","list":[{"dt":1e19,"main":{"temp":50}}]}"#.utf8),
            units: .imperial, fetchedAt: Date(timeIntervalSince1970: 1_588_339_006))
        #expect(forecast.current != nil)
        #expect(forecast.hourly.isEmpty)
        #expect(forecast.daily.allSatisfy { $0.sunrise.map { Timestamps.plausibleUnixSeconds.contains($0.timeIntervalSince1970) } ?? true })
    }

    @Test("cod is read as a number or a string")
    func codTypes() throws {
        #expect(
            OpenWeatherMapDecoder.reportedError(
                JSONValue.parse(try Fixtures.data("openweathermap/error-401-invalid-api-key-vcr.json")))?.code == 401)
        #expect(
            OpenWeatherMapDecoder.reportedError(
                JSONValue.parse(try Fixtures.data("openweathermap/error-404-city-not-found.json")))?.code == 404)
        #expect(OpenWeatherMapDecoder.reportedError(JSONValue.parse(Data(#"{"cod":"200"}"#.utf8))) == nil)
        #expect(OpenWeatherMapDecoder.reportedError(JSONValue.parse(Data(#"{"cod":200}"#.utf8))) == nil)
    }

    static func provider(
        _ server: ReplayServer, _ client: HTTPClient, units: OpenWeatherMapDecoder.Units = .standard,
        oneCall: Bool = false, key: String = key, logger: Logger = Logger(label: "test")
    ) -> OpenWeatherMapProvider {
        OpenWeatherMapProvider(
            url: server.baseURL, apiKey: key, oneCall: oneCall, units: units,
            fetcher: .test(client: client, userAgent: "forecastd/0.2.0", logger: logger),
            now: { Timestamps.parseUTC("2025-03-20T18:27:56Z")! })
    }

    @Test("Two requests, metric units, the key in appid, and the key never in a log line")
    func overHTTP() async throws {
        try await withServer { server, client in
            let capture = LogCapture()
            let provider = OpenWeatherMapProvider(
                url: server.baseURL, apiKey: Self.key,
                fetcher: .test(client: client, userAgent: "forecastd/0.2.0", logger: capture.logger()),
                now: { Date(timeIntervalSince1970: 1_742_495_000) })
            server.setRoute(
                path: "/data/2.5/weather",
                .json(
                    #"{"coord":{"lon":2.35,"lat":48.85},"weather":[{"id":803,"icon":"04d"}],"main":{"temp":12.3,"humidity":70,"pressure":1015},"wind":{"speed":4,"deg":200},"dt":1742494800,"timezone":3600,"cod":200}"#
                ))
            server.setRoute(
                path: "/data/2.5/forecast",
                .json(
                    #"{"cod":"200","list":[{"dt":1742504400,"main":{"temp":10.5,"temp_min":10.5,"temp_max":10.5},"weather":[{"id":500,"icon":"10n"}],"wind":{"speed":2},"pop":0.4,"rain":{"3h":1.5}}],"city":{"coord":{"lat":48.85,"lon":2.35},"timezone":3600}}"#
                ))
            let forecast = try await provider.forecast(for: Coordinate(latitude: 48.8566, longitude: 2.3522))
            #expect(forecast.current?.temperature == 12.3)
            #expect(forecast.current?.windSpeed == 14.4)
            #expect(forecast.current?.condition == .overcast)
            #expect(forecast.hourly.first?.precipitation == 0.5)  // 1.5 mm over 3 hours
            #expect(forecast.daily.first?.temperatureMin == 10.5)
            #expect(forecast.daily.first?.temperatureMax == 12.3)

            let requests = server.requests()
            #expect(requests.map(\.path) == ["/data/2.5/weather", "/data/2.5/forecast"])
            for request in requests {
                #expect(request.query == ["lat": "48.8566", "lon": "2.3522", "units": "metric", "appid": Self.key])
                #expect(request.header("User-Agent") == "forecastd/0.2.0")
            }
            #expect(!capture.all.isEmpty)
            #expect(!capture.text.contains(Self.key))
            #expect(capture.text.contains("appid=REDACTED"))
        }
    }

    @Test("One Call: one request with exclude=minutely")
    func oneCallOverHTTP() async throws {
        try await withServer { server, client in
            server.setRoute(
                path: "/data/3.0/onecall",
                try .recorded("openweathermap/onecall-3.0-scottsdale-az-33.53--111.94-standard-vcr.json"))
            let forecast = try await Self.provider(server, client, oneCall: true)
                .forecast(for: Coordinate(latitude: 33.5312, longitude: -111.9426))
            #expect(forecast.hourly.count == 48)
            #expect(server.requests().count == 1)
            #expect(
                server.requests().first?.query
                    == [
                        "lat": "33.5312", "lon": "-111.9426", "units": "standard", "exclude": "minutely",
                        "appid": Self.key,
                    ])
        }
    }

    @Test("401, 404 and 429 bodies become clear errors that never show the key")
    func errorBodies() async throws {
        try await withServer { server, client in
            let capture = LogCapture()
            let provider = Self.provider(server, client, logger: capture.logger())
            let here = Coordinate(latitude: 51.5, longitude: -0.13)

            server.setRoute(
                path: "/data/2.5/weather", try .recorded("openweathermap/error-401-invalid-api-key-vcr.json"))
            let refused = await failure(provider, at: here)
            #expect(refused?.kind == .auth)
            #expect(
                refused?.message
                    == "openweathermap: the API key was refused (HTTP 401: Invalid API key. Please see http://openweathermap.org/faq#error401 for more info.); check [providers.openweathermap] api_key"
            )

            server.setRoute(
                path: "/data/2.5/weather", try .fixture("openweathermap/error-404-city-not-found.json", status: 404))
            let missing = await failure(provider, at: here)
            #expect(missing?.kind == .providerError)
            #expect(missing?.message == "openweathermap: HTTP 404: city not found")

            // The same body with a 200: the string cod decides.
            server.setRoute(path: "/data/2.5/weather", try .fixture("openweathermap/error-404-city-not-found.json"))
            #expect(await failure(provider, at: here)?.message == "openweathermap: HTTP 404: city not found")

            server.setRoute(
                path: "/data/2.5/weather",
                try .fixture(
                    "openweathermap/error-429-account-temporary-blocked.json", status: 429,
                    headers: [("Retry-After", "600")]))
            let blocked = await failure(provider, at: here)
            #expect(blocked?.kind == .rateLimited)
            #expect(blocked?.retryAfter == .seconds(600))
            #expect(blocked?.message.hasPrefix("openweathermap: HTTP 429: Your account is temporary blocked") == true)

            // Each failure stopped before the forecast request.
            #expect(server.requestCount(path: "/data/2.5/forecast") == 0)
            for error in [refused, missing, blocked] { #expect(error?.message.contains(Self.key) == false) }
            #expect(!capture.text.contains(Self.key))
        }
    }

    @Test("No key: refused before any request")
    func missingKey() async throws {
        try await withServer { server, client in
            let error = await failure(
                Self.provider(server, client, key: "  "), at: Coordinate(latitude: 1, longitude: 2))
            #expect(error?.kind == .auth)
            #expect(
                error?.message
                    == "openweathermap: no API key is set; set [providers.openweathermap] api_key or api_key_file")
            #expect(server.requests().isEmpty)
        }
    }
}
