import Foundation

/// Recorded Open-Meteo responses, moved in time so that they describe today.
///
/// A recording from 2026-09-15 holds days that are all in the past now; the report (rightly) shows
/// only today and later. Shifting every date by whole days keeps every recorded value and the
/// shape byte for byte apart from the dates.
public enum RecordedForecast {
    /// The fixture's text with every `YYYY-MM-DD` date moved so that its first daily date becomes
    /// `today` (a `YYYY-MM-DD` string in the location's local time).
    public static func rebased(_ text: String, firstDate: String, to today: String) -> String {
        guard let from = dayNumber(firstDate), let to = dayNumber(today) else { return text }
        let shift = to - from
        let pattern = try! NSRegularExpression(pattern: #"(\d{4})-(\d{2})-(\d{2})"#)
        var result = ""
        var last = text.startIndex
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range, in: text), let day = dayNumber(String(text[range])) else { continue }
            result += text[last..<range.lowerBound]
            result += dateString(day + shift)
            last = range.upperBound
        }
        result += text[last...]
        return result
    }

    /// Today's date at a UTC offset, as `YYYY-MM-DD`.
    public static func today(utcOffsetSeconds: Int, now: Date = Date()) -> String {
        dateString(Int((now.timeIntervalSince1970 + Double(utcOffsetSeconds)) / 86_400))
    }

    private static func dayNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts[1]
        components.day = parts[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components) else { return nil }
        return Int(date.timeIntervalSince1970 / 86_400)
    }

    private static func dateString(_ day: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
