import Foundation

/// RFC 3339 timestamps and local ISO 8601 times, without DateFormatter (which is slow,
/// locale-dependent and not thread-safe to share).
public enum Timestamps {
    /// Unix seconds a provider's forecast time can have: 2000-01-01 to 2100-01-01. Anything else is a wrong
    /// field (an index, a flag, junk), and far enough out it would not even fit the day arithmetic below.
    public static let plausibleUnixSeconds: ClosedRange<Double> = 946_684_800...4_102_444_800

    /// The date of `seconds` since 1970 when it is a plausible forecast time (see ``plausibleUnixSeconds``).
    public static func plausibleDate(unixSeconds seconds: Double) -> Date? {
        plausibleUnixSeconds.contains(seconds) ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// `2026-11-22T05:00:00+01:00` for a date seen at a fixed UTC offset; `Z` when the offset is 0
    /// and `utc` is true.
    public static func rfc3339(_ date: Date, utcOffsetSeconds: Int = 0) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + utcOffsetSeconds
        let days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        let time = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, secondOfDay / 3600, secondOfDay % 3600 / 60,
            secondOfDay % 60)
        if utcOffsetSeconds == 0 { return time + "Z" }
        let sign = utcOffsetSeconds < 0 ? "-" : "+"
        let magnitude = abs(utcOffsetSeconds)
        return time + String(format: "%@%02d:%02d", sign, magnitude / 3600, magnitude % 3600 / 60)
    }

    /// `YYYY-MM-DD` of a date at a UTC offset.
    public static func localDate(_ date: Date, utcOffsetSeconds: Int) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + utcOffsetSeconds
        let (y, m, d) = civil(fromDays: seconds.floorDiv(86_400))
        return String(format: "%04d-%02d-%02d", y, m, d)
    }

    /// Parses a local time without offset as providers send it (`2026-09-15T12:00`,
    /// `2026-09-15T12:00:30`, or a date `2026-09-15` meaning midnight) at the given UTC offset.
    public static func parseLocal(_ text: String, utcOffsetSeconds: Int) -> Date? {
        guard let utc = parseUTC(text) else { return nil }
        return utc.addingTimeInterval(TimeInterval(-utcOffsetSeconds))
    }

    /// Parses RFC 3339 (`…Z` or `…+01:00`) and also plain local forms, taken as UTC.
    public static func parseUTC(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes.count >= 10, bytes[4] == 45, let month = number(5, 2),
            bytes[7] == 45, let day = number(8, 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = days(fromCivil: year, month, day) * 86_400
        var index = 10
        if index < bytes.count, bytes[index] == 84 || bytes[index] == 32 {  // "T" or " "
            guard let hour = number(11, 2), bytes.count > 13, bytes[13] == 58, let minute = number(14, 2),
                hour < 24, minute < 60
            else { return nil }
            seconds += hour * 3600 + minute * 60
            index = 16
            if index < bytes.count, bytes[index] == 58 {
                guard let second = number(17, 2), second < 61 else { return nil }
                seconds += second
                index = 19
                if index < bytes.count, bytes[index] == 46 {  // fractional seconds: skipped
                    index += 1
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
                }
            }
            if index < bytes.count {
                if bytes[index] == 90 || bytes[index] == 122 {  // Z
                    index += 1
                } else if bytes[index] == 43 || bytes[index] == 45 {
                    guard let oh = number(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == 58,
                        let om = number(index + 4, 2)
                    else { return nil }
                    let offset = oh * 3600 + om * 60
                    seconds -= bytes[index] == 43 ? offset : -offset
                    index += 6
                }
            }
        }
        guard index == bytes.count else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // Howard Hinnant's civil calendar algorithms (public domain), valid for all proleptic Gregorian dates.
    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension Int {
    fileprivate func floorDiv(_ divisor: Int) -> Int {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}

extension Timestamps {
    /// The UTC offset in seconds an RFC 3339 time carries (`Z` is 0), or nil for a time without one.
    public static func utcOffsetSeconds(_ rfc3339: String) -> Int? {
        guard parseUTC(rfc3339) != nil else { return nil }
        if rfc3339.hasSuffix("Z") || rfc3339.hasSuffix("z") { return 0 }
        let tail = Array(rfc3339.suffix(6))
        guard tail.count == 6, tail[0] == "+" || tail[0] == "-", tail[3] == ":",
            let hours = Int(String(tail[1...2])), let minutes = Int(String(tail[4...5]))
        else { return nil }
        let magnitude = hours * 3600 + minutes * 60
        return tail[0] == "-" ? -magnitude : magnitude
    }
}

extension Report {
    /// The position's UTC offset, read from the local times the report carries (the current conditions,
    /// the first hour, today's sunrise or sunset); nil without a forecast.
    public var utcOffsetSeconds: Int? {
        let candidates = [current?.time, hourly.first?.time, daily.first?.sunrise, daily.first?.sunset]
        return candidates.lazy.compactMap { $0.flatMap(Timestamps.utcOffsetSeconds) }.first
    }
}
