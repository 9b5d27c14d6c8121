import Foundation

/// An air quality index scale: the European index of the European Environment Agency or the US
/// index of the Environmental Protection Agency, as Open-Meteo computes them.
///
/// The raw values are stable identifiers (`aqi_scale` in the report).
public enum AQIScale: String, Sendable, Hashable, Codable, CaseIterable {
    /// The European Air Quality Index (EEA): 0–20 good … above 100 extremely poor.
    case european
    /// The US Air Quality Index (EPA): 0–50 good … 301–500 hazardous.
    case us

    /// Index values outside this range are not air quality but transfer or model errors. The US index
    /// is defined up to 500 and the European one is open above 100; smoke from large fires has
    /// pushed both past 500, so the bound is 1000.
    public static let plausibleRange: ClosedRange<Double> = 0...1000

    /// The scale a position's country reads by default: the European index in the member and
    /// cooperating countries of the European Environment Agency (whose index it is) and the other
    /// European countries inside the European CAMS domain that Open-Meteo's European index is
    /// computed from; the US index everywhere else, the index most of the world's services show.
    /// A missing or unknown country code (at sea) gets the US index.
    public static func defaultScale(countryCode: String?) -> AQIScale {
        guard let code = countryCode?.uppercased(), europeanCountries.contains(code) else { return .us }
        return .european
    }

    /// ISO 3166-1 alpha-2 codes of the countries defaulting to the European index: the EEA's 32 members
    /// (EU 27, Iceland, Liechtenstein, Norway, Switzerland, Türkiye) and its 6 cooperating countries
    /// (Albania, Bosnia and Herzegovina, Kosovo, Montenegro, North Macedonia, Serbia), plus the United
    /// Kingdom, Ukraine, Moldova, Belarus, the microstates and the Crown dependencies, Gibraltar, the
    /// Faroe Islands and Åland.
    public static let europeanCountries: Set<String> = [
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
        "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
        "IS", "LI", "NO", "CH", "TR",
        "AL", "BA", "XK", "ME", "MK", "RS",
        "GB", "UA", "MD", "BY", "AD", "MC", "SM", "VA", "GG", "JE", "IM", "GI", "FO", "AX",
    ]

    /// The category of an index value on this scale; upper bounds are inclusive (20 is still good).
    public func category(of aqi: Double) -> AirQualityCategory {
        switch self {
        case .european:
            switch aqi {
            case ...20: .good
            case ...40: .fair
            case ...60: .moderate
            case ...80: .poor
            case ...100: .veryPoor
            default: .extremelyPoor
            }
        case .us:
            switch aqi {
            case ...50: .good
            case ...100: .moderate
            case ...150: .unhealthyForSensitiveGroups
            case ...200: .unhealthy
            case ...300: .veryUnhealthy
            default: .hazardous
            }
        }
    }

    /// The rank of a category on this scale, 1 (best) to 6 (worst); nil for a category of the other scale.
    public func level(of category: AirQualityCategory) -> Int? {
        let order: [AirQualityCategory] =
            switch self {
            case .european: [.good, .fair, .moderate, .poor, .veryPoor, .extremelyPoor]
            case .us: [.good, .moderate, .unhealthyForSensitiveGroups, .unhealthy, .veryUnhealthy, .hazardous]
            }
        return order.firstIndex(of: category).map { $0 + 1 }
    }
}

/// A category of an air quality index. Both scales have six; `moderate` is in both, at rank 3 on the
/// European scale and rank 2 on the US one (``AQIScale/level(of:)``).
public enum AirQualityCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case good, fair, moderate, poor
    case veryPoor = "very_poor"
    case extremelyPoor = "extremely_poor"
    case unhealthyForSensitiveGroups = "unhealthy_for_sensitive_groups"
    case unhealthy
    case veryUnhealthy = "very_unhealthy"
    case hazardous
}

/// A pollutant an index is computed from. The raw values are the report's field names.
public enum Pollutant: String, Sendable, Hashable, Codable, CaseIterable {
    case pm2_5, pm10, o3, no2, so2, co
}

/// Pollen in the air, grains/m³, by plant; a plant the provider gave no value for is nil.
public struct Pollen: Sendable, Hashable, Codable {
    public var alder: Double?
    public var birch: Double?
    public var grass: Double?
    public var mugwort: Double?
    public var olive: Double?
    public var ragweed: Double?

    public init(
        alder: Double? = nil, birch: Double? = nil, grass: Double? = nil, mugwort: Double? = nil,
        olive: Double? = nil, ragweed: Double? = nil
    ) {
        self.alder = alder
        self.birch = birch
        self.grass = grass
        self.mugwort = mugwort
        self.olive = olive
        self.ragweed = ragweed
    }

    /// True when no plant has a value.
    public var isEmpty: Bool { [alder, birch, grass, mugwort, olive, ragweed].allSatisfy { $0 == nil } }
}

/// The air at a position at one hour: an index on the chosen scale, the pollutants, UV and pollen.
///
/// Concentrations are µg/m³. The category, its rank and the bar class follow from ``scale`` and ``aqi``.
public struct AirQuality: Sendable, Hashable, Codable {
    /// The stable provider identifier (`open-meteo-air-quality`).
    public var provider: String
    /// The credit the provider's terms ask for.
    public var attribution: String
    /// The grid cell the values are for.
    public var coordinate: Coordinate
    /// The hour the values describe.
    public var time: Date
    /// When forecastd received them.
    public var fetchedAt: Date
    public var scale: AQIScale
    /// The index on ``scale``, within ``AQIScale/plausibleRange``.
    public var aqi: Double
    /// The pollutant whose sub-index is highest, the one that sets ``aqi``; nil when the provider gave
    /// no sub-indices.
    public var dominant: Pollutant?
    public var pm2_5: Double?
    public var pm10: Double?
    /// Ozone.
    public var o3: Double?
    /// Nitrogen dioxide.
    public var no2: Double?
    public var uvIndex: Double?
    /// Pollen, only in Europe and in season (nil elsewhere and when not asked).
    public var pollen: Pollen?
    /// Values of the answer that were dropped, one sentence each (`current.pm10 = -3 is outside …`).
    public var notes: [String]

    public init(
        provider: String, attribution: String, coordinate: Coordinate, time: Date, fetchedAt: Date,
        scale: AQIScale, aqi: Double, dominant: Pollutant? = nil, pm2_5: Double? = nil, pm10: Double? = nil,
        o3: Double? = nil, no2: Double? = nil, uvIndex: Double? = nil, pollen: Pollen? = nil, notes: [String] = []
    ) {
        self.provider = provider
        self.attribution = attribution
        self.coordinate = coordinate
        self.time = time
        self.fetchedAt = fetchedAt
        self.scale = scale
        self.aqi = aqi
        self.dominant = dominant
        self.pm2_5 = pm2_5
        self.pm10 = pm10
        self.o3 = o3
        self.no2 = no2
        self.uvIndex = uvIndex
        self.pollen = pollen
        self.notes = notes
    }

    /// The category of ``aqi`` on ``scale``.
    public var category: AirQualityCategory { scale.category(of: aqi) }

    /// The rank of the category, 1 (good) to 6 (extremely poor, hazardous).
    public var level: Int { scale.level(of: category) ?? 1 }

    /// The bar class, one set for both scales by rank: 1 `aqi-good`, 2 `aqi-fair` (European fair, US
    /// moderate), 3 `aqi-moderate` (European moderate, US unhealthy for sensitive groups), 4 `aqi-poor`
    /// (poor, unhealthy), 5 and 6 `aqi-very-poor` (very poor and extremely poor, very unhealthy and hazardous).
    public var className: String { Self.classNames[min(level, Self.classNames.count) - 1] }

    /// The bar classes in rank order.
    public static let classNames = ["aqi-good", "aqi-fair", "aqi-moderate", "aqi-poor", "aqi-very-poor"]

    /// Whether the air is worse than good, when a summary line mentions it.
    public var isWorthMentioning: Bool { level > 1 }
}
