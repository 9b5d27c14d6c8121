// The words users write in the settings file, on the socket and on forecastctl's command line, each
// defined once here and used by every module. The raw values are what users write.

import Foundation

/// A format a report can be rendered in: `format` of `[[output.files]]`, `format=` on the socket,
/// `forecastctl status|watch --format`.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// The report itself, one line of JSON (`docs/report.md`).
    case json
    /// A Waybar `custom` module with `"return-type": "json"`: `text`, `alt`, `tooltip`, `class`.
    case waybar
    /// i3blocks' plain protocol: three lines, `full_text`, `short_text`, `color`.
    case i3blocks
    /// One line for a polybar `custom/script`, coloured with `%{F#rrggbb}` tags.
    case polybar
    /// i3status-rust's `custom` block with `json = true`: `icon`, `state`, `text`, `short_text`.
    case i3statusRust = "i3status-rust"
    /// One line for tmux's status line; width-safe emoji by default, `#` escaped.
    case tmux
    /// One plain line for people, i3status `read_file` and conky.
    case text
    /// The user's template, with wttr.in's `%` codes or `{name}` placeholders.
    case template
}

/// The glyphs a bar shows for a condition, one set per kind of font and terminal: `icons` in the
/// settings, `icons=` on the socket, `forecastctl --icons`. Rendering draws them.
public enum IconSet: String, Sendable, Hashable, CaseIterable {
    /// Colour emoji, with U+FE0F where Unicode's default presentation is text (`☀️`, `☁️`).
    case emoji
    /// Only emoji that are one East-Asian-Wide code point with emoji presentation by default.
    ///
    /// tmux before 3.4 counts an emoji followed by U+FE0F (`☁️`) by its base character, one cell,
    /// while the terminal draws it in two: the status line then shifts and leaves stray characters.
    /// A single Wide code point (`🌞`, `⛅`, `☔`) is two cells for tmux, `wcwidth` and terminals
    /// alike. No Unicode cloud, fog or snowflake emoji is Wide by default, so this set substitutes
    /// close Wide ones (`💭` for clouds, `🌁` for fog, `⛄` for snow).
    case emojiSafe = "emoji-safe"
    /// Nerd Font weather glyphs (the Weather Icons block, U+E300–U+E3E3): one cell, need a Nerd Font.
    case nerd
    /// Short ASCII words (`SUN`, `MOON`, `CLOUD`, `RAIN`) for any font and any terminal.
    case text
}

/// How the daemon decides where it is: `location.mode`, `forecastctl mode`, `mode` on the socket.
public enum LocationMode: String, Sendable, Hashable, CaseIterable {
    /// Every source, best first: gpsd, its recent fix, the static file, IP geolocation, the pin.
    case auto
    /// The pin only, whatever the other sources say; gpsd is not asked.
    case pinned
}

/// A fixed place given by hand: `[location.pin]`, `forecastctl pin`, `pin` on the socket.
public struct Pin: Sendable, Hashable {
    /// Always ``Coordinate/isPlausible`` once it comes from the settings or the parser.
    public var coordinate: Coordinate
    /// What to call the place instead of the gazetteer's name; from a map link or `geo:` URI, already
    /// decoded, when it carried one.
    public var name: String?

    public init(coordinate: Coordinate, name: String? = nil) {
        self.coordinate = coordinate
        self.name = name
    }
}

/// A keyless IP geolocation service forecastd knows how to ask: the values of `location.ip.services`.
///
/// Each names its fields differently, and several answer errors with HTTP 200 and an error body;
/// Location reads each one's answers.
public enum IPGeolocationService: String, Sendable, Hashable, CaseIterable, Codable {
    /// ipinfo.io: `loc` is a `"lat,lon"` string; 1,000 lookups a day without a token.
    case ipinfo
    /// ipapi.co: `latitude`/`longitude`; rate limits come as `{"error":true,"reason":"RateLimited"}`.
    case ipapi
    /// ifconfig.co: `latitude`/`longitude`, `country_iso`; about one request a minute.
    case ifconfig
    /// ip-api.com: `lat`/`lon` with `status` `success` or `fail`; HTTP only without a key; `X-Rl`/`X-Ttl` headers.
    case ipAPI = "ip-api"
}

/// A weather service: the values of `providers.order`, and the report's `provider.name`.
public enum ProviderName: String, Sendable, Hashable, CaseIterable {
    case openMeteo = "open-meteo"
    case metNorway = "met-norway"
    case openWeatherMap = "openweathermap"
}

/// Where gpsd listens: `[location.gpsd] host` and `port`.
public struct GPSDAddress: Sendable, Hashable {
    /// A host name or IP address.
    public var host: String
    /// 1...65535.
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// Which air quality index to show: `[air] scale`.
public enum AQIScaleChoice: String, Sendable, Hashable, CaseIterable {
    /// The European index in the European countries, the US index elsewhere (``AQIScale/defaultScale(countryCode:)``).
    case auto
    /// The European Air Quality Index everywhere.
    case european
    /// The US Air Quality Index everywhere.
    case us

    /// The scale to ask for at a position in the country `countryCode` (the gazetteer's ISO code; nil at sea).
    public func scale(countryCode: String?) -> AQIScale {
        switch self {
        case .auto: AQIScale.defaultScale(countryCode: countryCode)
        case .european: .european
        case .us: .us
        }
    }
}

/// A time of day on a 24-hour clock, `HH:MM`: `[notifications] morning_summary`, the ends of `quiet_hours`.
public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 0 to 23.
    public var hour: Int
    /// 0 to 59.
    public var minute: Int

    /// nil unless `hour` is 0…23 and `minute` 0…59.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Reads `7:30` or `07:30` (24-hour clock); nil for anything else.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// Minutes since midnight.
    public var minuteOfDay: Int { hour * 60 + minute }

    /// `07:30`.
    public var description: String { String(format: "%02d:%02d", hour, minute) }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minuteOfDay < rhs.minuteOfDay }
}

/// A daily span of the clock, `22:00-07:00`: `[notifications] quiet_hours`. It may run past midnight
/// (start after end); start and end equal would be every hour or none, so it is refused.
public struct DailyPeriod: Sendable, Hashable, CustomStringConvertible {
    public var start: TimeOfDay
    /// The first minute after the period.
    public var end: TimeOfDay

    /// nil when `start` and `end` are the same minute.
    public init?(start: TimeOfDay, end: TimeOfDay) {
        guard start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// Reads `22:00-07:00` (spaces around the dash allowed); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = TimeOfDay(String(parts[0])), let end = TimeOfDay(String(parts[1])) else {
            return nil
        }
        self.init(start: start, end: end)
    }

    /// Whether the clock reading `time` falls inside (from `start` up to but not including `end`).
    public func contains(_ time: TimeOfDay) -> Bool {
        start < end ? (start <= time && time < end) : (time >= start || time < end)
    }

    /// `22:00-07:00`.
    public var description: String { "\(start)-\(end)" }
}

/// A change of the settings file that a user asks for, by `forecastctl` or on the socket: both give
/// it to `SettingsFileEditor.apply` (in Settings) and get the same file and the same answer.
public enum SettingsEditRequest: Sendable, Hashable {
    /// `units PRESET` (metric, imperial, uk, si: the quantities set apart from the preset go) or
    /// `units QUANTITY UNIT` (`wind kn`: the one-line form becomes the `[units]` table).
    case units(String)
    /// `mode auto|pinned`.
    case mode(String)
    /// `pin PLACE`: coordinates, a `geo:` URI, a map link, or a place name the place search knows;
    /// `name` replaces the name the place would get.
    case pin(String, name: String?)
    /// `unpin`: removes `[location.pin]`; in pinned mode the mode goes back to auto, the only mode
    /// left that means something without a pin.
    case unpin
    /// `set KEY VALUE`: any key that `SettingsKey.all` (in Settings) lists.
    case set(key: String, value: String)
}
