import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// The nowcast's data from the providers: Open-Meteo's `minutely_15` in the forecast's own request,
/// where it is a 15-minute model's output, and MET Norway's `next_1_hours` when it serves instead.
@Suite("Nowcast data from the providers", .timeLimit(.minutes(3)))
struct NowcastProviderTests {
    static let berlinFixture = "open-meteo/forecast-berlin-current-minutely15-hourly-daily-weather_code-gmt.json"
    static let forecastPath = "/v1/forecast"
    static let berlin = Coordinate(latitude: 52.52, longitude: 13.41)
    /// 10:50 GMT on the day of the Berlin recording (its current conditions are from 10:45).
    static let berlinNow = Timestamps.parseUTC("2023-11-13T10:50:00Z")!

    /// The recorded Berlin answer (asked with `minutely_15=weather_code`) with a `precipitation` column
    /// added to its `minutely_15` block, as asking for `minutely_15=precipitation` brings: dry but for
    /// 0.6 mm until 11:15 and 0.9 mm until 11:30 (2.4 and 3.6 mm/h). Everything else is as recorded.
    static func berlinWithRain() throws -> String {
        let data = try Fixtures.data(berlinFixture)
        var body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var block = try #require(body["minutely_15"] as? [String: Any])
        let times = try #require(block["time"] as? [String])
        block["precipitation"] = times.map { time -> Double in
            switch time {
            case "2023-11-13T11:15": 0.6
            case "2023-11-13T11:30": 0.9
            default: 0
            }
        }
        body["minutely_15"] = block
        var units = try #require(body["minutely_15_units"] as? [String: Any])
        units["precipitation"] = "mm"
        body["minutely_15_units"] = units
        let text = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return String(decoding: text, as: UTF8.self)
    }

    static func openMeteo(_ server: ReplayServer, _ client: HTTPClient, query: String? = nil) -> OpenMeteoProvider {
        var url = server.url(forecastPath)
        if let query { url = URL(string: url.absoluteString + "?" + query)! }
        return OpenMeteoProvider(
            url: url, fetcher: .test(client: client, userAgent: "forecastd/test (+mailto:ops@example.org)"),
            now: { berlinNow })
    }

    @Test("One request carries the forecast and the nowcast's quarter hours")
    func oneRequest() async throws {
        try await withServer { server, client in
            server.setRoute(path: Self.forecastPath, .json(try Self.berlinWithRain()))
            let forecast = try await Self.openMeteo(server, client).forecast(for: Self.berlin)

            #expect(server.requestCount(path: Self.forecastPath) == 1)
            let query = try #require(server.requests().first).query
            #expect(query["minutely_15"] == "precipitation")
            #expect(query["forecast_minutely_15"] == "12")
            #expect(query["current"] != nil && query["hourly"] != nil && query["daily"] != nil)

            #expect(forecast.current?.time == Timestamps.parseUTC("2023-11-13T10:45:00Z"))
            #expect(forecast.hourly.count == 168)
            #expect(forecast.daily.count == 7)
            let series = try #require(forecast.shortTerm)
            // 288 recorded quarter hours, of which the first day's 96 are kept.
            #expect(series.periods.count == 96)
            // The first value, at 00:00, is the sum of the 15 minutes before it.
            #expect(series.periods[0].start == Timestamps.parseUTC("2023-11-12T23:45:00Z"))
            #expect(series.periods[0].end == Timestamps.parseUTC("2023-11-13T00:00:00Z"))
            // Berlin lies in ICON-D2's area: Open-Meteo's 15-minute precipitation is the model's own.
            #expect(series.interpolated == false)

            let nowcast = try #require(Nowcast.judge(forecast, now: Self.berlinNow))
            #expect(nowcast.startsAt == Timestamps.parseUTC("2023-11-13T11:00:00Z"))
            #expect(nowcast.stopsAt == Timestamps.parseUTC("2023-11-13T11:30:00Z"))
            #expect(nowcast.intensity == .moderate)
            #expect(!nowcast.interpolated)
            let gmt = try #require(forecast.timezone.flatMap(TimeZone.init(identifier:)))
            #expect(nowcast.text(now: Self.berlinNow, timeZone: gmt) == "Rain in 10 min (moderate), until about 11:30")
        }
    }

    @Test("The recorded answer without a precipitation column decodes whole, with no short-term data")
    func recordedShape() throws {
        let forecast = try OpenMeteoDecoder.decode(Fixtures.data(Self.berlinFixture), fetchedAt: Self.berlinNow)
        #expect(forecast.shortTerm == nil)
        #expect(forecast.current?.condition == .overcast)
        #expect(forecast.hourly.count == 168)
        #expect(Nowcast.judge(forecast, now: Self.berlinNow) == nil)
    }

    @Test("A configured choice of models makes the quarter hours interpolated, best_match does not")
    func chosenModels() async throws {
        try await withServer { server, client in
            server.setRoute(path: Self.forecastPath, .json(try Self.berlinWithRain()))
            let chosen = try await Self.openMeteo(server, client, query: "models=gfs_global").forecast(for: Self.berlin)
            #expect(chosen.shortTerm?.interpolated == true)
            let best = try await Self.openMeteo(server, client, query: "models=best_match").forecast(for: Self.berlin)
            #expect(best.shortTerm?.interpolated == false)
        }
    }

    @Test("Where Open-Meteo's 15-minute precipitation is a model's own: ICON-D2, AROME, HRRR areas")
    func nativeAreas() {
        let native: [(String, Double, Double)] = [
            ("Berlin", 52.52, 13.41), ("Vienna", 48.21, 16.37), ("Copenhagen", 55.68, 12.57),
            ("Paris", 48.86, 2.35), ("Madrid", 40.42, -3.70), ("Rome", 41.90, 12.50),
            ("New York", 40.71, -74.01), ("Seattle", 47.61, -122.33), ("Miami", 25.76, -80.19),
            ("Toronto", 43.65, -79.38), ("Monterrey", 25.67, -100.31),
        ]
        let interpolated: [(String, Double, Double)] = [
            ("Oslo", 59.91, 10.75), ("Helsinki", 60.17, 24.94), ("Athens", 37.98, 23.73), ("Reykjavik", 64.15, -21.94),
            ("Anchorage", 61.22, -149.90), ("Honolulu", 21.31, -157.86), ("Mexico City", 19.43, -99.13),
            ("Edmonton", 53.55, -113.49), ("Tokyo", 35.68, 139.69), ("Sydney", -33.87, 151.21),
            ("Cape Town", -33.92, 18.42), ("Buenos Aires", -34.60, -58.38),
        ]
        for (name, latitude, longitude) in native {
            #expect(OpenMeteoQuarterHour.isNative(at: Coordinate(latitude: latitude, longitude: longitude)), "\(name)")
        }
        for (name, latitude, longitude) in interpolated {
            #expect(!OpenMeteoQuarterHour.isNative(at: Coordinate(latitude: latitude, longitude: longitude)), "\(name)")
        }
        #expect(!OpenMeteoQuarterHour.isNative(at: Coordinate(latitude: .nan, longitude: 10)))
    }

    @Test("HRRR's projection puts its grid corners 3 km apart, as NOAA defines it")
    func hrrrGridSpacing() {
        let grid = OpenMeteoQuarterHour.HRRRGrid.self
        // Earth radius of NCEP's sphere, 6371.229 km; 1798 × 1058 steps between the corners.
        let dx = (grid.northEast.x - grid.southWest.x) * 6_371_229 / 1798
        let dy = (grid.northEast.y - grid.southWest.y) * 6_371_229 / 1058
        #expect(abs(dx - 3000) < 1)
        #expect(abs(dy - 3000) < 1)
    }

    /// The recorded New York answer with rain added in two of its hours (`next_1_hours` of 12:00 and
    /// 13:00 UTC: 3.0 and 1.0 mm, chances 80 and 60 %); everything else as recorded (which has no rain).
    static func newYorkWithRain() throws -> String {
        let wrapper = try #require(
            try JSONSerialization.jsonObject(with: Fixtures.data(MetNorwayTests.fixture)) as? [String: Any])
        var data = try #require(wrapper["data"] as? [String: Any])
        var properties = try #require(data["properties"] as? [String: Any])
        var series = try #require(properties["timeseries"] as? [[String: Any]])
        let rain: [String: (Double, Double)] = ["2020-07-20T12:00:00Z": (3.0, 80), "2020-07-20T13:00:00Z": (1.0, 60)]
        for index in series.indices {
            guard let time = series[index]["time"] as? String, let (amount, chance) = rain[time] else { continue }
            var step = try #require(series[index]["data"] as? [String: Any])
            step["next_1_hours"] = [
                "summary": ["symbol_code": "rain"],
                "details": ["precipitation_amount": amount, "probability_of_precipitation": chance],
            ]
            series[index]["data"] = step
        }
        properties["timeseries"] = series
        data["properties"] = properties
        return String(decoding: try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("MET Norway's recorded answer: four hourly periods from now, marked interpolated, and dry")
    func metNorwayPeriods() throws {
        let forecast = try MetNorwayDecoder.decode(
            ReplayResponse.wrapped(MetNorwayTests.fixture).body, fetchedAt: MetNorwayTests.recordedAt,
            now: MetNorwayTests.recordedAt, timeZone: MetNorwayTests.newYork)
        let series = try #require(forecast.shortTerm)
        #expect(series.interpolated)
        #expect(series.periods.map(\.start) == (11...14).map { Timestamps.parseUTC("2020-07-20T\($0):00:00Z")! })
        #expect(series.periods.allSatisfy { $0.duration == 3600 && $0.amount == 0 })
        #expect(Nowcast.judge(forecast, now: MetNorwayTests.recordedAt) == nil)
    }

    @Test("When Open-Meteo is down and MET Norway serves, the nowcast comes from next_1_hours")
    func metNorwayFallback() async throws {
        try await withServer { server, client in
            let logger = Logger(label: "test")
            let clock = ManualClock(MetNorwayTests.recordedAt)
            let openMeteo = OpenMeteoProvider(
                url: server.url(Self.forecastPath), fetcher: .test(client: client, logger: logger), now: { clock.now })
            let metNorway = MetNorwayProvider(
                url: server.url(MetNorwayTests.path), contact: "+mailto:ops@example.org",
                fetcher: .test(client: client, userAgent: "forecastd/test (+mailto:ops@example.org)", logger: logger),
                logger: logger, timeZone: { _ in MetNorwayTests.newYork },
                now: { clock.now })
            let chain = ProviderChain(
                providers: [openMeteo, metNorway], coordinatePrecision: 2, logger: logger, now: { clock.now })
            server.setRoute(path: Self.forecastPath, .html("<html><h1>502 Bad Gateway</h1></html>"))
            server.setRoute(path: MetNorwayTests.path, .json(try Self.newYorkWithRain()))

            let outcome = await chain.fetch(for: Coordinate(latitude: 40.7128, longitude: -74.006))
            let forecast = try #require(outcome.forecast)
            #expect(forecast.provider == "met-norway")
            #expect(outcome.failures.map(\.provider) == ["open-meteo"])
            #expect(server.requestCount(path: Self.forecastPath) == 1)
            #expect(server.requestCount(path: MetNorwayTests.path) == 1)

            let now = MetNorwayTests.recordedAt  // 11:44:31 UTC, 07:44 in New York
            let nowcast = try #require(Nowcast.judge(forecast, now: now))
            #expect(nowcast.interpolated)
            #expect(!nowcast.isOngoing)
            #expect(nowcast.startsAt == Timestamps.parseUTC("2020-07-20T12:00:00Z"))
            #expect(nowcast.stopsAt == Timestamps.parseUTC("2020-07-20T14:00:00Z"))
            #expect(nowcast.intensity == .moderate)
            #expect(nowcast.probability == 80)
            #expect(
                nowcast.text(now: now, timeZone: MetNorwayTests.newYork)
                    == "Rain in 15 min (moderate), until about 10:00")
        }
    }
}
