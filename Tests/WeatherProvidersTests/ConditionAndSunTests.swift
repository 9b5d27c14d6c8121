import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import WeatherProviders

/// One condition model for three providers, and day/night from the sun where a provider is silent.
@Suite("Conditions and the sun")
struct ConditionAndSunTests {
    static let tromso = Coordinate(latitude: 69.6496, longitude: 18.956)
    static let berlin = Coordinate(latitude: 52.52, longitude: 13.405)
    static let equator = Coordinate(latitude: 0.0, longitude: 30.0)

    static func utc(_ text: String) throws -> Date { try #require(Timestamps.parseUTC(text)) }

    @Test("Tromsø: the midnight sun in June, no sunrise at all in December")
    func tromso() throws {
        // Local midnight (UTC+2) and the sun's lowest point (about 22:44 UTC): still above the horizon.
        #expect(Sun.isDay(at: try Self.utc("2026-06-21T22:00Z"), coordinate: Self.tromso))
        let lowest = Sun.elevation(at: try Self.utc("2026-06-20T22:44Z"), coordinate: Self.tromso)
        #expect(abs(lowest - 3.1) < 0.3)  // 69.65 + 23.44 - 90
        // Local noon in December (UTC+1), the sun's highest point (about 10:44 UTC): below the horizon.
        #expect(!Sun.isDay(at: try Self.utc("2026-12-21T11:00Z"), coordinate: Self.tromso))
        let highest = Sun.elevation(at: try Self.utc("2026-12-21T10:44Z"), coordinate: Self.tromso)
        #expect(abs(highest - -3.1) < 0.3)  // 90 - 69.65 - 23.44
        // Neither day has a sunrise or a sunset.
        let june = try #require(
            Sun.riseAndSet(localDate: "2026-06-21", utcOffsetSeconds: 7200, coordinate: Self.tromso))
        #expect(june.sunrise == nil && june.sunset == nil)
        let december = try #require(
            Sun.riseAndSet(localDate: "2026-12-21", utcOffsetSeconds: 3600, coordinate: Self.tromso))
        #expect(december.sunrise == nil && december.sunset == nil)
    }

    @Test("The equator: day at noon, night at midnight, about 12 hours of daylight")
    func equator() throws {
        // 30° E: local solar noon is 10:00 UTC.
        #expect(Sun.isDay(at: try Self.utc("2026-03-20T10:00Z"), coordinate: Self.equator))
        #expect(!Sun.isDay(at: try Self.utc("2026-03-20T22:00Z"), coordinate: Self.equator))
        #expect(Sun.elevation(at: try Self.utc("2026-03-20T10:00Z"), coordinate: Self.equator) > 85)
        let events = try #require(
            Sun.riseAndSet(localDate: "2026-03-20", utcOffsetSeconds: 7200, coordinate: Self.equator))
        let sunrise = try #require(events.sunrise)
        let sunset = try #require(events.sunset)
        let daylight = sunset.timeIntervalSince(sunrise)
        // 12 h plus about 7 minutes of refraction and the sun's disc.
        #expect(abs(daylight - 12 * 3600 - 7 * 60) < 180)
        #expect(abs(sunrise.timeIntervalSince(try Self.utc("2026-03-20T04:00Z"))) < 10 * 60)
    }

    @Test("Berlin in November: sunrise and sunset within 3 minutes of NOAA's solar calculator")
    func berlinSunEvents() throws {
        // NOAA: 2023-11-13 at 52.52° N, 13.405° E: sunrise 07:25, sunset 16:17 CET.
        let events = try #require(
            Sun.riseAndSet(localDate: "2023-11-13", utcOffsetSeconds: 3600, coordinate: Self.berlin))
        #expect(abs(try #require(events.sunrise).timeIntervalSince(try Self.utc("2023-11-13T06:25Z"))) < 180)
        #expect(abs(try #require(events.sunset).timeIntervalSince(try Self.utc("2023-11-13T15:17Z"))) < 180)
        #expect(Sun.riseAndSet(localDate: "13/11/2023", utcOffsetSeconds: 0, coordinate: Self.berlin) == nil)
    }

    @Test("Every MET Norway symbol in the published legend maps, with its day/night variants")
    func metNorwayLegend() throws {
        let legend = String(decoding: try Fixtures.data("met-norway/weathericons-legend.csv"), as: UTF8.self)
        let rows = legend.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",") }
        #expect(rows.count == 41)
        for row in rows {
            let base = row[0].trimmingCharacters(in: .whitespaces)
            if row[5].trimmingCharacters(in: .whitespaces) == "1" {
                for (suffix, isDay) in [("_day", true), ("_night", false), ("_polartwilight", false)] {
                    #expect(ConditionKind(metNorwaySymbol: base + suffix) != nil, "\(base + suffix)")
                    #expect(ConditionKind.metNorwayIsDay(base + suffix) == isDay, "\(base + suffix)")
                }
            } else {
                #expect(ConditionKind(metNorwaySymbol: base) != nil, "\(base)")
                #expect(ConditionKind.metNorwayIsDay(base) == nil, "\(base)")
            }
        }
        let expected: [String: ConditionKind] = [
            "clearsky_day": .clear, "fair_night": .mainlyClear, "partlycloudy_polartwilight": .partlyCloudy,
            "cloudy": .overcast, "fog": .fog, "lightrainshowers_day": .rainShowers, "heavyrain": .rain,
            "sleet": .sleet, "heavysleetshowers_night": .sleetShowers, "lightsnow": .snow,
            "snowshowers_day": .snowShowers, "rainandthunder": .thunderstorm,
            // The API's real misspellings and their correct forms.
            "lightssleetshowersandthunder_day": .thunderstorm, "lightsleetshowersandthunder_day": .thunderstorm,
            "lightssnowshowersandthunder_night": .thunderstorm, "lightsnowshowersandthunder_night": .thunderstorm,
        ]
        for (code, kind) in expected {
            #expect(ConditionKind(metNorwaySymbol: code) == kind, "\(code)")
        }
        #expect(ConditionKind(metNorwaySymbol: "sunny") == nil)
        #expect(ConditionKind(metNorwaySymbol: "") == nil)
    }

    @Test("Every OpenWeatherMap condition id maps, others do not; icons carry day and night")
    func openWeatherMapCodes() {
        let documented: Set<Int> = [
            200, 201, 202, 210, 211, 212, 221, 230, 231, 232, 300, 301, 302, 310, 311, 312, 313, 314, 321, 500, 501,
            502, 503, 504, 511, 520, 521, 522, 531, 600, 601, 602, 611, 612, 613, 615, 616, 620, 621, 622, 701, 711,
            721, 731, 741, 751, 761, 762, 771, 781, 800, 801, 802, 803, 804,
        ]
        for code in 0...999 {
            #expect((ConditionKind(openWeatherMapCode: code) != nil) == documented.contains(code), "OWM \(code)")
        }
        let expected: [Int: ConditionKind] = [
            211: .thunderstorm, 301: .drizzle, 500: .rain, 511: .freezingRain, 521: .rainShowers, 601: .snow,
            611: .sleet, 613: .sleetShowers, 621: .snowShowers, 701: .fog, 721: .haze, 771: .squall, 781: .tornado,
            800: .clear, 801: .mainlyClear, 802: .partlyCloudy, 804: .overcast,
        ]
        for (code, kind) in expected {
            #expect(ConditionKind(openWeatherMapCode: code) == kind, "OWM \(code)")
        }
        #expect(ConditionKind.openWeatherMapIsDay(icon: "01d") == true)
        #expect(ConditionKind.openWeatherMapIsDay(icon: "10n") == false)
        #expect(ConditionKind.openWeatherMapIsDay(icon: "50") == nil)
        // The new kinds have icons and never a sun at night.
        for kind in [ConditionKind.sleet, .sleetShowers, .haze, .squall, .tornado] {
            #expect(kind.condition(isDay: false).icon == kind.rawValue.replacingOccurrences(of: "_", with: "-"))
            #expect(!kind.condition(isDay: false).emoji.contains("☀"))
        }
    }

    @Test("A day's condition is its most severe")
    func severity() {
        #expect(ConditionKind.thunderstorm.severity > ConditionKind.rain.severity)
        #expect(ConditionKind.rain.severity > ConditionKind.rainShowers.severity)
        #expect(ConditionKind.rainShowers.severity > ConditionKind.overcast.severity)
        #expect(ConditionKind.overcast.severity > ConditionKind.clear.severity)
        #expect(Set(ConditionKind.allCases.map(\.severity)).count == ConditionKind.allCases.count)
    }

    @Test("A forecast saved before notes and the new fields existed still decodes")
    func oldForecastDecodes() throws {
        let old = """
            {"provider":"open-meteo","attribution":"x","coordinate":{"latitude":1,"longitude":2},"fetchedAt":0,
             "utcOffsetSeconds":0,"hourly":[{"time":0,"temperature":3}],"daily":[{"date":"2026-01-01"}]}
            """
        let forecast = try JSONDecoder().decode(Forecast.self, from: Data(old.utf8))
        #expect(forecast.notes.isEmpty)
        #expect(forecast.hourly.first?.temperature == 3)
        #expect(forecast.hourly.first?.dewPoint == nil)

        var copy = forecast
        copy.notes = ["a note"]
        copy.hourly[0].windGusts = 40
        copy.daily[0].uvIndexMax = 6.5
        let again = try JSONDecoder().decode(Forecast.self, from: JSONEncoder().encode(copy))
        #expect(again == copy)
    }
}
