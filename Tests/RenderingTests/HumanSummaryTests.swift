import ForecastModel
import Foundation
import Localization
import Rendering
import Testing

@Suite("Human summary")
struct HumanSummaryTests {
    let now = Date(timeIntervalSince1970: 1_795_343_400)  // 2026-11-22T10:30:00Z, a Sunday

    /// A report made as the daemon makes one: a fix, its place and a forecast fetched 5 minutes ago, in Paris'
    /// time; stale when the last refresh timed out.
    func report(stale: Bool = false) -> Report {
        let forecast = Forecast(
            provider: "open-meteo", attribution: "Weather data by Open-Meteo.com (CC BY 4.0)",
            coordinate: Coordinate(latitude: 48.9, longitude: 2.33), fetchedAt: now.addingTimeInterval(-300),
            utcOffsetSeconds: 3600, timezone: "Europe/Paris",
            current: CurrentConditions(
                time: now, temperature: 12.3, apparentTemperature: 10.1, humidity: 81, windSpeed: 14, windDirection: 250,
                condition: .overcast, isDay: true),
            hourly: [],
            daily: [
                DailyForecast(
                    date: "2026-11-22", temperatureMin: 8.1, temperatureMax: 13.2, condition: .overcast,
                    precipitationProbability: 30),
                DailyForecast(
                    date: "2026-11-23", temperatureMin: -0.4, temperatureMax: 11, condition: .rain,
                    precipitationProbability: 80),
            ])
        let inputs = ReportInputs(
            fix: LocationFix(
                coordinate: Coordinate(latitude: 48.9043, longitude: 2.333), source: .gpsd, accuracyMeters: 32.3,
                receivedAt: now),
            place: Place(
                name: "Saint-Ouen", admin1: "Île-de-France", country: "France", countryCode: "FR", population: 49_000,
                coordinate: Coordinate(latitude: 48.91, longitude: 2.33), timezone: "Europe/Paris", distanceKm: 0.25),
            forecast: forecast,
            errors: stale ? [ReportError(kind: .timeout, message: "open-meteo: no answer within 15 s")] : [])
        return Report(inputs, now: now)
    }

    @Test("place, condition, temperature and the next days")
    func summary() {
        let text = HumanSummary.render(report(), now: now)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Saint-Ouen, Île-de-France, France [gpsd, ±32 m]")
        // Two spaces after "☁️" (U+2601 U+FE0F): a terminal that advances it one cell (foot) draws it over
        // the first; one space after an emoji that is two cells everywhere.
        #expect(lines[1] == "☁️  Overcast, 12.3 °C (feels like 10 °C), humidity 81 %, wind 14 km/h WSW")
        #expect(lines[2] == "Forecast from open-meteo, 5 min ago")
        #expect(lines[4].hasPrefix("Sun 22  ☁️  8 / 13 °C"))
        #expect(lines[5].hasPrefix("Mon 23  🌧️  0 / 11 °C"))  // no "-0"
        #expect(lines[5].contains("80 %"))
    }

    @Test("stale data and errors are shown, not hidden")
    func stale() {
        let text = HumanSummary.render(report(stale: true), now: now)
        #expect(text.contains("(stale)"))
        #expect(text.contains("! open-meteo: no answer within 15 s"))
    }

    @Test("no location is a sentence, not an empty screen")
    func noLocation() {
        let report = Report(ReportInputs(), now: now)
        let text = HumanSummary.render(report, now: now)
        #expect(text.hasPrefix("No location"))
        #expect(text.contains("forecastctl pin"))
    }

    @Test("compass points")
    func compass() {
        #expect(Phrases.english.compassPoint(0) == "N")
        #expect(Phrases.english.compassPoint(359) == "N")
        #expect(Phrases.english.compassPoint(90) == "E")
        #expect(Phrases.english.compassPoint(202.5) == "SSW")
        #expect(Phrases.english.compassPoint(-90) == "W")
    }
}

@Suite("Report JSON")
struct ReportJSONTests {
    @Test("a report survives the line it is published as")
    func roundTrip() throws {
        let report = Report(ReportInputs(locating: true), now: Date(timeIntervalSince1970: 1_795_343_400))
        let line = ReportJSON.line(report)
        #expect(!line.contains("\n"))
        #expect(try ReportJSON.decode(line) == report)
    }
}

extension HumanSummaryTests {
    @Test("terminal icons: a second space after an emoji terminals disagree on, one after the others")
    func iconSpacing() {
        #expect(TextWidth.spacer(after: "☁️") == "  ")
        #expect(TextWidth.spacer(after: "🌧️") == "  ")
        #expect(TextWidth.spacer(after: "☀️") == "  ")
        #expect(TextWidth.spacer(after: "⛅") == " ")
        #expect(TextWidth.spacer(after: "🌙") == " ")
        #expect(TextWidth.spacer(after: "SUN") == " ")
    }

    @Test("where the position comes from, in the language; why the report is old when the reader knows")
    func locationLabelAndAbsence() {
        let spanish = Phrases(CatalogueLibrary.translation(for: .code("es")).translation)
        let text = HumanSummary.render(report(), now: now, phrases: spanish, absence: .notRunning)
        #expect(text.split(separator: "\n").first?.hasSuffix("[gpsd, ±32 m]") == true)
        var pinned = report()
        pinned.location?.source = "pinned"
        pinned.location?.accuracyM = nil
        #expect(HumanSummary.render(pinned, now: now, phrases: spanish).contains("[fijada]"))
        #expect(text.contains("forecastd no está en marcha"), "\(text)")
        #expect(!HumanSummary.render(report(), now: now).contains("forecastd"))
    }

    @Test("Wi-Fi and GeoClue positions say so with their accuracy, in the language")
    func wifiAndGeoClueLabels() {
        var wifi = report()
        wifi.location?.source = "wifi"
        wifi.location?.accuracyM = 60
        #expect(HumanSummary.render(wifi, now: now).split(separator: "\n").first?.hasSuffix("[Wi-Fi, ±60 m]") == true)
        let german = Phrases(CatalogueLibrary.translation(for: .code("de")).translation)
        #expect(HumanSummary.render(wifi, now: now, phrases: german).contains("[WLAN, ±60 m]"))
        var geoclue = report()
        geoclue.location?.source = "geoclue"
        geoclue.location?.accuracyM = 35
        #expect(HumanSummary.render(geoclue, now: now).contains("[GeoClue, ±35 m]"))
    }
}
