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
        case .drizzle, .freezingDrizzle: (base, emoji) = (kind == .drizzle ? "drizzle" : "freezing-drizzle", "🌦️")
        case .rain, .rainShowers: (base, emoji) = (kind == .rain ? "rain" : "rain-showers", "🌧️")
        case .freezingRain: (base, emoji) = ("freezing-rain", "🌧️")
        case .snow, .snowGrains, .snowShowers:
            (base, emoji) = (kind == .snow ? "snow" : kind == .snowGrains ? "snow-grains" : "snow-showers", "🌨️")
        case .thunderstorm: (base, emoji) = ("thunderstorm", "⛈️")
        case .thunderstormHail: (base, emoji) = ("thunderstorm-hail", "⛈️")
        }
        self.init(code: kind.rawValue, text: kind.text, icon: base + suffix, emoji: emoji)
    }
}
