import ForecastModel
import Foundation
import Testing

@Suite("Report builder")
struct ReportBuilderTests {
    /// 2026-11-22T10:30:00Z, a Sunday.
    let now = Date(timeIntervalSince1970: 1_795_343_400)

    func forecast(fetchedAt: Date, offset: Int = 3600) -> Forecast {
        let midnight = Date(timeIntervalSince1970: 1_795_302_000)  // 2026-11-22T00:00:00+01:00
        let hours = (0..<48).map { i in
            HourlyForecast(
                time: midnight.addingTimeInterval(Double(i) * 3600), temperature: Double(i), precipitationProbability: 10,
                condition: .clear, isDay: (8..<17).contains(i % 24))
        }
        let days = (0..<8).map { i in
            DailyForecast(
                date: Timestamps.localDate(midnight.addingTimeInterval(Double(i - 1) * 86_400 + 7200), utcOffsetSeconds: offset),
                temperatureMin: -1, temperatureMax: 10, condition: .rain)
        }
        return Forecast(
            provider: "open-meteo", attribution: "Weather data by Open-Meteo.com (CC BY 4.0)",
            coordinate: Coordinate(latitude: 48.9, longitude: 2.3), fetchedAt: fetchedAt, utcOffsetSeconds: offset,
            timezone: "Europe/Paris",
            current: CurrentConditions(
                time: now, temperature: 20, apparentTemperature: 18.04, humidity: 55, windSpeed: 16.09344, windDirection: 270,
                condition: .clear, isDay: false),
            hourly: hours, daily: days)
    }

    var fix: LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: 48.904291667, longitude: 2.333026667), source: .gpsd, accuracyMeters: 32.3,
            fixTime: now.addingTimeInterval(-2), receivedAt: now.addingTimeInterval(-1))
    }

    @Test("metric report: hours from the current one, days from today, night icon")
    func metric() throws {
        let report = Report(ReportInputs(fix: fix, forecast: forecast(fetchedAt: now.addingTimeInterval(-60))), now: now)
        #expect(report.status == .ok)
        #expect(report.stale == false)
        #expect(report.ageSeconds == 60)
        #expect(report.location?.source == "gpsd")
        #expect(report.location?.accuracyM == 32.3)
        #expect(report.location?.ageSeconds == 1)
        let current = try #require(report.current)
        #expect(current.temperature == 20)
        #expect(current.apparentTemperature == 18)
        #expect(current.windSpeed == 16)  // km/h are whole
        #expect(current.condition?.icon == "clear-night")
        // 10:30 UTC is 11:30 local: the first hour shown is 11:00 local.
        #expect(report.hourly.count == 24)
        #expect(report.hourly.first?.time == "2026-11-22T11:00:00+01:00")
        #expect(report.hourly.first?.temperature == 11)
        // The provider's day list starts yesterday: it is skipped.
        #expect(report.daily.count == 7)
        #expect(report.daily.first?.date == "2026-11-22")
        #expect(report.errors.isEmpty)
    }

    @Test("imperial converts every quantity; the JSON omits absent values")
    func imperial() throws {
        let report = Report(ReportInputs(fix: fix, forecast: forecast(fetchedAt: now), units: .imperial), now: now)
        #expect(report.units.temperature == "°F")
        #expect(report.current?.temperature == 68)
        #expect(report.current?.windSpeed == 10)
        #expect(report.daily.first?.temperatureMin == 30.2)
        let json = String(decoding: try Report.makeEncoder().encode(report), as: UTF8.self)
        #expect(!json.contains("null"))
        let currentJSON = String(decoding: try Report.makeEncoder().encode(report.current), as: UTF8.self)
        #expect(!currentJSON.contains("\"pressure\""))  // not given, so absent
        #expect(json.contains("\"wind_speed\":10"))
        // Sorted keys: the same report is always the same bytes.
        #expect(json.hasPrefix("{\"age_seconds\":0,\"current\":{\"apparent_temperature\":"))
    }

    @Test("old forecasts and failed refreshes are stale; config problems alone are not")
    func staleness() {
        let old = Report(
            ReportInputs(fix: fix, forecast: forecast(fetchedAt: now.addingTimeInterval(-3601)), staleAfter: 3600), now: now)
        #expect(old.stale)
        let failing = Report(
            ReportInputs(
                fix: fix, forecast: forecast(fetchedAt: now), errors: [ReportError(kind: .timeout, message: "no answer")]),
            now: now)
        #expect(failing.stale)
        #expect(failing.status == .ok)
        let config = Report(
            ReportInputs(fix: fix, forecast: forecast(fetchedAt: now), errors: [ReportError(kind: .config, message: "x")]),
            now: now)
        #expect(!config.stale)
    }

    @Test("states without data say why")
    func states() {
        #expect(Report(ReportInputs(locating: true), now: now).status == .locating)
        let none = Report(ReportInputs(), now: now)
        #expect(none.status == .noLocation)
        #expect(none.errors.map(\.kind) == ["no_location"])
        #expect(none.location == nil && none.current == nil && none.hourly.isEmpty)
        #expect(Report(ReportInputs(fix: fix), now: now).status == .noForecast)
    }

    @Test("a pin's name is the place name")
    func pinLabel() {
        var pin = fix
        pin.source = .pinned
        pin.label = "Home"
        let place = Place(
            name: "Saint-Ouen", admin1: "Île-de-France", country: "France", countryCode: "FR", population: 50_000,
            coordinate: Coordinate(latitude: 48.9, longitude: 2.33), timezone: "Europe/Paris", distanceKm: 0.25)
        let report = Report(ReportInputs(fix: pin, place: place), now: now)
        #expect(report.place?.name == "Home")
        #expect(report.place?.countryCode == "FR")
    }
}
