import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import WeatherProviders

/// The recorded Open-Meteo bodies decode to the values a reader would see, in canonical metric units.
@Suite("Open-Meteo decoder")
struct OpenMeteoDecoderTests {
    static let fetchedAt = Date(timeIntervalSince1970: 1_789_460_000)

    static func decodeFixture(_ name: String) throws -> Forecast {
        try OpenMeteoDecoder.decode(Fixtures.data("open-meteo/\(name)"), fetchedAt: fetchedAt)
    }

    static func approx(_ value: Double?, _ expected: Double, tolerance: Double = 0.01) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= tolerance
    }

    @Test("Samara: metric with wind in m/s, UTC+4, current and 7 days")
    func samara() throws {
        let forecast = try Self.decodeFixture("forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json")
        #expect(forecast.provider == "open-meteo")
        #expect(forecast.attribution == "Weather data by Open-Meteo.com (CC BY 4.0)")
        #expect(forecast.coordinate == Coordinate(latitude: 53.1875, longitude: 50.125))
        #expect(forecast.utcOffsetSeconds == 14_400)
        #expect(forecast.timezone == "Europe/Samara")
        #expect(forecast.fetchedAt == Self.fetchedAt)

        let current = try #require(forecast.current)
        // 12:00 local at UTC+4 is 08:00 UTC.
        #expect(current.time == Date(timeIntervalSince1970: 1_789_459_200))
        #expect(current.temperature == 18.5)
        #expect(current.apparentTemperature == 18.5)
        #expect(current.humidity == 78)
        #expect(Self.approx(current.windSpeed, 10.8, tolerance: 1e-9))  // 3.00 m/s
        #expect(current.windDirection == 90)
        #expect(current.pressure == 1017.0)
        #expect(current.condition == .overcast)
        #expect(current.isDay == true)
        #expect(current.precipitation == nil)  // not in this body

        #expect(forecast.hourly.isEmpty)
        #expect(forecast.daily.map(\.date) == (15...21).map { "2026-09-\($0)" })
        #expect(forecast.daily.map(\.temperatureMax) == [19.8, 21.4, 16.6, 17.6, 18.8, 21.0, 21.4])
        #expect(forecast.daily.map(\.temperatureMin) == [13.3, 15.3, 12.1, 10.3, 8.7, 11.9, 13.7])
        #expect(forecast.daily.map(\.precipitationProbability) == [30, 53, 10, 0, 0, 5, 6])
        #expect(
            forecast.daily.map(\.condition)
                == [.overcast, .rainShowers, .overcast, .fog, .fog, .overcast, .overcast])
        #expect(forecast.daily.allSatisfy { $0.sunrise == nil && $0.precipitationSum == nil })
    }

    @Test("Bromsgrove: Fahrenheit is converted to Celsius everywhere, km/h kept")
    func bromsgrove() throws {
        let forecast = try Self.decodeFixture(
            "forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json")
        #expect(forecast.coordinate == Coordinate(latitude: 52.34, longitude: -2.06))
        #expect(forecast.timezone == "Europe/London")
        #expect(forecast.utcOffsetSeconds == 0)

        let current = try #require(forecast.current)
        #expect(current.time == Date(timeIntervalSince1970: 1_771_853_400))  // 2026-02-23T13:30Z
        #expect(Self.approx(current.temperature, 11.833))  // 53.3 °F
        #expect(current.windSpeed == 20.3)
        #expect(current.windDirection == 245)
        #expect(current.condition == .overcast)
        #expect(current.isDay == true)

        #expect(forecast.hourly.count == 168)
        let first = forecast.hourly[0]
        #expect(first.time == Timestamps.parseUTC("2026-02-23T00:00Z"))
        #expect(Self.approx(first.temperature, 7.944))  // 46.3 °F
        #expect(first.isDay == false)
        #expect(first.precipitationProbability == 0)
        #expect(first.windSpeed == 12.5)
        #expect(first.windDirection == 213)
        let afternoon = forecast.hourly[13]
        #expect(Self.approx(afternoon.temperature, 12.0))  // 53.6 °F
        #expect(afternoon.isDay == true)
        #expect(afternoon.precipitationProbability == 5)
        let last = try #require(forecast.hourly.last)
        #expect(last.time == Timestamps.parseUTC("2026-03-01T23:00Z"))
        #expect(Self.approx(last.temperature, 6.999))  // 44.6 °F
        #expect(last.precipitationProbability == 37)
        // Hours are consecutive: no step was dropped.
        #expect(
            zip(forecast.hourly, forecast.hourly.dropFirst()).allSatisfy { $1.time.timeIntervalSince($0.time) == 3600 })

        #expect(forecast.daily.count == 7)
        #expect(forecast.daily.first?.date == "2026-02-23")
        #expect(forecast.daily.last?.date == "2026-03-01")
        let maxima = [53.6, 53.9, 57.2, 52.4, 51.8, 48.4, 48.0].map(CanonicalUnits.celsius(fromFahrenheit:))
        let minima = [45.8, 46.6, 46.1, 47.5, 41.2, 39.3, 40.6].map(CanonicalUnits.celsius(fromFahrenheit:))
        #expect(forecast.daily.map(\.temperatureMax) == maxima)
        #expect(forecast.daily.map(\.temperatureMin) == minima)
        #expect(Self.approx(forecast.daily[2].temperatureMax, 14.0))  // 57.2 °F
        #expect(forecast.daily.map(\.condition) == [.rain, .overcast, .overcast, .rainShowers, .rain, .rain, .rain])
    }

    @Test("Berlin: GMT, weather codes only, the 15-minute section is ignored")
    func berlin() throws {
        let forecast = try Self.decodeFixture("forecast-berlin-current-minutely15-hourly-daily-weather_code-gmt.json")
        #expect(forecast.utcOffsetSeconds == 0)
        #expect(forecast.timezone == "GMT")
        #expect(forecast.coordinate == Coordinate(latitude: 52.52, longitude: 13.419998))

        let current = try #require(forecast.current)
        #expect(current.time == Date(timeIntervalSince1970: 1_699_872_300))  // 2023-11-13T10:45Z
        #expect(current.condition == .overcast)
        #expect(current.temperature == nil)
        // No is_day in this body: computed from the sun at 52.52° N, 13.42° E, 10:45 UTC in November.
        #expect(current.isDay == true)
        // Midnight and noon UTC of the first day, the same way.
        #expect(forecast.hourly[0].isDay == false)
        #expect(forecast.hourly[12].isDay == true)

        #expect(forecast.hourly.count == 168)
        #expect(forecast.hourly.first?.time == Date(timeIntervalSince1970: 1_699_833_600))
        #expect(forecast.hourly.last?.time == Date(timeIntervalSince1970: 1_700_434_800))
        #expect(forecast.hourly.prefix(3).map(\.condition) == [.partlyCloudy, .overcast, .overcast])
        #expect(forecast.hourly[5].condition == .mainlyClear)
        #expect(forecast.hourly.allSatisfy { $0.temperature == nil && $0.windSpeed == nil })

        #expect(forecast.daily.map(\.date) == (13...19).map { "2023-11-\($0)" })
        #expect(
            forecast.daily.map(\.condition) == [
                .rainShowers, .rainShowers, .rainShowers, .rainShowers, .rainShowers, .rain, .rain,
            ])
        #expect(forecast.daily.allSatisfy { $0.temperatureMax == nil })
    }

    @Test("The 400 and 429 error bodies are refused as bad responses with their reason")
    func errorBodies() throws {
        for (name, reason) in [
            ("error-400-latitude-out-of-range.json", "Latitude must be in range of -90 to 90°. Given: 999.0."),
            ("error-429-daily-limit.json", "Daily API request limit exceeded. Please try again tomorrow."),
        ] {
            let error = #expect(throws: ProviderError.self) {
                try OpenMeteoDecoder.decode(Fixtures.data("open-meteo/\(name)"), fetchedAt: Self.fetchedAt)
            }
            #expect(error?.kind == .badResponse)
            #expect(error?.message == "open-meteo: the response reports an error: \(reason)")
        }
    }

    @Test("A body that is not JSON, or has no data, is a bad response")
    func unusableBodies() {
        let cases: [(String, String)] = [
            ("<html><body><h1>502 Bad Gateway</h1></body></html>", "open-meteo: the response is not JSON"),
            ("", "open-meteo: the response is not JSON"),
            (#"{"latitude":52.5,"longitude":13.4,"#, "open-meteo: the response is not JSON"),
            ("[1,2,3]", "open-meteo: the response is JSON but not an object"),
            (
                #"{"latitude":52.5,"longitude":13.4,"utc_offset_seconds":0,"generationtime_ms":0.1}"#,
                "open-meteo: the response has no current, hourly or daily data"
            ),
            (
                #"{"latitude":52.5,"longitude":13.4,"hourly":{"time":[]},"daily":{"time":null},"current":{"temperature_2m":3}}"#,
                "open-meteo: the response has no current, hourly or daily data"
            ),
            (
                #"{"current":{"time":"2026-09-15T12:00"}}"#,
                "open-meteo: the response has no valid latitude and longitude"
            ),
        ]
        for (body, message) in cases {
            let error = #expect(throws: ProviderError.self, "body: \(body)") {
                try OpenMeteoDecoder.decode(Array(body.utf8), fetchedAt: Self.fetchedAt)
            }
            #expect(error?.kind == .badResponse)
            #expect(error?.message == message)
        }
    }

    @Test("Nulls and out-of-range values become nil for that value only")
    func nullsAndRanges() throws {
        let body = """
            {"latitude":60.0,"longitude":10.0,"utc_offset_seconds":3600,"timezone":"Europe/Oslo",
             "current_units":{"temperature_2m":"°C","wind_speed_10m":"km/h"},
             "current":{"time":"2026-01-10T09:00","temperature_2m":null,"apparent_temperature":-120.0,
                        "relative_humidity_2m":104,"wind_speed_10m":-3,"wind_direction_10m":200,
                        "pressure_msl":1003.5,"precipitation":0.2,"weather_code":null,"is_day":0},
             "hourly":{"time":["2026-01-10T09:00","2026-01-10T10:00","2026-01-10T11:00"],
                       "temperature_2m":[-5.5,null,85.0],
                       "relative_humidity_2m":[90,-1,null],
                       "precipitation_probability":[10,101,null],
                       "precipitation":[0.0,-0.1,1.2],
                       "wind_speed_10m":[5.0,"7.5",null],
                       "weather_code":[71,1234,3.5],
                       "is_day":[0,1,7]},
             "daily":{"time":["2026-01-10","2026-01-11"],
                      "temperature_2m_max":[-2.0,null],"temperature_2m_min":[-9.0,-150],
                      "sunrise":["2026-01-10T09:10",null],"sunset":["2026-01-10T15:30","garbage"],
                      "precipitation_sum":[1.5,-2],"wind_speed_10m_max":[20,null]}}
            """
        let forecast = try OpenMeteoDecoder.decode(Array(body.utf8), fetchedAt: Self.fetchedAt)

        let current = try #require(forecast.current)
        #expect(current.time == Timestamps.parseUTC("2026-01-10T08:00Z"))
        #expect(current.temperature == nil)
        #expect(current.apparentTemperature == nil)  // -120 °C is not weather
        #expect(current.humidity == nil)  // 104 %
        #expect(current.windSpeed == nil)  // negative
        #expect(current.windDirection == 200)
        #expect(current.pressure == 1003.5)
        #expect(current.precipitation == 0.2)
        #expect(current.condition == nil)
        #expect(current.isDay == false)

        #expect(forecast.hourly.count == 3)
        #expect(forecast.hourly.map(\.temperature) == [-5.5, nil, nil])
        #expect(forecast.hourly.map(\.humidity) == [90, nil, nil])
        #expect(forecast.hourly.map(\.precipitationProbability) == [10, nil, nil])
        #expect(forecast.hourly.map(\.precipitation) == [0.0, nil, 1.2])
        #expect(forecast.hourly.map(\.windSpeed) == [5.0, 7.5, nil])  // a quoted number still counts
        #expect(forecast.hourly.map(\.condition) == [.snow, nil, nil])
        // 7 is not a boolean: that hour's day/night comes from the day's sunrise (08:10Z) and sunset (14:30Z).
        #expect(forecast.hourly.map(\.isDay) == [false, true, true])

        #expect(forecast.daily.map(\.temperatureMax) == [-2.0, nil])
        #expect(forecast.daily.map(\.temperatureMin) == [-9.0, nil])
        #expect(forecast.daily.map(\.precipitationSum) == [1.5, nil])
        #expect(forecast.daily.map(\.windSpeedMax) == [20, nil])
        #expect(forecast.daily[0].sunrise == Timestamps.parseUTC("2026-01-10T08:10Z"))
        #expect(forecast.daily[0].sunset == Timestamps.parseUTC("2026-01-10T14:30Z"))
        #expect(forecast.daily[1].sunrise == nil)
        #expect(forecast.daily[1].sunset == nil)
    }

    @Test("A parallel array of the wrong length drops that field for every step, nothing else")
    func shortAndLongArrays() throws {
        let body = """
            {"latitude":48.0,"longitude":2.0,"utc_offset_seconds":0,
             "hourly":{"time":["2026-05-01T00:00","2026-05-01T01:00","2026-05-01T02:00"],
                       "temperature_2m":[10.0,11.0],
                       "relative_humidity_2m":[70,71,72,73],
                       "wind_speed_10m":[3.0,4.0,5.0],
                       "weather_code":"not an array"},
             "daily":{"time":["2026-05-01","2026-05-02"],
                      "temperature_2m_max":[18.0],
                      "temperature_2m_min":[8.0,9.0]}}
            """
        let forecast = try OpenMeteoDecoder.decode(Array(body.utf8), fetchedAt: Self.fetchedAt)
        #expect(forecast.current == nil)
        #expect(forecast.hourly.count == 3)
        #expect(forecast.hourly.allSatisfy { $0.temperature == nil && $0.humidity == nil && $0.condition == nil })
        #expect(forecast.hourly.map(\.windSpeed) == [3.0, 4.0, 5.0])
        #expect(forecast.daily.map(\.temperatureMax) == [nil, nil])
        #expect(forecast.daily.map(\.temperatureMin) == [8.0, 9.0])
    }

    @Test("Every unit Open-Meteo can be asked for is converted to canonical metric")
    func unitConversions() throws {
        func hourly(_ field: String, _ unit: String, _ value: Double) throws -> HourlyForecast {
            let body = """
                {"latitude":1.5,"longitude":2.5,"hourly_units":{"\(field)":"\(unit)"},
                 "hourly":{"time":["2026-05-01T00:00"],"\(field)":[\(value)]}}
                """
            return try #require(OpenMeteoDecoder.decode(Array(body.utf8), fetchedAt: Self.fetchedAt).hourly.first)
        }
        #expect(Self.approx(try hourly("temperature_2m", "°F", 98.6).temperature, 37))
        #expect(Self.approx(try hourly("temperature_2m", "°C", -3).temperature, -3))
        #expect(Self.approx(try hourly("wind_speed_10m", "m/s", 10).windSpeed, 36))
        #expect(Self.approx(try hourly("wind_speed_10m", "mp/h", 10).windSpeed, 16.09344))
        #expect(Self.approx(try hourly("wind_speed_10m", "mph", 10).windSpeed, 16.09344))
        #expect(Self.approx(try hourly("wind_speed_10m", "kn", 10).windSpeed, 18.52))
        #expect(Self.approx(try hourly("precipitation", "inch", 0.5).precipitation, 12.7))
        #expect(Self.approx(try hourly("precipitation", "mm", 0.5).precipitation, 0.5))
        // A unit nobody documented is not guessed at.
        #expect(try hourly("temperature_2m", "°Ré", 10).temperature == nil)
        #expect(try hourly("wind_speed_10m", "furlongs/fortnight", 10).windSpeed == nil)
    }

    @Test("Unix-time answers (timeformat=unixtime) decode the same instants")
    func unixTime() throws {
        let body = """
            {"latitude":53.1875,"longitude":50.125,"utc_offset_seconds":14400,
             "current":{"time":1789459200,"temperature_2m":18.5},
             "daily":{"time":[1789416000],"sunrise":[1789437600]}}
            """
        let forecast = try OpenMeteoDecoder.decode(Array(body.utf8), fetchedAt: Self.fetchedAt)
        #expect(forecast.current?.time == Date(timeIntervalSince1970: 1_789_459_200))
        #expect(forecast.current?.temperature == 18.5)
        #expect(forecast.daily.first?.date == "2026-09-15")
        #expect(forecast.daily.first?.sunrise == Date(timeIntervalSince1970: 1_789_437_600))
    }
}

@Suite("Open-Meteo place search answers")
struct OpenMeteoGeocoderTests {
    @Test("the recorded searches decode to places with region, country and population; no match is an empty list")
    func recordedSearches() throws {
        let paris = try OpenMeteoGeocoder.decode(Fixtures.data("open-meteo/geocoding-search-paris.json"))
        #expect(paris.count == 10)
        #expect(paris[0].name == "Paris")
        #expect(paris[0].admin1 == "Île-de-France")
        #expect(paris[0].countryCode == "FR")
        #expect(paris[0].country == "France")
        #expect(paris[0].population == 2_138_551)
        #expect(paris[0].coordinate == Coordinate(latitude: 48.85341, longitude: 2.3488))
        #expect(paris[0].timezone == "Europe/Paris")

        let hollywood = try OpenMeteoGeocoder.decode(Fixtures.data("open-meteo/geocoding-search-hollywood.json"))
        #expect(hollywood.filter { $0.admin1 == "Alabama" }.map(\.population) == [974, 930])
        #expect(hollywood.first { $0.admin1 == "Maryland" }?.population == 0)

        #expect(try OpenMeteoGeocoder.decode(Fixtures.data("open-meteo/geocoding-search-no-results.json")).isEmpty)
    }

    @Test("HTML and error bodies are errors; entries without a position are skipped")
    func badAnswers() {
        #expect(throws: ProviderError.self) { try OpenMeteoGeocoder.decode(Array("<html>502</html>".utf8)) }
        #expect(throws: ProviderError.self) {
            try OpenMeteoGeocoder.decode(Array(#"{"error":true,"reason":"Parameter count must be between 1 and 100."}"#.utf8))
        }
        let places = try? OpenMeteoGeocoder.decode(
            Array(#"{"results":[{"name":"Nowhere"},{"name":"Null","latitude":0,"longitude":0},{"name":"Ok","latitude":1.5,"longitude":2.5}]}"#.utf8))
        #expect(places?.map(\.name) == ["Ok"])
    }
}
