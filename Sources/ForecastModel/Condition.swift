/// What the sky is doing, independent of any provider's code list.
///
/// The raw values are stable identifiers: scripts and bar configs match on them.
public enum ConditionKind: String, Sendable, Hashable, Codable, CaseIterable {
    case clear
    case mainlyClear = "mainly_clear"
    case partlyCloudy = "partly_cloudy"
    case overcast
    case fog
    case drizzle
    case freezingDrizzle = "freezing_drizzle"
    case rain
    case freezingRain = "freezing_rain"
    case snow
    case snowGrains = "snow_grains"
    case rainShowers = "rain_showers"
    case snowShowers = "snow_showers"
    case thunderstorm
    case thunderstormHail = "thunderstorm_hail"
    /// Rain and snow mixed (MET Norway `sleet`, OpenWeatherMap 611–616).
    case sleet
    case sleetShowers = "sleet_showers"
    /// Smoke, haze, dust, sand or volcanic ash in the air (OpenWeatherMap 711–762).
    case haze
    /// Squalls (OpenWeatherMap 771).
    case squall
    /// Tornado (OpenWeatherMap 781).
    case tornado

    /// Maps a WMO 4677 present-weather code as Open-Meteo uses it (`weather_code`).
    /// Returns nil for codes outside the documented set, so a bad field degrades to "unknown".
    public init?(wmoCode: Int) {
        switch wmoCode {
        case 0: self = .clear
        case 1: self = .mainlyClear
        case 2: self = .partlyCloudy
        case 3: self = .overcast
        case 45, 48: self = .fog
        case 51, 53, 55: self = .drizzle
        case 56, 57: self = .freezingDrizzle
        case 61, 63, 65: self = .rain
        case 66, 67: self = .freezingRain
        case 71, 73, 75: self = .snow
        case 77: self = .snowGrains
        case 80, 81, 82: self = .rainShowers
        case 85, 86: self = .snowShowers
        case 95: self = .thunderstorm
        case 96, 99: self = .thunderstormHail
        default: return nil
        }
    }

    /// Maps a MET Norway symbol code (`rainshowers_day`, `cloudy`, `heavysnowandthunder`).
    ///
    /// The `_day`/`_night`/`_polartwilight` suffix is ignored here (see ``metNorwayIsDay(_:)``);
    /// intensity (`light`, `heavy`) is not kept. The two misspelt codes the API really sends
    /// (`lightssleetshowersandthunder`, `lightssnowshowersandthunder`) map like their correct spellings.
    /// Returns nil for codes outside the published legend.
    public init?(metNorwaySymbol code: String) {
        var base = Substring(code.trimmingCharacters(in: .whitespaces).lowercased())
        for suffix in ["_day", "_night", "_polartwilight"] where base.hasSuffix(suffix) {
            base = base.dropLast(suffix.count)
            break
        }
        // The legend's typos double the "s" after "light": drop one so both spellings match.
        if base.hasPrefix("lightss") { base = "light" + base.dropFirst("lights".count) }
        for prefix in ["light", "heavy"] where base.hasPrefix(prefix) {
            base = base.dropFirst(prefix.count)
            break
        }
        switch base {
        case "clearsky": self = .clear
        case "fair": self = .mainlyClear
        case "partlycloudy": self = .partlyCloudy
        case "cloudy": self = .overcast
        case "fog": self = .fog
        case "rainshowers": self = .rainShowers
        case "sleetshowers": self = .sleetShowers
        case "snowshowers": self = .snowShowers
        case "rain": self = .rain
        case "sleet": self = .sleet
        case "snow": self = .snow
        case "rainshowersandthunder", "sleetshowersandthunder", "snowshowersandthunder", "rainandthunder",
            "sleetandthunder", "snowandthunder":
            self = .thunderstorm
        default: return nil
        }
    }

    /// Whether a MET Norway symbol code says day (`_day`), night (`_night` or `_polartwilight`, when
    /// the sun stays below the horizon), or nothing (codes without variants, such as `cloudy`).
    public static func metNorwayIsDay(_ code: String) -> Bool? {
        let code = code.trimmingCharacters(in: .whitespaces).lowercased()
        if code.hasSuffix("_day") { return true }
        if code.hasSuffix("_night") || code.hasSuffix("_polartwilight") { return false }
        return nil
    }

    /// Maps an OpenWeatherMap condition id (`weather[0].id`, 200–804).
    /// Returns nil for ids outside the published list.
    public init?(openWeatherMapCode code: Int) {
        switch code {
        case 200...202, 210...212, 221, 230...232: self = .thunderstorm
        case 300...302, 310...314, 321: self = .drizzle
        case 500...504: self = .rain
        case 511: self = .freezingRain
        case 520...522, 531: self = .rainShowers
        case 600...602: self = .snow
        case 611, 615, 616: self = .sleet
        case 612, 613: self = .sleetShowers
        case 620...622: self = .snowShowers
        case 701, 741: self = .fog
        case 711, 721, 731, 751, 761, 762: self = .haze
        case 771: self = .squall
        case 781: self = .tornado
        case 800: self = .clear
        case 801: self = .mainlyClear
        case 802: self = .partlyCloudy
        case 803, 804: self = .overcast
        default: return nil
        }
    }

    /// Whether an OpenWeatherMap icon (`01d`, `10n`) is the day or the night variant.
    public static func openWeatherMapIsDay(icon: String) -> Bool? {
        let icon = icon.trimmingCharacters(in: .whitespaces).lowercased()
        if icon.count == 3, icon.hasSuffix("d") { return true }
        if icon.count == 3, icon.hasSuffix("n") { return false }
        return nil
    }

    /// How much a condition matters to someone planning a day, higher is worse.
    ///
    /// A day's condition is its most severe one, the rule Open-Meteo applies to its daily
    /// `weather_code`, so forecasts built from steps (MET Norway, OpenWeatherMap) read the same.
    public var severity: Int {
        switch self {
        case .clear: 0
        case .mainlyClear: 1
        case .partlyCloudy: 2
        case .overcast: 3
        case .haze: 4
        case .fog: 5
        case .drizzle: 6
        case .rainShowers: 7
        case .sleetShowers: 8
        case .snowShowers: 9
        case .snowGrains: 10
        case .rain: 11
        case .sleet: 12
        case .snow: 13
        case .freezingDrizzle: 14
        case .freezingRain: 15
        case .squall: 16
        case .thunderstorm: 17
        case .thunderstormHail: 18
        case .tornado: 19
        }
    }

    /// Text for people, in English.
    public var text: String {
        switch self {
        case .clear: "Clear sky"
        case .mainlyClear: "Mainly clear"
        case .partlyCloudy: "Partly cloudy"
        case .overcast: "Overcast"
        case .fog: "Fog"
        case .drizzle: "Drizzle"
        case .freezingDrizzle: "Freezing drizzle"
        case .rain: "Rain"
        case .freezingRain: "Freezing rain"
        case .snow: "Snow"
        case .snowGrains: "Snow grains"
        case .rainShowers: "Rain showers"
        case .snowShowers: "Snow showers"
        case .thunderstorm: "Thunderstorm"
        case .thunderstormHail: "Thunderstorm with hail"
        case .sleet: "Sleet"
        case .sleetShowers: "Sleet showers"
        case .haze: "Haze"
        case .squall: "Squalls"
        case .tornado: "Tornado"
        }
    }

    /// Whether the sun or moon shows, so the icon must differ between day and night.
    var dependsOnDaylight: Bool {
        switch self {
        case .clear, .mainlyClear, .partlyCloudy: true
        default: false
        }
    }

    /// The condition as shown at a moment: day/night picks the icon.
    public func condition(isDay: Bool) -> Condition {
        Condition(kind: self, isDay: isDay)
    }
}

/// A condition as a reader sees it: a stable code, a text and a day/night-aware icon.
public struct Condition: Sendable, Hashable, Codable {
    /// The stable identifier, the raw value of ``ConditionKind``.
    public var code: String
    public var text: String
    /// A stable icon name (`clear-day`, `clear-night`, `rain`…): bar configs map these to glyphs.
    public var icon: String
    /// The same icon as an emoji.
    public var emoji: String

    public init(code: String, text: String, icon: String, emoji: String) {
        self.code = code
        self.text = text
        self.icon = icon
        self.emoji = emoji
    }

    public init(kind: ConditionKind, isDay: Bool) {
        let suffix = kind.dependsOnDaylight ? (isDay ? "-day" : "-night") : ""
        let base: String
        let emoji: String
        switch kind {
        case .clear: (base, emoji) = ("clear", isDay ? "☀️" : "🌙")
        case .mainlyClear: (base, emoji) = ("mainly-clear", isDay ? "🌤️" : "🌙")
        case .partlyCloudy: (base, emoji) = ("partly-cloudy", isDay ? "⛅" : "☁️")
        case .overcast: (base, emoji) = ("overcast", "☁️")
        case .fog: (base, emoji) = ("fog", "🌫️")
        case .drizzle, .freezingDrizzle: (base, emoji) = (kind == .drizzle ? "drizzle" : "freezing-drizzle", isDay ? "🌦️" : "🌧️")
        case .rain, .rainShowers: (base, emoji) = (kind == .rain ? "rain" : "rain-showers", "🌧️")
        case .freezingRain: (base, emoji) = ("freezing-rain", "🌧️")
        case .snow, .snowGrains, .snowShowers:
            (base, emoji) = (kind == .snow ? "snow" : kind == .snowGrains ? "snow-grains" : "snow-showers", "🌨️")
        case .thunderstorm: (base, emoji) = ("thunderstorm", "⛈️")
        case .thunderstormHail: (base, emoji) = ("thunderstorm-hail", "⛈️")
        case .sleet: (base, emoji) = ("sleet", "🌨️")
        case .sleetShowers: (base, emoji) = ("sleet-showers", "🌨️")
        case .haze: (base, emoji) = ("haze", "🌫️")
        case .squall: (base, emoji) = ("squall", "💨")
        case .tornado: (base, emoji) = ("tornado", "🌪️")
        }
        self.init(code: kind.rawValue, text: kind.text, icon: base + suffix, emoji: emoji)
    }
}
