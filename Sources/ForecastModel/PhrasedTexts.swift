import Foundation
import Localization

// The model's values as text in a language: each composes its sentence from the words of ``Phrases``.
// The report's own texts stay English; these give them again in the reader's language and clock.

extension Nowcast {
    /// The nowcast as one sentence at `now`, times of day in `timeZone` (the position's):
    /// `Rain in 20 min (moderate), until about 14:30`, `Rain stops in 15 min`.
    public func text(now: Date, timeZone: TimeZone, phrases: Phrases = .english) -> String {
        let what = phrases.precipitation(kind)
        func minutes(until date: Date) -> Int? { Phrases.roundedMinutes(date.timeIntervalSince(now) / 60) }
        if isOngoing {
            guard let stopsAt else { return phrases.continues(what, phrases.timeOfDay(knownUntil, in: timeZone)) }
            return phrases.stops(what, minutes(until: stopsAt))
        }
        let start = phrases.starts(what, minutes(until: startsAt), phrases.intensity(intensity))
        guard let stopsAt else { return phrases.lastingPast(start, phrases.timeOfDay(knownUntil, in: timeZone)) }
        return phrases.until(start, phrases.timeOfDay(stopsAt, in: timeZone))
    }
}

extension AirQuality {
    /// The air as one sentence: `Air quality moderate (European AQI 44, mostly PM2.5)`.
    public func text(phrases: Phrases = .english) -> String {
        phrases.air(
            phrases.category(category), phrases.scale(scale), Int(aqi.rounded()), dominant.map(phrases.pollutant))
    }
}

extension Phrases {
    /// `08:00` when `date` falls on the same local day as `now`, `Tue 08:00` on another: the local time at
    /// `utcOffsetSeconds` (the position's), or `08:00 UTC` when that is unknown.
    public func localTime(_ date: Date, now: Date, utcOffsetSeconds: Int?) -> String {
        guard let offset = utcOffsetSeconds else {
            return timeOfDay(date, in: TimeZone(secondsFromGMT: 0)!) + " UTC"
        }
        let text = Timestamps.rfc3339(date, utcOffsetSeconds: offset)
        let clock = timeOfDay(date, in: TimeZone(secondsFromGMT: offset) ?? TimeZone(secondsFromGMT: 0)!)
        let today = Timestamps.rfc3339(now, utcOffsetSeconds: offset).prefix(10)
        guard text.prefix(10) != today, let day = Timestamps.parseUTC(String(text.prefix(10))) else { return clock }
        return translation.text(
            "{weekday} {time}", context: "date", ["weekday": weekdayAbbreviated(Self.weekdayIndex(day)), "time": clock])
    }
}

extension WeatherWarning {
    /// `Frost`: the event as a heading (some sources write it in lower case).
    public var heading: String { event.prefix(1).uppercased() + event.dropFirst() }

    /// `Frost (minor)`.
    public func title(phrases: Phrases = .english) -> String {
        phrases.warning(heading, phrases.severity(severity))
    }

    /// `from Tue 00:00 until 08:00`, `until 21:00`: the onset when it is still ahead of `now`, and the end
    /// (``until``: the hazard's end where the source gives one, else the message's expiry), in local time at
    /// `utcOffsetSeconds` (``Phrases/localTime(_:now:utcOffsetSeconds:)``); nil when the warning has neither.
    /// "until" is never before "from": sources' periods that end before they start are refused when read.
    public func times(now: Date, utcOffsetSeconds: Int?, phrases: Phrases = .english) -> String? {
        var parts: [String] = []
        if let onset, onset > now {
            parts.append(phrases.warningFrom(phrases.localTime(onset, now: now, utcOffsetSeconds: utcOffsetSeconds)))
        }
        if let until, until > (onset ?? .distantPast) {
            parts.append(phrases.warningUntil(phrases.localTime(until, now: now, utcOffsetSeconds: utcOffsetSeconds)))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

extension ReportNowcast {
    /// The sentence in the language of `phrases`: the report's own ``text`` in English on a 24-hour clock
    /// (the report is written so, to stay the same whatever the reader's language and clock), composed
    /// again from the report's fields in any other language or on a 12-hour clock. `now` is the moment it was judged, the report's `updated_at`.
    public func text(phrases: Phrases, now: Date) -> String {
        phrases.language == "en" && phrases.clock == .h24 ? text : composedText(phrases: phrases, now: now) ?? text
    }

    /// The sentence composed from the fields, nil when they hold a kind or intensity this version does not know.
    func composedText(phrases: Phrases, now: Date) -> String? {
        guard let kind = PrecipitationKind(rawValue: kind), let intensity = PrecipitationIntensity(rawValue: intensity)
        else { return nil }
        let what = phrases.precipitation(kind)
        func minutes(_ stamp: String) -> Int? {
            Timestamps.parseUTC(stamp).flatMap { Phrases.roundedMinutes($0.timeIntervalSince(now) / 60) }
        }
        // The times carry the location's offset: their clock is the local time of day, on the user's clock.
        func clock(_ stamp: String) -> String {
            let local = Array(stamp.dropFirst(11).prefix(5))
            guard local.count == 5, let hour = Int(String(local[0..<2])), let minute = Int(String(local[3..<5])) else {
                return String(local)
            }
            return phrases.clock.clock(hour: hour, minute: minute)
        }
        if rainingNow {
            guard let stopsAt else { return phrases.continues(what, clock(knownUntil)) }
            return phrases.stops(what, minutes(stopsAt))
        }
        let start = phrases.starts(what, minutes(startsAt), phrases.intensity(intensity))
        guard let stopsAt else { return phrases.lastingPast(start, clock(knownUntil)) }
        return phrases.until(start, clock(stopsAt))
    }
}

extension ReportAir {
    /// The sentence in the language of `phrases`: the report's own ``text`` in English, composed again
    /// from the fields in any other.
    public func text(phrases: Phrases) -> String {
        phrases.language == "en" ? text : composedText(phrases: phrases) ?? text
    }

    /// The sentence composed from the fields, nil when they hold a scale or category this version does not know.
    func composedText(phrases: Phrases) -> String? {
        guard let scale = AQIScale(rawValue: aqiScale), let category = AirQualityCategory(rawValue: category) else {
            return nil
        }
        return phrases.air(
            phrases.category(category), phrases.scale(scale), aqi,
            dominant.flatMap(Pollutant.init(rawValue:)).map(phrases.pollutant))
    }
}

extension ReportError {
    /// The kinds whose English message names what to fix, so a reader in another language still needs it:
    /// `config` (the file, line and column, and what is allowed), `auth` (which provider refused), `gpsd`
    /// (the address gpsd is expected at) and `state` (the file that cannot be saved, and why).
    static let detailedKinds: Set<String> = [
        ErrorKind.config.rawValue, ErrorKind.auth.rawValue, ErrorKind.gpsd.rawValue, ErrorKind.state.rawValue,
    ]

    /// The problem in the language of `phrases`: the report's own ``message`` in English; in any other, the
    /// kind's sentence (``Phrases/error(_:)``), followed by the English message in parentheses where it is
    /// needed to act (``detailedKinds``). A kind this version does not know keeps its English message.
    public func text(phrases: Phrases) -> String {
        guard phrases.language != "en", let sentence = phrases.error(kind) else { return message }
        guard Self.detailedKinds.contains(kind) else { return sentence }
        let detail = message.hasSuffix(".") ? String(message.dropLast()) : message
        return phrases.errorWithDetail(sentence, detail)
    }
}
