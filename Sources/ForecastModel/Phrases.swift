import Foundation
import Localization

/// Every word and sentence forecastd puts in front of people, in one language: condition names, wind
/// directions, days, ages, and the nowcast's, the air's, the warnings' and the notifications' sentences.
///
/// The words live in the gettext catalogues (Sources/Localization/po: `forecastd.pot` is the English
/// template); this type only says which entry each text is and fills in its placeholders. The functions
/// that build texts (``Nowcast/text(now:timeZone:phrases:)``, ``AirQuality/text(phrases:)``, the renderers,
/// the notifications) take one.
public struct Phrases: Sendable {
    /// The catalogue lookups.
    public let translation: Translation
    /// The clock times of day are written on (`14:50` or `2:50 PM`): the user's `[units] time`, which the
    /// renderers set from the report's units; 24 hours unless told.
    public var clock: TimeFormat = .h24

    /// The phrases of `translation`'s language.
    public init(_ translation: Translation) {
        self.translation = translation
    }

    /// English.
    public static let english = Phrases(.english)

    /// The language's code (`en`, `es`, `pt_BR`).
    public var language: String { translation.language }

    private func text(_ msgid: String, _ context: String? = nil, _ values: KeyValuePairs<String, String> = [:])
        -> String
    {
        translation.text(msgid, context: context, values)
    }

    // MARK: Numbers and lists

    /// A number formatted with `.` written with the language's decimal separator (`12,5` in Spanish).
    public func number(_ formatted: String) -> String { translation.number(formatted) }

    /// Items joined by the language's list separator (`, `).
    public func list(_ items: [String]) -> String { translation.list(items) }

    // MARK: Conditions, wind, days

    /// `Clear sky`, `Rain showers`: a condition's name, the same by day and by night.
    public func condition(_ kind: ConditionKind) -> String { text(kind.text, "condition") }

    /// A report's condition by its code; its own (English) text when the code is unknown.
    public func condition(_ condition: Condition) -> String {
        ConditionKind(rawValue: condition.code).map(self.condition) ?? condition.text
    }

    /// The 16 compass points, north first, in English: the catalogue's keys.
    public static let compassPoints = [
        "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW",
    ]

    /// `WSW`: the 16-point compass name of a direction the wind comes from, in degrees.
    public func compassPoint(_ degrees: Double) -> String {
        let index = Int((degrees.truncatingRemainder(dividingBy: 360) + 360 + 11.25) / 22.5) % 16
        return text(Self.compassPoints[index], "wind direction")
    }

    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// `Tue`: a weekday abbreviated, 0 for Sunday.
    public func weekdayAbbreviated(_ index: Int) -> String {
        text(String(Self.weekdayNames[((index % 7) + 7) % 7].prefix(3)), "weekday abbreviated")
    }

    /// `Tuesday`: a weekday in full, 0 for Sunday.
    public func weekday(_ index: Int) -> String { text(Self.weekdayNames[((index % 7) + 7) % 7], "weekday") }

    /// `Nov`: a month abbreviated, 1 for January.
    public func monthAbbreviated(_ month: Int) -> String {
        text(String(Self.monthNames[((month - 1) % 12 + 12) % 12].prefix(3)), "month abbreviated")
    }

    /// `November`: a month in full, 1 for January.
    public func month(_ month: Int) -> String { text(Self.monthNames[((month - 1) % 12 + 12) % 12], "month") }

    /// `Mon 23`: a day of a table of days, from its `YYYY-MM-DD`; the date as given when it is not one.
    public func shortDate(_ date: String) -> String {
        guard let day = Timestamps.parseUTC(date) else { return date }
        return text("{weekday} {day}", "date", ["weekday": weekdayAbbreviated(Self.weekdayIndex(day)), "day": String(date.suffix(2))])
    }

    /// Sunday 0 … Saturday 6 of a UTC midnight.
    static func weekdayIndex(_ day: Date) -> Int {
        // 1970-01-01 was a Thursday.
        let days = Int((day.timeIntervalSince1970 / 86_400).rounded(.down))
        return ((days + 4) % 7 + 7) % 7
    }

    /// `Today`: the forecast table's first day.
    public var today: String { text("Today", "day") }

    // MARK: Ages and durations

    /// `just now`, `3 min ago`, `2 h ago`, `3 days ago`: how old a forecast fetched `seconds` ago is.
    public func ago(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds))
        if s < 90 { return text("just now", "age") }
        func count(_ one: String, _ many: String, _ n: Int) -> String {
            translation.plural(one, many, count: n, context: "age", ["count": String(n)])
        }
        if s < 90 * 60 { return count("{count} min ago", "{count} min ago", s / 60) }
        if s < 36 * 3600 { return count("{count} h ago", "{count} h ago", s / 3600) }
        return count("{count} day ago", "{count} days ago", s / 86_400)
    }

    /// `<1 min`, `5 min`, `3 h`, `2 d`: a short age, rounded down.
    public func duration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        func count(_ unit: String, _ n: Int) -> String {
            translation.plural(unit, unit, count: n, context: "duration", ["count": String(n)])
        }
        if s < 60 { return text("<1 min", "duration") }
        if s < 90 * 60 { return count("{count} min", s / 60) }
        if s < 48 * 3600 { return count("{count} h", s / 3600) }
        return count("{count} d", s / 86_400)
    }

    /// `3 h ago` from a short duration.
    public func durationAgo(_ duration: String) -> String { text("{duration} ago", "age", ["duration": duration]) }

    // MARK: Units

    /// The unit symbols the catalogues translate (Russian writes `км/ч`); others (`°C`, `%`) are the same
    /// everywhere.
    public static let translatedUnits: Set<String> = [
        "km/h", "m/s", "mph", "kn", "Bft", "hPa", "mmHg", "inHg", "kPa", "mm", "in", "km", "mi",
    ]

    /// A unit symbol as the language writes it.
    public func unit(_ symbol: String) -> String {
        Self.translatedUnits.contains(symbol) ? text(symbol, "unit") : symbol
    }

    /// `Gentle breeze`: the name of Beaufort force `force` (0–12, clamped), from ``UnitWords/beaufortName(_:)``.
    public func beaufort(_ force: Int) -> String { text(UnitWords.beaufortName(force), "beaufort") }

    // MARK: The nowcast

    /// `Rain`, `Snow`, `Sleet`: what falls, at the start of a sentence.
    public func precipitation(_ kind: PrecipitationKind) -> String {
        switch kind {
        case .rain: text("Rain", "precipitation")
        case .snow: text("Snow", "precipitation")
        case .sleet: text("Sleet", "precipitation")
        }
    }

    /// `light`, `moderate`, `heavy`.
    public func intensity(_ intensity: PrecipitationIntensity) -> String { text(intensity.rawValue, "intensity") }

    /// `Rain in 20 min (moderate)`; `minutes` is nil when it starts any minute now.
    public func starts(_ what: String, _ minutes: Int?, _ intensity: String) -> String {
        guard let minutes else { return text("{what} any minute ({intensity})", nil, ["what": what, "intensity": intensity]) }
        return translation.plural(
            "{what} in {minutes} min ({intensity})", "{what} in {minutes} min ({intensity})", count: minutes,
            ["what": what, "minutes": String(minutes), "intensity": intensity])
    }

    /// `Rain in 20 min (moderate), until about 14:30`: ``starts(_:_:_:)`` when the data shows it stopping.
    public func until(_ start: String, _ time: String) -> String {
        text("{start}, until about {time}", nil, ["start": start, "time": time])
    }

    /// `…, lasting past 16:45`: ``starts(_:_:_:)`` when it is still falling where the data ends.
    public func lastingPast(_ start: String, _ time: String) -> String {
        text("{start}, lasting past {time}", nil, ["start": start, "time": time])
    }

    /// `Rain stops in 15 min`; `minutes` is nil when it stops any minute now.
    public func stops(_ what: String, _ minutes: Int?) -> String {
        guard let minutes else { return text("{what} stops any minute", nil, ["what": what]) }
        return translation.plural(
            "{what} stops in {minutes} min", "{what} stops in {minutes} min", count: minutes,
            ["what": what, "minutes": String(minutes)])
    }

    /// `Rain until after 16:45`: falling now and still falling where the data ends.
    public func continues(_ what: String, _ time: String) -> String {
        text("{what} until after {time}", nil, ["what": what, "time": time])
    }

    /// `in 20 min`, for bar texts beside the temperature; `minutes` is nil when it starts any minute now.
    public func soonStarts(_ minutes: Int?) -> String {
        guard let minutes else { return text("any minute", "bar") }
        return translation.plural(
            "in {minutes} min", "in {minutes} min", count: minutes, context: "bar", ["minutes": String(minutes)])
    }

    /// `stops in 15 min`; `minutes` is nil when it stops any minute now.
    public func soonStops(_ minutes: Int?) -> String {
        guard let minutes else { return text("stops any minute", "bar") }
        return translation.plural(
            "stops in {minutes} min", "stops in {minutes} min", count: minutes, context: "bar",
            ["minutes": String(minutes)])
    }

    // MARK: The air

    /// `European AQI`, `US AQI`.
    public func scale(_ scale: AQIScale) -> String {
        switch scale {
        case .european: text("European AQI", "air quality")
        case .us: text("US AQI", "air quality")
        }
    }

    /// `good`, `unhealthy for sensitive groups`.
    public func category(_ category: AirQualityCategory) -> String {
        text(category.rawValue.replacingOccurrences(of: "_", with: " "), "air quality")
    }

    /// `PM2.5`, `ozone`.
    public func pollutant(_ pollutant: Pollutant) -> String {
        let english =
            switch pollutant {
            case .pm2_5: "PM2.5"
            case .pm10: "PM10"
            case .o3: "ozone"
            case .no2: "nitrogen dioxide"
            case .so2: "sulphur dioxide"
            case .co: "carbon monoxide"
            }
        return text(english, "pollutant")
    }

    /// `Air quality moderate (European AQI 44, mostly PM2.5)`; `dominant` is nil when unknown.
    public func air(_ category: String, _ scale: String, _ aqi: Int, _ dominant: String?) -> String {
        guard let dominant else {
            return text("Air quality {category} ({scale} {aqi})", nil, ["category": category, "scale": scale, "aqi": String(aqi)])
        }
        return text(
            "Air quality {category} ({scale} {aqi}, mostly {pollutant})", nil,
            ["category": category, "scale": scale, "aqi": String(aqi), "pollutant": dominant])
    }

    /// After the air's line when the air quality service has not answered well for over an hour.
    public var airStale: String { text("(may be out of date)") }

    /// `birch`: a plant by its report key (`alder`, `birch`, `grass`, `mugwort`, `olive`, `ragweed`).
    public func plant(_ key: String) -> String { text(key, "pollen") }

    /// `Pollen: birch 45, grass 12 grains/m³`, the plants already named and rounded, most first.
    public func pollen(_ plants: [(name: String, grains: Int)]) -> String {
        let items = plants.map { text("{plant} {grains}", "pollen", ["plant": $0.name, "grains": String($0.grains)]) }
        return text("Pollen: {plants} grains/m³", nil, ["plants": list(items)])
    }

    // MARK: Warnings

    /// `minor`, `moderate`, `severe`, `extreme`.
    public func severity(_ severity: WarningSeverity) -> String { text(severity.rawValue, "warning severity") }

    /// `Frost (minor)`: a warning's event and severity.
    public func warning(_ event: String, _ severity: String) -> String {
        text("{event} ({severity})", "warning", ["event": event, "severity": severity])
    }

    /// `Frost, now severe`: a warning whose severity went up.
    public func warningUpgraded(_ event: String, _ severity: String) -> String {
        text("{event}, now {severity}", "warning", ["event": event, "severity": severity])
    }

    /// `from Tue 00:00`: when a warning comes into force, if later than now.
    public func warningFrom(_ time: String) -> String { text("from {time}", "warning", ["time": time]) }

    /// `until 08:00`: when it expires.
    public func warningUntil(_ time: String) -> String { text("until {time}", "warning", ["time": time]) }

    /// `+2 more`: the other warnings, after the first one.
    public func moreWarnings(_ count: Int) -> String {
        translation.plural("+{count} more", "+{count} more", count: count, context: "warning", ["count": String(count)])
    }

    /// `2 warnings in force`.
    public func warningsInForce(_ count: Int) -> String {
        translation.plural(
            "{count} warning in force", "{count} warnings in force", count: count, context: "warning",
            ["count": String(count)])
    }

    /// After a warning whose area its source did not let forecastd confirm (the report's `area_confirmed` false).
    public var areaNotConfirmed: String {
        text("area not confirmed", "warning")
    }

    /// Under the warnings when their source has not answered well for longer than its interval and grace.
    public var warningsStale: String {
        text("These warnings may be out of date: their source has not answered lately.", "warning")
    }

    /// `No warning is in force for Berlin.`; `place` is nil when unknown.
    public func noWarnings(_ place: String?) -> String {
        guard let place else { return text("No warning is in force here.", "warning") }
        return text("No warning is in force for {place}.", "warning", ["place": place])
    }

    /// What `forecastctl warnings` says when the report has no warnings at all.
    public var warningsUnavailable: String {
        text(
            "No warnings: the warning sources are switched off ([warnings] enabled), none serves this country, "
                + "or the daemon has not asked yet.", "warning")
    }

    /// The headers of `forecastctl warnings`: severity, event, from, until, area, source.
    public var warningsTableHeaders: [String] {
        ["Severity", "Event", "From", "Until", "Area", "Source"].map { text($0, "warnings table") }
    }

    /// `Sun` … `Sat`, Sunday first: the day of a time that is not today.
    public var weekdays: [String] { (0..<7).map(weekdayAbbreviated) }

    // MARK: Errors

    /// What a report error of `kind` (``ErrorKind``'s raw value) means, in one sentence: `The weather
    /// service cannot be reached (no network).`; nil for a kind this version does not know.
    ///
    /// The report's own `message` stays English (the report is locale-free); these sentences are what a
    /// reader in another language sees instead (``ReportError/text(phrases:)``).
    public func error(_ kind: String) -> String? {
        guard let kind = ErrorKind(rawValue: kind) else { return nil }
        return switch kind {
        case .config: text("The settings file has a mistake; the last good settings are in force.", "error")
        case .noLocation:
            text("The position is unknown: set one with `forecastctl pin LAT,LON` or [location.pin] in the settings.", "error")
        case .gpsd: text("The GPS receiver's position cannot be read from gpsd.", "error")
        case .offline: text("The weather service cannot be reached (no network).", "error")
        case .timeout: text("The weather service did not answer in time.", "error")
        case .rateLimited: text("The weather service has had too many requests; forecastd asks again later.", "error")
        case .auth: text("The weather service refused access (API key or identification).", "error")
        case .providerError: text("The weather service answered with an error, or its address is not usable.", "error")
        case .badResponse:
            text("The weather service's answer could not be used (incomplete, not a forecast or out of date).", "error")
        case .state: text("forecastd cannot save one of its files (saved state, history or status file).", "error")
        case .warnings: text("The official warnings could not be read lately; those shown may be out of date.", "error")
        case .air: text("The air quality could not be read lately; the reading shown may be out of date.", "error")
        case .warningsUnplaced:
            text("Some official warnings for this country could not be placed; they are listed with their area not confirmed.", "error")
        case .warningsPartial:
            text("The warning service sent more warnings than forecastd reads; the least severe were left out.", "error")
        case .vpn:
            text("Traffic leaves through a VPN, so IP geolocation is not used: it would place the VPN's exit, not this machine.", "error")
        }
    }

    /// `{sentence} ({detail})`: an error's sentence followed by the English detail a reader needs to act on.
    public func errorWithDetail(_ sentence: String, _ detail: String) -> String {
        text("{sentence} ({detail})", "error", ["sentence": sentence, "detail": detail])
    }

    // MARK: Notifications

    /// `70 % chance`: the chance of precipitation of a rain notification.
    public func chance(_ percent: Int) -> String { text("{percent} % chance", "notification", ["percent": String(percent)]) }

    /// `Today in Berlin`, `Today` when the place is unknown: the morning summary's title.
    public func today(_ place: String?) -> String {
        guard let place else { return text("Today", "notification") }
        return text("Today in {place}", "notification", ["place": place])
    }

    /// `Overcast, 8 to 12 °C`: the day's condition and range; `condition` is nil when unknown.
    public func dayRange(_ condition: String?, _ low: String, _ high: String) -> String {
        guard let condition else { return text("{low} to {high}", "notification", ["low": low, "high": high]) }
        return text("{condition}, {low} to {high}", "notification", ["condition": condition, "low": low, "high": high])
    }

    /// `Chance of precipitation 60 %`.
    public func chanceOfPrecipitation(_ percent: Int) -> String {
        text("Chance of precipitation {percent} %", "notification", ["percent": String(percent)])
    }

    /// The label of the action that opens a warning's page.
    public var openWarning: String { text("Open warning", "notification") }

    /// `9990 more warnings`: the title of the one notification for the new warnings beyond those shown alone.
    public func moreWarningsNotified(_ count: Int) -> String {
        translation.plural(
            "{count} more warning", "{count} more warnings", count: count, context: "notification",
            ["count": String(count)])
    }

    /// Where that notification sends its reader for the warnings it only counts.
    public var allWarningsListed: String { text("forecastctl warnings lists them all.", "notification") }

    /// Minutes as a text shows them: to the nearest 5 (a half rounds down), at least 5; nil up to
    /// 2.5 ("any minute").
    ///
    /// The model's periods are 15 minutes or an hour long, so finer minutes would claim a precision
    /// the data does not have, and the text would change every minute. It changes when 2.5, 7.5,
    /// 12.5 … minutes are left, and at those very moments already shows the lower number, so a timer
    /// set for them (``Nowcast/nextChange(_:after:horizon:)``) finds the new text.
    public static func roundedMinutes(_ minutes: Double) -> Int? {
        guard minutes > 2.5 else { return nil }
        return Int(((minutes - 2.5) / 5).rounded(.up)) * 5
    }

    /// `14:30` (or `2:30 PM` on a 12-hour ``clock``): the time of day of `date` in `timeZone`.
    public func timeOfDay(_ date: Date, in timeZone: TimeZone) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
        return clock.clock(hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60)
    }
}
