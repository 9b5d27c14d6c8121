import Foundation

// The units a user reads values in, per quantity. Forecasts are held in canonical metric units (°C,
// km/h, hPa, mm, km) and converted only when a report is made, so a change of units never needs new
// data. The raw values of the enums are the words users write in `[units]`; their symbols and the
// Beaufort names are the English words, all in ``UnitWords`` (one place, for translation).

/// A preset of units for every quantity: `units = "…"`, or `preset` in `[units]`.
public enum UnitSystem: String, Sendable, Hashable, Codable, CaseIterable {
    /// °C, km/h, km, mm, hPa.
    case metric
    /// °F, mph, mi, in, inHg.
    case imperial
    /// The United Kingdom's mix: °C, mph, mi, mm, hPa.
    case uk
    /// SI units: °C, m/s, km, mm, hPa.
    case si

    public var temperature: TemperatureUnit { self == .imperial ? .fahrenheit : .celsius }
    public var wind: WindSpeedUnit {
        switch self {
        case .metric: .kmh
        case .imperial, .uk: .mph
        case .si: .ms
        }
    }
    public var pressure: PressureUnit { self == .imperial ? .inhg : .hpa }
    public var precipitation: PrecipitationUnit { self == .imperial ? .in : .mm }
    public var distance: DistanceUnit { self == .imperial || self == .uk ? .mi : .km }
}

/// `temperature` in `[units]`.
public enum TemperatureUnit: String, Sendable, Hashable, Codable, CaseIterable {
    case celsius
    case fahrenheit

    /// Converts a temperature held in degrees Celsius.
    public func convert(fromCelsius value: Double) -> Double {
        self == .celsius ? value : value * 9 / 5 + 32
    }

    /// Converts a temperature in this unit back to degrees Celsius.
    public func celsius(from value: Double) -> Double {
        self == .celsius ? value : CanonicalUnits.celsius(fromFahrenheit: value)
    }
}

/// `wind` in `[units]`: wind speeds and gusts.
public enum WindSpeedUnit: String, Sendable, Hashable, Codable, CaseIterable {
    case kmh
    /// Metres per second.
    case ms
    case mph
    /// Knots.
    case kn
    /// The Beaufort scale, forces 0 to 12.
    case bft

    /// km/h in one of this unit, and how it is shown: m/s with one decimal, the others whole. Nil for
    /// Beaufort, whose forces are ranges of speed (``Beaufort``), not a multiple of one.
    var scale: LinearScale? {
        switch self {
        case .kmh: LinearScale(canonicalPerUnit: 1, decimals: 0)
        case .ms: LinearScale(canonicalPerUnit: 3.6, decimals: 1)
        case .mph: LinearScale(canonicalPerUnit: 1.609344, decimals: 0)
        case .kn: LinearScale(canonicalPerUnit: 1.852, decimals: 0)
        case .bft: nil
        }
    }

    /// Converts a speed held in kilometres per hour, rounded as this unit is shown (``decimals``).
    public func convert(fromKmh value: Double) -> Double {
        scale?.fromCanonical(value) ?? Double(Beaufort.force(kmh: value))
    }

    /// A speed in this unit back in km/h; a Beaufort force gives the middle of its range.
    public func kmh(from value: Double) -> Double {
        scale?.toCanonical(value) ?? Beaufort.middleKmh(force: Int(value.rounded()))
    }

    /// The decimal places a speed is shown with: m/s one, the others none.
    public var decimals: Int { scale?.decimals ?? 0 }

    /// The unit whose report symbol is `symbol` (``UnitWords/symbol(_:)-…``); nil for none.
    public init?(symbol: String) {
        guard let unit = Self.allCases.first(where: { UnitWords.symbol($0) == symbol }) else { return nil }
        self = unit
    }
}

/// `pressure` in `[units]`.
public enum PressureUnit: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hectopascals, the same number as millibars.
    case hpa
    /// Inches of mercury.
    case inhg
    /// Millimetres of mercury.
    case mmhg
    /// Kilopascals.
    case kpa

    /// hPa in one of this unit; hPa and mmHg shown whole, kPa with one decimal, inHg with two.
    var scale: LinearScale {
        switch self {
        case .hpa: LinearScale(canonicalPerUnit: 1, decimals: 0)
        case .inhg: LinearScale(canonicalPerUnit: 33.8638866667, decimals: 2)
        case .mmhg: LinearScale(canonicalPerUnit: 1.33322387415, decimals: 0)
        case .kpa: LinearScale(canonicalPerUnit: 10, decimals: 1)
        }
    }

    /// Converts a pressure held in hectopascals, rounded as this unit is shown (``decimals``).
    public func convert(fromHectopascals value: Double) -> Double { scale.fromCanonical(value) }

    /// hPa and mmHg whole, kPa one decimal, inHg two.
    public var decimals: Int { scale.decimals }

    /// The unit whose report symbol is `symbol`; nil for none.
    public init?(symbol: String) {
        guard let unit = Self.allCases.first(where: { UnitWords.symbol($0) == symbol }) else { return nil }
        self = unit
    }
}

/// `precipitation` in `[units]`: amounts of rain and snow (as water).
public enum PrecipitationUnit: String, Sendable, Hashable, Codable, CaseIterable {
    case mm
    /// Inches.
    case `in`

    /// mm in one of this unit; mm shown with one decimal, inches with two.
    var scale: LinearScale {
        self == .mm ? LinearScale(canonicalPerUnit: 1, decimals: 1) : LinearScale(canonicalPerUnit: 25.4, decimals: 2)
    }

    /// Converts an amount held in millimetres, rounded as this unit is shown (``decimals``).
    public func convert(fromMillimetres value: Double) -> Double { scale.fromCanonical(value) }

    /// mm one decimal, inches two.
    public var decimals: Int { scale.decimals }

    /// The unit whose report symbol is `symbol`; nil for none.
    public init?(symbol: String) {
        guard let unit = Self.allCases.first(where: { UnitWords.symbol($0) == symbol }) else { return nil }
        self = unit
    }
}

/// `distance` and `visibility` in `[units]`.
public enum DistanceUnit: String, Sendable, Hashable, Codable, CaseIterable {
    case km
    /// Statute miles.
    case mi

    /// km in one of this unit; both shown with one decimal.
    var scale: LinearScale { LinearScale(canonicalPerUnit: self == .km ? 1 : 1.609344, decimals: 1) }

    /// Converts a distance held in kilometres, to one decimal.
    public func convert(fromKm value: Double) -> Double { scale.fromCanonical(value) }
}

/// `time` in `[units]`: how clock times are shown to people (the report's JSON keeps RFC 3339).
public enum TimeFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// `18:05`.
    case h24 = "24h"
    /// `6:05 PM`.
    case h12 = "12h"

    /// The locales (language and territory) that read the clock in 12 hours; every other reads 24.
    ///
    /// English in the United States, Canada, Australia, New Zealand, the Philippines and India, Spanish
    /// in the United States, Hindi, Arabic in Egypt and Saudi Arabia, and Korean: the places whose own
    /// forecasts write "6 PM". French in Canada, English in the United Kingdom and Ireland and the rest
    /// of the world read 24 hours.
    static let twelveHourLocales: Set<String> = [
        "en_US", "en_CA", "en_AU", "en_NZ", "en_PH", "en_IN", "es_US", "hi_IN", "ar_EG", "ar_SA", "ko_KR",
    ]

    /// The clock of the locale in `environment`: the first of `LC_ALL`, `LC_TIME` and `LANG` that is set
    /// and not empty (POSIX's order), `en_US.UTF-8` read as `en_US`; 24 hours when none is set, for `C`
    /// and `POSIX`, and for every locale not in ``twelveHourLocales``.
    public static func fromLocale(_ environment: [String: String]) -> TimeFormat {
        let name = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let locale = name.prefix { $0 != "." && $0 != "@" }
        return twelveHourLocales.contains(String(locale)) ? .h12 : .h24
    }

    /// `hour`:`minute` on this clock: `18:05` or `6:05 PM`.
    public func clock(hour: Int, minute: Int) -> String {
        switch self {
        case .h24:
            return String(format: "%02d:%02d", hour, minute)
        case .h12:
            let twelve = hour % 12 == 0 ? 12 : hour % 12
            return String(format: "%d:%02d ", twelve, minute) + UnitWords.meridiem(afternoon: hour >= 12)
        }
    }
}

/// The quantities `[units]` sets, by the names written there.
public enum UnitQuantity: String, Sendable, Hashable, CaseIterable {
    case temperature, wind, pressure, precipitation, distance, visibility, time

    /// The unit names allowed for the quantity, in the order documentation lists them.
    public var unitNames: [String] {
        switch self {
        case .temperature: TemperatureUnit.allCases.map(\.rawValue)
        case .wind: WindSpeedUnit.allCases.map(\.rawValue)
        case .pressure: PressureUnit.allCases.map(\.rawValue)
        case .precipitation: PrecipitationUnit.allCases.map(\.rawValue)
        case .distance, .visibility: DistanceUnit.allCases.map(\.rawValue)
        case .time: TimeFormat.allCases.map(\.rawValue)
        }
    }
}

/// The units a user chose: a preset, and any quantity set apart from it (`[units]` in the settings).
///
/// The one value every output reads its units from: the settings hold it, the daemon's configuration
/// and the report's inputs carry it, and ``Report/init(_:now:)`` converts with it.
public struct UnitPreferences: Sendable, Hashable {
    /// `preset`, or the one-line `units = "…"`.
    public var preset: UnitSystem
    /// Each quantity set apart from the preset; nil follows the preset (and, for ``timeOverride``, the locale).
    public var temperatureOverride: TemperatureUnit?
    public var windOverride: WindSpeedUnit?
    public var pressureOverride: PressureUnit?
    public var precipitationOverride: PrecipitationUnit?
    public var distanceOverride: DistanceUnit?
    public var visibilityOverride: DistanceUnit?
    public var timeOverride: TimeFormat?
    /// The clock of the user's locale (``TimeFormat/fromLocale(_:)``), used unless ``timeOverride`` says otherwise.
    public var localeTime: TimeFormat

    public init(
        preset: UnitSystem = .metric, temperature: TemperatureUnit? = nil, wind: WindSpeedUnit? = nil,
        pressure: PressureUnit? = nil, precipitation: PrecipitationUnit? = nil, distance: DistanceUnit? = nil,
        visibility: DistanceUnit? = nil, time: TimeFormat? = nil, localeTime: TimeFormat = .h24
    ) {
        self.preset = preset
        self.temperatureOverride = temperature
        self.windOverride = wind
        self.pressureOverride = pressure
        self.precipitationOverride = precipitation
        self.distanceOverride = distance
        self.visibilityOverride = visibility
        self.timeOverride = time
        self.localeTime = localeTime
    }

    /// A preset without overrides, on a 24-hour clock.
    public static let metric = UnitPreferences(preset: .metric)
    public static let imperial = UnitPreferences(preset: .imperial)
    public static let uk = UnitPreferences(preset: .uk)
    public static let si = UnitPreferences(preset: .si)

    public var temperature: TemperatureUnit { temperatureOverride ?? preset.temperature }
    public var wind: WindSpeedUnit { windOverride ?? preset.wind }
    public var pressure: PressureUnit { pressureOverride ?? preset.pressure }
    public var precipitation: PrecipitationUnit { precipitationOverride ?? preset.precipitation }
    public var distance: DistanceUnit { distanceOverride ?? preset.distance }
    public var visibility: DistanceUnit { visibilityOverride ?? distance }
    public var time: TimeFormat { timeOverride ?? localeTime }

    /// Whether any quantity is set apart from the preset: the settings then need the `[units]` table.
    public var hasOverrides: Bool { !overrides.isEmpty }

    /// The quantities set apart from the preset and their unit names, in ``UnitQuantity`` order.
    public var overrides: [(quantity: UnitQuantity, unit: String)] {
        let names: [(UnitQuantity, String?)] = [
            (.temperature, temperatureOverride?.rawValue), (.wind, windOverride?.rawValue),
            (.pressure, pressureOverride?.rawValue), (.precipitation, precipitationOverride?.rawValue),
            (.distance, distanceOverride?.rawValue), (.visibility, visibilityOverride?.rawValue),
            (.time, timeOverride?.rawValue),
        ]
        return names.compactMap { quantity, unit in unit.map { (quantity, $0) } }
    }

    /// The preset alone, with the same locale clock.
    public var withoutOverrides: UnitPreferences { UnitPreferences(preset: preset, localeTime: localeTime) }
}

/// The English words of units: their symbols, the Beaufort names, the clock's AM and PM.
///
/// Every word a person reads about units comes from here, so a translation has one place to go through.
/// The symbols are also what the report's `units` object holds, which scripts read: they stay as they are.
public enum UnitWords {
    public static func symbol(_ unit: TemperatureUnit) -> String { unit == .celsius ? "°C" : "°F" }

    public static func symbol(_ unit: WindSpeedUnit) -> String {
        switch unit {
        case .kmh: "km/h"
        case .ms: "m/s"
        case .mph: "mph"
        case .kn: "kn"
        case .bft: "Bft"
        }
    }

    public static func symbol(_ unit: PressureUnit) -> String {
        switch unit {
        case .hpa: "hPa"
        case .inhg: "inHg"
        case .mmhg: "mmHg"
        case .kpa: "kPa"
        }
    }

    public static func symbol(_ unit: PrecipitationUnit) -> String { unit == .mm ? "mm" : "in" }

    public static func symbol(_ unit: DistanceUnit) -> String { unit == .km ? "km" : "mi" }

    /// `AM` or `PM`.
    public static func meridiem(afternoon: Bool) -> String { afternoon ? "PM" : "AM" }

    /// The name of Beaufort force `force` (0…12): `Calm` … `Hurricane force`, as the WMO names them.
    public static func beaufortName(_ force: Int) -> String {
        let names = [
            "Calm", "Light air", "Light breeze", "Gentle breeze", "Moderate breeze", "Fresh breeze", "Strong breeze",
            "Near gale", "Gale", "Strong gale", "Storm", "Violent storm", "Hurricane force",
        ]
        return names[min(max(force, 0), 12)]
    }
}

/// The Beaufort scale, from the WMO's limits in kilometres per hour.
public enum Beaufort {
    /// The lowest speed of forces 1 to 12 in km/h (WMO, Manual on Codes, code table 1100: force 0 is
    /// below 1 km/h, 1 is 1–5, 2 is 6–11, …, 12 is 118 and more). Forecasts hold km/h, so they are
    /// judged in km/h, without a detour through rounded m/s.
    static let lowerLimits: [Double] = [1, 6, 12, 20, 29, 39, 50, 62, 75, 89, 103, 118]

    /// The speed in the middle of force `force`'s range, in km/h (12: its lowest speed).
    public static func middleKmh(force: Int) -> Double {
        let force = min(max(force, 0), 12)
        let low = force == 0 ? 0 : lowerLimits[force - 1]
        let high = force == 12 ? low : lowerLimits[force]
        return (low + high) / 2
    }

    /// The force (0…12) of a wind of `kmh` kilometres per hour: 20 km/h is force 4, a moderate breeze.
    public static func force(kmh: Double) -> Int {
        guard kmh.isFinite else { return 0 }
        return lowerLimits.count { kmh >= $0 }
    }
}

/// Conversions into the canonical (metric) units forecasts are stored in. The linear ones read the units'
/// own tables (``LinearScale``), so what a provider sends in mph and what a user reads in mph agree.
public enum CanonicalUnits {
    public static func celsius(fromFahrenheit value: Double) -> Double { (value - 32) * 5 / 9 }
    public static func celsius(fromKelvin value: Double) -> Double { value - 273.15 }
    public static func kmh(fromMetresPerSecond value: Double) -> Double { WindSpeedUnit.ms.kmh(from: value) }
    public static func kmh(fromMph value: Double) -> Double { WindSpeedUnit.mph.kmh(from: value) }
    public static func kmh(fromKnots value: Double) -> Double { WindSpeedUnit.kn.kmh(from: value) }
    public static func millimetres(fromInches value: Double) -> Double { PrecipitationUnit.in.scale.toCanonical(value) }
}

/// A unit that is its quantity's canonical unit (km/h, hPa, mm, km) times a constant, and the decimals it
/// is shown with. Each unit enum keeps one table of these, so a conversion, its way back and the rounding
/// read the same numbers.
struct LinearScale {
    /// How many canonical units make one of this unit: 3.6 km/h in 1 m/s.
    var canonicalPerUnit: Double
    var decimals: Int

    /// A value held in the canonical unit, in this one, rounded as it is shown.
    func fromCanonical(_ value: Double) -> Double { (value / canonicalPerUnit).rounded(places: decimals) }

    /// A value in this unit, in the canonical one, unrounded.
    func toCanonical(_ value: Double) -> Double { value * canonicalPerUnit }
}
