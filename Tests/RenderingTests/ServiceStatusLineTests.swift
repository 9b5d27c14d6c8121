import ForecastModel
import Foundation
import Rendering
import Testing

/// The line `systemctl status forecastd` shows, from the recorded reports.
@Suite("service status line")
struct ServiceStatusLineTests {
    let utc = TimeZone(identifier: "UTC")!

    func line(_ name: String, now: Date? = nil) throws -> String {
        let report = try ReportFixtures.report(name)
        return ServiceStatusLine.render(report, now: now ?? ReportFixtures.now(of: report), timeZone: utc)
    }

    @Test("a forecast: place, temperature in the report's units, and when it was fetched")
    func forecast() throws {
        #expect(try line("day") == "Bromsgrove, 12 °C, open-meteo forecast from 13:32")
        #expect(try line("imperial") == "Bromsgrove, 53 °F, open-meteo forecast from 13:32")
    }

    @Test("a forecast from another day names the day")
    func otherDay() throws {
        let now = try #require(Timestamps.parseUTC("2026-02-24T09:00:00Z"))
        #expect(try line("day", now: now) == "Bromsgrove, 12 °C, open-meteo forecast from 23 Feb 13:32")
    }

    @Test("a stale forecast says so, and why")
    func stale() throws {
        #expect(try line("stale") == "Samara, 18 °C, open-meteo forecast from 08:02, stale: open-meteo: no answer within 15 s from api.open-meteo.com")
    }

    @Test("no forecast yet, no location, locating")
    func withoutForecast() throws {
        #expect(try line("error") == "Saint-Ouen, no forecast yet; open-meteo: cannot connect to api.open-meteo.com: network is unreachable")
        #expect(try line("locating") == "locating: waiting for the first position")
        var report = try ReportFixtures.report("no_location")
        report.errors = [
            ReportError(
                kind: .noLocation,
                message: "No position: gpsd has no fix and no pin is set. Set one with `forecastctl pin LAT,LON` or [location.pin] in the config.")
        ]
        #expect(ServiceStatusLine.render(report, timeZone: utc) == "no location: gpsd has no fix and no pin is set")
    }

    @Test("a problem of several lines, or a long one, becomes one short line")
    func oneShortLine() throws {
        var report = try ReportFixtures.report("error")
        report.errors = [ReportError(kind: .config, message: "forecastd.toml:3:9: units: bad\nforecastd.toml:4:1: unknown key")]
        #expect(
            ServiceStatusLine.render(report, timeZone: utc)
                == "Saint-Ouen, no forecast yet; forecastd.toml:3:9: units: bad forecastd.toml:4:1: unknown key")
        report.errors = [ReportError(kind: .config, message: String(repeating: "a", count: 500))]
        let text = ServiceStatusLine.render(report, timeZone: utc)
        #expect(text.count == 200)
        #expect(text.hasSuffix("…"))
    }
}
