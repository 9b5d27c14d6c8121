import ForecastModel
import Foundation
import Testing

/// The report's `warnings`, `nowcast` and `air` as the daemon's inputs give them.
@Suite("Report: warnings, nowcast and air")
struct ReportAlertFieldsTests {
    let now = NowcastTests.at(10)

    var rainy: Forecast {
        NowcastTests.forecast(
            NowcastTests.quarters([0, 0, 0.8, 0.5, 0, 0, 0, 0, 0, 0, 0, 0], probability: 70), current: .partlyCloudy)
    }

    @Test("The nowcast is judged at the report's moment when its horizon is set, and absent when switched off")
    func nowcast() throws {
        let on = Report(ReportInputs(forecast: rainy, nowcastHorizon: 7200), now: now)
        let nowcast = try #require(on.nowcast)
        #expect(nowcast.minutesUntil == 20)
        #expect(nowcast.text == "Rain in 20 min (moderate), until about 15:00")
        #expect(Report(ReportInputs(forecast: rainy), now: now).nowcast == nil)
        // Beyond a short horizon the rain is not announced.
        #expect(Report(ReportInputs(forecast: rainy, nowcastHorizon: 15 * 60), now: now).nowcast == nil)
    }

    @Test("Warnings past their expiry at the report's moment are left out; nil and [] stay distinct")
    func warnings() throws {
        let inForce = WeatherWarning(
            source: "bright-sky", event: "frost", severity: .minor, expires: now.addingTimeInterval(3600),
            identifier: "a")
        let expired = WeatherWarning(
            source: "bright-sky", event: "storm", severity: .severe, expires: now, identifier: "b")
        let report = Report(ReportInputs(forecast: rainy, warnings: [expired, inForce]), now: now)
        #expect(report.warnings?.map(\.identifier) == ["a"])
        #expect(Report(ReportInputs(forecast: rainy, warnings: []), now: now).warnings == [])
        #expect(Report(ReportInputs(forecast: rainy), now: now).warnings == nil)

        // The fields survive the encoding the report is published in.
        let data = try Report.makeEncoder().encode(report)
        #expect(String(decoding: data, as: UTF8.self).contains("\"warnings\":[{"))
        #expect(try Report.makeDecoder().decode(Report.self, from: data) == report)
    }

    @Test("The air is shown in the position's local time")
    func air() throws {
        let air = AirQuality(
            provider: "open-meteo-air-quality", attribution: "CAMS",
            coordinate: Coordinate(latitude: 52.5, longitude: 13.4),
            time: NowcastTests.noon, fetchedAt: now, scale: .european, aqi: 33.4, dominant: .pm10, pm10: 30)
        let report = Report(ReportInputs(forecast: rainy, air: air), now: now)
        let shown = try #require(report.air)
        #expect(shown.aqi == 33)
        #expect(shown.category == "fair")
        #expect(shown.className == "aqi-fair")
        #expect(shown.time == "2026-06-15T14:00:00+02:00")
    }

    @Test("Stale warnings and air are marked in the JSON and their errors do not make the forecast stale")
    func staleAlerts() throws {
        let warning = WeatherWarning(
            source: "bright-sky", event: "frost", severity: .minor, expires: now.addingTimeInterval(3600),
            identifier: "a")
        let air = AirQuality(
            provider: "open-meteo-air-quality", attribution: "CAMS",
            coordinate: Coordinate(latitude: 52.5, longitude: 13.4),
            time: NowcastTests.noon, fetchedAt: now.addingTimeInterval(-7200), scale: .european, aqi: 33.4)
        let fresh = Report(ReportInputs(forecast: rainy, warnings: [warning], air: air), now: now)
        let freshJSON = String(decoding: try Report.makeEncoder().encode(fresh), as: UTF8.self)
        #expect(!freshJSON.contains("stale\":true"))
        #expect(fresh.warningsStale == nil)

        var inputs = ReportInputs(
            forecast: rainy,
            errors: [
                ReportError(kind: .warnings, message: "Official warnings from bright-sky could not be read."),
                ReportError(kind: .air, message: "The air quality could not be read."),
            ], warnings: [warning], air: air)
        inputs.warningsStale = true
        inputs.airStale = true
        let stale = Report(inputs, now: now)
        #expect(stale.warningsStale == true)
        #expect(stale.air?.stale == true)
        #expect(stale.warnings?.map(\.identifier) == ["a"])
        // The forecast itself is as fresh as before: only the warnings and the air are old.
        #expect(stale.stale == fresh.stale)
        #expect(stale.errors.map(\.kind) == ["warnings", "air"])
        let data = try Report.makeEncoder().encode(stale)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains("\"warnings_stale\":true"))
        #expect(json.contains("\"stale\":true,\"text\""))
        #expect(try Report.makeDecoder().decode(Report.self, from: data) == stale)

        // Without warnings there is nothing to mark.
        var none = inputs
        none.warnings = nil
        #expect(Report(none, now: now).warningsStale == nil)
    }
}
