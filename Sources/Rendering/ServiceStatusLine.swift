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

    public static func render(
        _ report: Report, now: Date = Date(), timeZone: TimeZone = .current, phrases: Phrases = .english
    ) -> String {
        let translation = phrases.translation
        func words(_ english: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
            translation.text(english, context: "service status", values)
        }
        var parts: [String] = []
        // In English the line quotes the report's own messages, cut to their first sentence; in another
        // language it ends with the error's translated sentence, set off as a sentence of its own.
        let english = phrases.language == "en"
        let noLocation = report.errors.first { $0.kind == ErrorKind.noLocation.rawValue }
        var problem = report.errors.first { $0.kind != ErrorKind.noLocation.rawValue }.map { error in
            english ? firstSentence(error.message) : withoutFullStop(error.text(phrases: phrases))
        }

        switch report.status {
        case .locating:
            parts.append(words("locating: waiting for the first position"))
        case .noLocation:
            if english {
                let reason = noLocation.map { noLocationReason($0.message) }
                parts.append(words("no location") + (reason.map { ": " + $0 } ?? ""))
            } else {
                parts.append(words("no location"))
                problem = noLocation.map { withoutFullStop($0.text(phrases: phrases)) } ?? problem
            }
        case .ok, .noForecast:
            parts.append(placeName(report, phrases: phrases))
            if let temperature = report.current?.temperature {
                parts.append("\(phrases.number(HumanSummary.formatNumber(temperature, places: 0))) \(report.units.temperature)")
            }
            if let provider = report.provider, let fetched = Timestamps.parseUTC(provider.fetchedAt) {
                let time = clockTime(fetched, now: now, timeZone: timeZone, phrases: phrases)
                parts.append(words("{provider} forecast from {time}", ["provider": provider.name, "time": time]))
            } else {
                parts.append(words("no forecast yet"))
            }
        }
        if report.stale, report.status == .ok { parts.append(words("stale")) }
        var line = phrases.list(parts)
        if let problem {
            line =
                english
                ? line + (report.stale && report.status == .ok ? ": " : "; ") + problem
                : words("{status}. {problem}", ["status": line, "problem": problem])
        }
        line = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        if line.count > maxLength { line = String(line.prefix(maxLength - 1)) + "…" }
        return line
    }

    /// The place's name, else the coordinates.
    private static func placeName(_ report: Report, phrases: Phrases) -> String {
        if let place = report.place {
            guard place.near == true else { return place.name }
            return phrases.translation.text("near {place}", context: "service status", ["place": place.name])
        }
        if let location = report.location {
            func number(_ value: Double) -> String { phrases.number(HumanSummary.formatNumber(value, places: 2)) }
            // With a decimal comma, a comma between the two would be ambiguous.
            return number(location.latitude) + (phrases.number(".") == "." ? ", " : "; ") + number(location.longitude)
        }
        return phrases.translation.text("no position", context: "service status")
    }

    /// "14:05" today, "23 Nov 14:05" on another day, in the daemon's time zone.
    static func clockTime(_ date: Date, now: Date, timeZone: TimeZone, phrases: Phrases = .english) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.day, .month, .hour, .minute], from: date)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        guard !calendar.isDate(date, inSameDayAs: now) else { return time }
        return phrases.translation.text(
            "{day} {month} {time}", context: "date",
            ["day": String(parts.day ?? 1), "month": phrases.monthAbbreviated(parts.month ?? 1), "time": time])
    }

    /// "No position: gpsd has no fix and no pin is set. Set one with …" → "gpsd has no fix and no pin is set".
    static func noLocationReason(_ message: String) -> String {
        var reason = firstSentence(message)
        if let colon = reason.range(of: ": "), reason[..<colon.lowerBound].lowercased() == "no position" {
            reason = String(reason[colon.upperBound...])
        }
        return reason
    }

    /// `text` without its closing full stop (`.`, or `。` in Japanese and Chinese).
    static func withoutFullStop(_ text: String) -> String {
        text.hasSuffix(".") || text.hasSuffix("。") ? String(text.dropLast()) : text
    }

    /// A message up to the end of its first sentence, without the full stop.
    static func firstSentence(_ message: String) -> String {
        let sentence = message.range(of: ". ").map { String(message[..<$0.lowerBound]) } ?? message
        return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }
}
