import ForecastModel
import Foundation
import Localization
import Notifications
import Testing

/// Notifications speak the language of `[display] language`, every word from the catalogue.
@Suite("Notifications in another language")
struct NotificationLanguageTests {
    @Test("a warning, rain soon and the morning summary in Spanish, with no English fallback")
    func spanish() throws {
        let catalogue = try CatalogueLibrary.load("es", from: CatalogueLibrary.sourceTreeDirectory).get()
        let missing = MissingTexts()
        let phrases = Phrases(Translation(catalogue, recordingMissingTextsIn: missing))
        let now = NotificationPolicyTests.now
        var report = NotificationPolicyTests.report(
            warnings: [NotificationPolicyTests.warning("dwd-1", severity: .severe)],
            nowcast: NotificationPolicyTests.rain(startingIn: 20))
        report.place = ReportPlace(
            name: "Berlín", admin1: nil, country: "Alemania", countryCode: "DE", population: nil, distanceKm: 0,
            timezone: nil)
        let today = Forecast(
            provider: "open-meteo", attribution: "", coordinate: Coordinate(latitude: 52.52, longitude: 13.41),
            fetchedAt: now, utcOffsetSeconds: 3600, timezone: "Europe/Berlin", current: nil, hourly: [],
            daily: [
                DailyForecast(
                    date: Timestamps.localDate(now, utcOffsetSeconds: 3600), temperatureMin: 2.4, temperatureMax: 9.6,
                    condition: .rainShowers, precipitationProbability: 70)
            ])
        report.daily = Report(ReportInputs(forecast: today), now: now).daily

        let warning = NotificationContent.warning(
            report.warnings![0], upgrade: true, report: report, now: now, actions: true, phrases: phrases)
        #expect(warning.summary == "Frost, ahora importante", "\(warning.summary)")
        let rain = NotificationContent.rain(report.nowcast!, report: report, now: now, phrases: phrases)
        #expect(rain.summary.hasPrefix("Lluvia en 20 min (moderada), hasta las"), "\(rain.summary)")
        let summary = NotificationContent.summary(report, now: now, phrases: phrases)
        #expect(summary.summary == "Hoy en Berlín")
        #expect(summary.body.plainText.contains("Chubascos, de 2 a 10°C"), "\(summary.body.plainText)")
        #expect(summary.body.plainText.contains("Probabilidad de precipitación 70 %"), "\(summary.body.plainText)")
        #expect(missing.all == [], "shown in English")
    }
}
