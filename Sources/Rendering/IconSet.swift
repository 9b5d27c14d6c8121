import ForecastModel

/// The glyphs of each ``IconSet`` (the vocabulary lives in ForecastModel).
///
/// Every set maps each of the report's `condition.icon` names to one glyph. Two rules hold in every
/// set: a night (an icon ending in `-night`, or `isDay == false`) never draws a sun, and an unknown
/// name draws a question mark rather than nothing.
extension IconSet {
    /// Every icon name a report can carry (`condition.icon`), in the order of `docs/report.md`.
    public static let iconNames: [String] = [
        "clear-day", "clear-night", "mainly-clear-day", "mainly-clear-night", "partly-cloudy-day",
        "partly-cloudy-night", "overcast", "fog", "drizzle", "freezing-drizzle", "rain", "rain-showers",
        "freezing-rain", "snow", "snow-grains", "snow-showers", "thunderstorm", "thunderstorm-hail", "sleet",
        "sleet-showers", "haze", "squall", "tornado",
    ]

    /// The glyph for an icon name.
    ///
    /// - Parameter isDay: whether it is daytime where the forecast is for, when known. `false` turns a
    ///   `-day` name into its `-night` sibling and replaces glyphs that show a sun behind rain, so that
    ///   the night never shows a sun even when a name carries no day/night suffix.
    public func glyph(forIcon name: String, isDay: Bool? = nil) -> String {
        var name = name
        if isDay == false, name.hasSuffix("-day") { name = String(name.dropLast(4)) + "-night" }
        let night = isDay == false || name.hasSuffix("-night")
        return table(name, night: night) ?? unknownGlyph
    }

    /// The glyph for a report's condition, or nil when the report has none.
    public func glyph(for condition: Condition?, isDay: Bool?) -> String? {
        condition.map { glyph(forIcon: $0.icon, isDay: isDay) }
    }

    /// What an icon name this version does not know draws.
    public var unknownGlyph: String {
        switch self {
        case .emoji, .emojiSafe: "❔"
        case .nerd: "\u{E374}"  // nf-weather-na
        case .text: "?"
        }
    }

    /// What goes before "no data" when a bar has nothing to show at all (no daemon, no status file): a glyph
    /// the bar's colour can grey, or none. Colour emoji ignore the colour (`❔` is the brightest thing in a
    /// grey module), so the emoji sets have none; the Nerd Font's "not available" is a plain font glyph.
    public var noDataGlyph: String? {
        switch self {
        case .nerd: "\u{E374}"  // nf-weather-na
        case .emoji, .emojiSafe, .text: nil
        }
    }

    /// The glyph that goes with a short state text when there is no weather to show.
    func stateGlyph(_ status: ReportStatus) -> String? {
        switch (self, status) {
        case (_, .ok): nil
        case (.text, _): nil
        case (.nerd, _): "\u{E374}"  // nf-weather-na
        case (_, .noLocation): "📍?"
        case (_, .locating): "📍"
        case (_, .noForecast): "⏳"
        }
    }

    private func table(_ name: String, night: Bool) -> String? {
        switch self {
        case .emoji: Self.emojiGlyph(name, night: night)
        case .emojiSafe: Self.emojiSafeGlyph(name)
        case .nerd: Self.nerdGlyph(name)
        case .text: Self.textGlyph(name)
        }
    }

    /// The model's emoji (`Condition.emoji`), except that drizzle at night drops the sun of `🌦️`.
    private static func emojiGlyph(_ name: String, night: Bool) -> String? {
        switch name {
        case "clear-day": "☀️"
        case "clear-night", "mainly-clear-night": "🌙"
        case "mainly-clear-day": "🌤️"
        case "partly-cloudy-day": "⛅"
        case "partly-cloudy-night", "overcast": "☁️"
        case "fog": "🌫️"
        case "drizzle", "freezing-drizzle": night ? "🌧️" : "🌦️"
        case "rain", "rain-showers", "freezing-rain": "🌧️"
        case "snow", "snow-grains", "snow-showers": "🌨️"
        case "thunderstorm", "thunderstorm-hail": "⛈️"
        case "sleet", "sleet-showers": "🌨️"
        case "haze": "🌫️"
        case "squall": "💨"
        case "tornado": "🌪️"
        default: nil
        }
    }

    /// One Wide code point each, none followed by U+FE0F (see ``emojiSafe``).
    private static func emojiSafeGlyph(_ name: String) -> String? {
        switch name {
        case "clear-day", "mainly-clear-day": "🌞"  // U+1F31E
        case "clear-night", "mainly-clear-night": "🌙"  // U+1F319
        case "partly-cloudy-day": "⛅"  // U+26C5
        case "partly-cloudy-night", "overcast": "💭"  // U+1F4AD, the only Wide cloud shape
        case "fog": "🌁"  // U+1F301
        case "drizzle": "💧"  // U+1F4A7
        case "freezing-drizzle", "freezing-rain": "🧊"  // U+1F9CA
        case "rain", "rain-showers": "☔"  // U+2614
        case "snow", "snow-grains", "snow-showers": "⛄"  // U+26C4
        case "thunderstorm", "thunderstorm-hail": "⚡"  // U+26A1
        case "sleet", "sleet-showers": "🧊"  // U+1F9CA
        case "haze": "🌁"  // U+1F301
        case "squall": "💨"  // U+1F4A8
        case "tornado": "🌀"  // U+1F300
        default: nil
        }
    }

    /// Nerd Font names as in its `glyphnames.json` (`nf-weather-…`).
    private static func nerdGlyph(_ name: String) -> String? {
        switch name {
        case "clear-day": "\u{E30D}"  // nf-weather-day_sunny
        case "clear-night": "\u{E32B}"  // nf-weather-night_clear
        case "mainly-clear-day": "\u{E30C}"  // nf-weather-day_sunny_overcast
        case "mainly-clear-night": "\u{E379}"  // nf-weather-night_alt_partly_cloudy
        case "partly-cloudy-day": "\u{E302}"  // nf-weather-day_cloudy
        case "partly-cloudy-night": "\u{E37E}"  // nf-weather-night_alt_cloudy
        case "overcast": "\u{E312}"  // nf-weather-cloudy
        case "fog": "\u{E313}"  // nf-weather-fog
        case "drizzle": "\u{E31B}"  // nf-weather-sprinkle
        case "freezing-drizzle": "\u{E3AD}"  // nf-weather-sleet
        case "rain": "\u{E318}"  // nf-weather-rain
        case "rain-showers": "\u{E319}"  // nf-weather-showers
        case "freezing-rain": "\u{E316}"  // nf-weather-rain_mix
        case "snow", "snow-showers": "\u{E31A}"  // nf-weather-snow
        case "snow-grains": "\u{E36F}"  // nf-weather-snowflake_cold
        case "thunderstorm": "\u{E31D}"  // nf-weather-thunderstorm
        case "thunderstorm-hail": "\u{E314}"  // nf-weather-hail
        case "sleet", "sleet-showers": "\u{E3AD}"  // nf-weather-sleet
        case "haze": "\u{E35C}"  // nf-weather-smoke
        case "squall": "\u{E34B}"  // nf-weather-strong_wind
        case "tornado": "\u{E351}"  // nf-weather-tornado
        default: nil
        }
    }

    private static func textGlyph(_ name: String) -> String? {
        switch name {
        case "clear-day", "mainly-clear-day": "SUN"
        case "clear-night", "mainly-clear-night": "MOON"
        case "partly-cloudy-day", "partly-cloudy-night", "overcast": "CLOUD"
        case "fog": "FOG"
        case "drizzle": "DRIZZLE"
        case "freezing-drizzle", "freezing-rain": "ICE"
        case "rain", "rain-showers": "RAIN"
        case "snow", "snow-grains", "snow-showers": "SNOW"
        case "thunderstorm", "thunderstorm-hail": "STORM"
        case "sleet", "sleet-showers": "SLEET"
        case "haze": "HAZE"
        case "squall": "WIND"
        case "tornado": "TORNADO"
        default: nil
        }
    }
}
