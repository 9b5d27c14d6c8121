import ForecastModel
import Foundation
import MQTTPayloads
import TestSupport
import WeatherProviders

/// Report inputs made from recorded Open-Meteo answers by the daemon's own decoder.
enum PayloadFixtures {
    /// Bromsgrove, 2026-02-23: current conditions, 168 hours, 7 days; fetched 13:32Z.
    static let bromsgroveFetched = Timestamps.parseUTC("2026-02-23T13:32:00Z")!
    /// Samara, 2026-09-15: current conditions with feels-like, humidity, pressure and wind, 7 days; fetched 08:02Z.
    static let samaraFetched = Timestamps.parseUTC("2026-09-15T08:02:00Z")!

    static func forecast(_ name: String, fetchedAt: Date) throws -> Forecast {
        try OpenMeteoDecoder.decode(Fixtures.data("open-meteo/\(name)"), fetchedAt: fetchedAt)
    }

    static func bromsgrove(units: UnitPreferences = .metric) throws -> ReportInputs {
        let forecast = try forecast(
            "forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json",
            fetchedAt: bromsgroveFetched)
        var inputs = ReportInputs(
            fix: LocationFix(
                coordinate: Coordinate(latitude: 52.335, longitude: -2.06), source: .gpsd, accuracyMeters: 8.4,
                receivedAt: bromsgroveFetched.addingTimeInterval(-30)),
            place: Place(
                name: "Bromsgrove", admin1: "England", country: "United Kingdom", countryCode: "GB",
                population: 29_237, coordinate: Coordinate(latitude: 52.33574, longitude: -2.05983),
                timezone: "Europe/London", distanceKm: 0.1),
            forecast: forecast, units: units, staleAfter: 3600, nowcastHorizon: 7200)
        inputs.warnings = []
        return inputs
    }

    static func samara(units: UnitPreferences = .metric, warnings: [WeatherWarning]? = nil) throws -> ReportInputs {
        let forecast = try forecast(
            "forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json", fetchedAt: samaraFetched)
        return ReportInputs(
            fix: LocationFix(
                coordinate: Coordinate(latitude: 53.2, longitude: 50.15), source: .pinned,
                receivedAt: samaraFetched.addingTimeInterval(-600)),
            place: Place(
                name: "Samara", admin1: "Samara Oblast", country: "Russia", countryCode: "RU", population: 1_134_730,
                coordinate: Coordinate(latitude: 53.20007, longitude: 50.15), timezone: "Europe/Samara",
                distanceKm: 0.2),
            forecast: forecast, units: units, staleAfter: 3600, warnings: warnings, nowcastHorizon: 7200)
    }

    static let publisher = SharedPublisher(
        topic: "forecastd/pi-van", version: "0.9.0", refreshSeconds: 1800, staleAfterSeconds: 3600)

    /// A warning as MET Norway's MetAlerts words one (a yellow wind warning), in force for a day from `start`.
    static func windWarning(start: Date, severity: WarningSeverity = .moderate) -> WeatherWarning {
        WeatherWarning(
            id: "2.49.0.1.578.0.20260915072200.001", source: "met-norway", event: "wind", severity: severity,
            urgency: .future, certainty: .likely, onset: start, expires: start.addingTimeInterval(86_400),
            headline: "Strong wind, yellow level", description: "Wind gusts up to 25 m/s.",
            area: "Samara", identifier: "2.49.0.1.578.0.20260915072200.001")
    }
}
