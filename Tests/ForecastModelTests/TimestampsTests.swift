import ForecastModel
import Foundation
import Testing

@Suite("Timestamps")
struct TimestampsTests {
    @Test("RFC 3339 with and without an offset")
    func formatting() {
        let date = Date(timeIntervalSince1970: 1_763_787_600)  // 2025-11-22T05:00:00Z
        #expect(Timestamps.rfc3339(date) == "2025-11-22T05:00:00Z")
        #expect(Timestamps.rfc3339(date, utcOffsetSeconds: 3600) == "2025-11-22T06:00:00+01:00")
        #expect(Timestamps.rfc3339(date, utcOffsetSeconds: -10_800) == "2025-11-22T02:00:00-03:00")
        #expect(Timestamps.rfc3339(date, utcOffsetSeconds: 19_800) == "2025-11-22T10:30:00+05:30")
        #expect(Timestamps.localDate(date, utcOffsetSeconds: -6 * 3600) == "2025-11-21")
    }

    @Test("local provider times are read at the location's offset")
    func parsingLocal() throws {
        let noon = try #require(Timestamps.parseLocal("2026-09-15T12:00", utcOffsetSeconds: 14_400))
        #expect(Timestamps.rfc3339(noon) == "2026-09-15T08:00:00Z")
        let midnight = try #require(Timestamps.parseLocal("2026-09-15", utcOffsetSeconds: 0))
        #expect(Timestamps.rfc3339(midnight) == "2026-09-15T00:00:00Z")
        #expect(Timestamps.parseUTC("2026-09-15T12:00:30.250+02:00").map { Timestamps.rfc3339($0) } == "2026-09-15T10:00:30Z")
    }

    @Test("malformed times are rejected, not guessed", arguments: ["", "2026-13-01", "2026-09-15T25:00", "15/09/2026", "2026-09-15T12:00junk", "2026-9-15"])
    func malformed(text: String) {
        #expect(Timestamps.parseUTC(text) == nil)
    }

    @Test("round trip over centuries, leap days and negative years")
    func roundTrip() throws {
        for seconds in stride(from: -62_000_000_000, through: 32_000_000_000, by: 86_399 * 97) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = Timestamps.rfc3339(date)
            if seconds >= -62_135_596_800 {  // year 1 and later: four-digit years
                #expect(Timestamps.parseUTC(text) == date, "\(text)")
            }
        }
        #expect(Timestamps.parseUTC("2024-02-29T00:00:00Z") != nil)
    }
}

@Suite("Coordinates and units")
struct CoordinateTests {
    @Test("great-circle distances match known values")
    func distances() {
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.distanceKm(to: london) - 343.5) < 1)
        // Across the antimeridian the short way round.
        let a = Coordinate(latitude: 0, longitude: 179.5)
        let b = Coordinate(latitude: 0, longitude: -179.5)
        #expect(abs(a.distanceKm(to: b) - 111.2) < 0.5)
        #expect(paris.distanceKm(to: paris) == 0)
    }

    @Test("(0, 0), NaN and out-of-range positions are not plausible")
    func plausibility() {
        #expect(!Coordinate(latitude: 0, longitude: 0).isPlausible)
        #expect(!Coordinate(latitude: .nan, longitude: 2).isPlausible)
        #expect(!Coordinate(latitude: 91, longitude: 2).isPlausible)
        #expect(!Coordinate(latitude: 10, longitude: -180.5).isPlausible)
        #expect(Coordinate(latitude: 0, longitude: 0.0001).isPlausible)
        #expect(Coordinate(latitude: -90, longitude: 180).isPlausible)
    }

    @Test("imperial conversions")
    func conversions() {
        #expect(UnitSystem.imperial.temperature.convert(fromCelsius: 100) == 212)
        #expect(UnitSystem.imperial.temperature.convert(fromCelsius: -40) == -40)
        #expect(UnitSystem.imperial.wind.convert(fromKmh: 16.09344) == 10)
        #expect(UnitSystem.imperial.precipitation.convert(fromMillimetres: 25.4) == 1)
        #expect(UnitSystem.metric.temperature.convert(fromCelsius: 21.5) == 21.5)
        #expect(abs(CanonicalUnits.celsius(fromFahrenheit: 50) - 10) < 1e-9)
        #expect(abs(CanonicalUnits.kmh(fromMetresPerSecond: 3) - 10.8) < 1e-9)
    }
}

@Suite("Conditions")
struct ConditionTests {
    @Test("every documented WMO code maps, others do not")
    func wmoCodes() {
        let documented: [Int: ConditionKind] = [
            0: .clear, 1: .mainlyClear, 2: .partlyCloudy, 3: .overcast, 45: .fog, 48: .fog, 51: .drizzle, 53: .drizzle,
            55: .drizzle, 56: .freezingDrizzle, 57: .freezingDrizzle, 61: .rain, 63: .rain, 65: .rain, 66: .freezingRain,
            67: .freezingRain, 71: .snow, 73: .snow, 75: .snow, 77: .snowGrains, 80: .rainShowers, 81: .rainShowers,
            82: .rainShowers, 85: .snowShowers, 86: .snowShowers, 95: .thunderstorm, 96: .thunderstormHail,
            99: .thunderstormHail,
        ]
        for code in -1...100 {
            #expect(ConditionKind(wmoCode: code) == documented[code], "WMO \(code)")
        }
    }

    @Test("no sun at night")
    func nightIcons() {
        let night = ConditionKind.clear.condition(isDay: false)
        #expect(night.icon == "clear-night")
        #expect(night.emoji == "🌙")
        #expect(ConditionKind.clear.condition(isDay: true).icon == "clear-day")
        #expect(ConditionKind.partlyCloudy.condition(isDay: false).icon == "partly-cloudy-night")
        #expect(ConditionKind.rain.condition(isDay: false).icon == "rain")
        for kind in ConditionKind.allCases {
            #expect(!kind.condition(isDay: false).emoji.contains("☀"), "\(kind)")
        }
    }
}
