import ForecastModel
import Foundation

/// The one line `systemctl status forecastd` shows: where, how warm, and how fresh the forecast is.
///
/// "Bromsgrove, 12 °C, open-meteo forecast from 14:05" or "no location: gpsd has no fix and no pin is
/// set". The daemon sends it when the report changes, not on a timer, so the line names the clock
/// time the forecast was fetched rather than an age that would be wrong minutes later.
public enum ServiceStatusLine {
    /// Longest line sent: `systemctl status` shows one line, and a long error adds nothing there.
    static let maxLength = 200

    public static func render(_ report: Report, now: Date = Date(), timeZone: TimeZone = .current) -> String {
        var parts: [String] = []
        let problem = report.errors.first { $0.kind != ErrorKind.noLocation.rawValue }.map { firstSentence($0.message) }

        switch report.status {
        case .locating:
            parts.append("locating: waiting for the first position")
        case .noLocation:
            let reason = report.errors.first { $0.kind == ErrorKind.noLocation.rawValue }.map { noLocationReason($0.message) }
            parts.append("no location" + (reason.map { ": " + $0 } ?? ""))
        case .ok, .noForecast:
            parts.append(placeName(report))
            if let temperature = report.current?.temperature {
                parts.append("\(HumanSummary.formatNumber(temperature, places: 0)) \(report.units.temperature)")
            }
            if let provider = report.provider, let fetched = Timestamps.parseUTC(provider.fetchedAt) {
                parts.append("\(provider.name) forecast from \(clockTime(fetched, now: now, timeZone: timeZone))")
            } else {
                parts.append("no forecast yet")
            }
        }
        var line = parts.joined(separator: ", ")
        if report.stale, report.status == .ok { line += ", stale" }
        if let problem { line += (report.stale && report.status == .ok ? ": " : "; ") + problem }
        line = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        if line.count > maxLength { line = String(line.prefix(maxLength - 1)) + "…" }
        return line
    }

    /// The place's name, else the coordinates.
    private static func placeName(_ report: Report) -> String {
        if let place = report.place {
            return (place.near == true ? "near " : "") + place.name
        }
        if let location = report.location {
            return "\(HumanSummary.formatNumber(location.latitude, places: 2)), \(HumanSummary.formatNumber(location.longitude, places: 2))"
        }
        return "no position"
    }

    /// "14:05" today, "23 Nov 14:05" on another day, in the daemon's time zone.
    static func clockTime(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = calendar.isDate(date, inSameDayAs: now) ? "HH:mm" : "d MMM HH:mm"
        return formatter.string(from: date)
    }

    /// "No position: gpsd has no fix and no pin is set. Set one with …" → "gpsd has no fix and no pin is set".
    static func noLocationReason(_ message: String) -> String {
        var reason = firstSentence(message)
        if let colon = reason.range(of: ": "), reason[..<colon.lowerBound].lowercased() == "no position" {
            reason = String(reason[colon.upperBound...])
        }
        return reason
    }

    /// A message up to the end of its first sentence, without the full stop.
    static func firstSentence(_ message: String) -> String {
        let sentence = message.range(of: ". ").map { String(message[..<$0.lowerBound]) } ?? message
        return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }
}
