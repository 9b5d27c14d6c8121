// How the recorded reports in this directory were made (kept for reproducibility; not compiled by the package).
//
// Build it as an executable target that compiles this file together with ForecastModel, Rendering and the
// decoder files of Sources/WeatherProviders (OpenMeteoDecoder, JSONValue, ProviderError, Quantity,
// ProviderSupport), then run it with the Fixtures directory: `MakeReports /path/to/Tests/Fixtures`.
import ForecastModel
import Foundation
import Rendering

let fixtures = URL(fileURLWithPath: CommandLine.arguments[1])
func date(_ s: String) -> Date { Timestamps.parseUTC(s)! }
func forecast(_ name: String, fetchedAt: Date) throws -> Forecast {
    let data = try Data(contentsOf: fixtures.appendingPathComponent("open-meteo/" + name))
    return try OpenMeteoDecoder.decode(data, fetchedAt: fetchedAt)
}
func write(_ name: String, _ report: Report) throws {
    let text = ReportJSON.pretty(report) + "\n"
    let decoded = try ReportJSON.decode(text)
    precondition(decoded == report)
    try text.write(to: fixtures.appendingPathComponent("reports/\(name).json"), atomically: true, encoding: .utf8)
}

let bromsgrovePlace = Place(
    name: "Bromsgrove", admin1: "England", country: "United Kingdom", countryCode: "GB", population: 34755,
    coordinate: Coordinate(latitude: 52.33574, longitude: -2.05983), timezone: "Europe/London", distanceKm: 0.174)
let bromsgroveFile = "forecast-bromsgrove-gb-current-hourly-daily-fahrenheit-kmh-timezone-auto.json"

// Day: the response as recorded, three minutes after it was fetched.
do {
    let now = date("2026-02-23T13:35:00Z")
    let fix = LocationFix(
        coordinate: Coordinate(latitude: 52.3355, longitude: -2.0573), source: .gpsd, accuracyMeters: 8.4,
        fixTime: date("2026-02-23T13:34:59Z"), receivedAt: date("2026-02-23T13:34:59Z"))
    let f = try forecast(bromsgroveFile, fetchedAt: date("2026-02-23T13:32:00Z"))
    try write("day", Report(ReportInputs(fix: fix, place: bromsgrovePlace, forecast: f), now: now))

    // Imperial: the same forecast for a pinned position, in the user's imperial units.
    let pin = LocationFix(
        coordinate: Coordinate(latitude: 52.3355, longitude: -2.0573), source: .pinned,
        receivedAt: date("2026-02-23T09:00:00Z"))
    try write("imperial", Report(ReportInputs(fix: pin, place: bromsgrovePlace, forecast: f, units: .imperial), now: now))
}

// Night: the same response fetched again the next evening; "current" is the recorded 19:00 hour (clear, night).
do {
    let now = date("2026-02-24T19:10:00Z")
    let fix = LocationFix(
        coordinate: Coordinate(latitude: 52.3355, longitude: -2.0573), source: .gpsd, accuracyMeters: 12,
        fixTime: date("2026-02-24T19:09:58Z"), receivedAt: date("2026-02-24T19:09:58Z"))
    var f = try forecast(bromsgroveFile, fetchedAt: date("2026-02-24T19:05:00Z"))
    let hour = f.hourly.first { $0.time == date("2026-02-24T19:00:00Z") }!
    f.current = CurrentConditions(
        time: date("2026-02-24T19:00:00Z"), temperature: hour.temperature, windSpeed: hour.windSpeed,
        windDirection: hour.windDirection, condition: hour.condition, isDay: hour.isDay)
    try write("night", Report(ReportInputs(fix: fix, place: bromsgrovePlace, forecast: f), now: now))
}

// Stale: Samara's response from 12:02 local, shown 3 h 18 min later after a refresh timed out.
// Sunrise and sunset were not asked for in that call; they are added here (computed for 53.2° N 50.1° E).
do {
    let now = date("2026-09-15T11:20:00Z")
    var f = try forecast(
        "forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json", fetchedAt: date("2026-09-15T08:02:00Z"))
    for index in f.daily.indices {
        let midnight = Timestamps.parseLocal(f.daily[index].date, utcOffsetSeconds: 14_400)!
        f.daily[index].sunrise = midnight.addingTimeInterval(TimeInterval(6 * 3600 + 11 * 60 + index * 95))
        f.daily[index].sunset = midnight.addingTimeInterval(TimeInterval(18 * 3600 + 49 * 60 - index * 185))
    }
    let place = Place(
        name: "Samara", admin1: "Samara Oblast", country: "Russia", countryCode: "RU", population: 1_163_399,
        coordinate: Coordinate(latitude: 53.20767, longitude: 50.13553), timezone: "Europe/Samara", distanceKm: 2.35)
    let fix = LocationFix(
        coordinate: Coordinate(latitude: 53.1875, longitude: 50.125), source: .gpsd, accuracyMeters: 4.1,
        fixTime: date("2026-09-15T11:19:59Z"), receivedAt: date("2026-09-15T11:19:59Z"))
    let error = ReportError(
        kind: .timeout, message: "open-meteo: no answer within 15 s from api.open-meteo.com.",
        since: "2026-09-15T10:32:00Z")
    try write("stale", Report(ReportInputs(fix: fix, place: place, forecast: f, errors: [error]), now: now))
}

// Error: the position is known (a pin) but the provider could never be reached.
do {
    let now = date("2026-11-22T10:30:00Z")
    let place = Place(
        name: "Saint-Ouen", admin1: "Île-de-France", country: "France", countryCode: "FR", population: 39353,
        coordinate: Coordinate(latitude: 48.90654, longitude: 2.33339), timezone: "Europe/Paris", distanceKm: 0.251)
    let pin = LocationFix(
        coordinate: Coordinate(latitude: 48.9043, longitude: 2.333), source: .pinned,
        receivedAt: date("2026-11-22T10:29:00Z"))
    let error = ReportError(
        kind: .offline, message: "open-meteo: cannot connect to api.open-meteo.com: network is unreachable.",
        since: "2026-11-22T10:29:01Z")
    try write("error", Report(ReportInputs(fix: pin, place: place, errors: [error]), now: now))
}

// No location: gpsd is not running and no pin is set.
do {
    let now = date("2026-11-22T10:30:00Z")
    let error = ReportError(
        kind: .gpsd, message: "gpsd at 127.0.0.1:2947: connection refused; retrying in 30 s.",
        since: "2026-11-22T10:20:00Z")
    try write("no_location", Report(ReportInputs(errors: [error]), now: now))
}

// Locating: just started, the sources are still being asked.
try write("locating", Report(ReportInputs(locating: true), now: date("2026-11-22T10:30:00Z")))
print("ok")
