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
        report.daily = [
            ReportDay(
                date: "2026-03-06", temperatureMin: 2.4, temperatureMax: 9.6,
                condition: Condition(kind: .rainShowers, isDay: true), precipitationProbability: 70)
        ]

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
