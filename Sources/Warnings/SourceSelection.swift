import Foundation

/// The countries MeteoAlarm publishes a feed for, by ISO 3166-1 alpha-2 code, with the feed's name
/// in its URLs (`feeds-<name>` in the JSON API, `meteoalarm-legacy-atom-<name>` for Atom).
public enum MeteoAlarmCountries {
    public static let feeds: [String: String] = [
        "AD": "andorra", "AT": "austria", "BA": "bosnia-herzegovina", "BE": "belgium", "BG": "bulgaria",
        "CH": "switzerland", "CY": "cyprus", "CZ": "czechia", "DE": "germany", "DK": "denmark", "EE": "estonia",
        "ES": "spain", "FI": "finland", "FR": "france", "GB": "united-kingdom", "GR": "greece", "HR": "croatia",
        "HU": "hungary", "IE": "ireland", "IL": "israel", "IS": "iceland", "IT": "italy", "LT": "lithuania",
        "LU": "luxembourg", "LV": "latvia", "MD": "moldova", "ME": "montenegro", "MK": "republic-of-north-macedonia",
        "MT": "malta", "NL": "netherlands", "NO": "norway", "PL": "poland", "PT": "portugal", "RO": "romania",
        "RS": "serbia", "SE": "sweden", "SI": "slovenia", "SK": "slovakia", "UA": "ukraine",
    ]

    /// The feed name for a country code (any case), nil when MeteoAlarm has none.
    public static func feed(for country: String) -> String? { feeds[country.uppercased()] }
}

/// The warning services forecastd knows.
public enum WarningSourceKind: String, Sendable, Hashable, CaseIterable {
    case nws
    case metNorway = "met-norway"
    case brightSky = "bright-sky"
    case meteoalarm
    case eccc
}

/// Which services may be asked, as plain values from the settings (`[warnings]`, see `docs/warnings.md`).
public struct WarningSourceSwitches: Sendable, Hashable {
    /// `[warnings] enabled`: off means no warning request at all.
    public var enabled: Bool
    /// `[warnings.nws] enabled`, `[warnings.met_norway] enabled`, `[warnings.bright_sky] enabled`,
    /// `[warnings.meteoalarm] enabled`, `[warnings.eccc] enabled`.
    public var nws: Bool
    public var metNorway: Bool
    public var brightSky: Bool
    public var meteoalarm: Bool
    public var eccc: Bool

    public init(
        enabled: Bool = true, nws: Bool = true, metNorway: Bool = true, brightSky: Bool = true, meteoalarm: Bool = true,
        eccc: Bool = true
    ) {
        self.enabled = enabled
        self.nws = nws
        self.metNorway = metNorway
        self.brightSky = brightSky
        self.meteoalarm = meteoalarm
        self.eccc = eccc
    }

    public func allows(_ kind: WarningSourceKind) -> Bool {
        guard enabled else { return false }
        switch kind {
        case .nws: return nws
        case .metNorway: return metNorway
        case .brightSky: return brightSky
        case .meteoalarm: return meteoalarm
        case .eccc: return eccc
        }
    }
}

/// Picks the service for a position's country (the gazetteer's ISO code for the place).
///
/// - The US and its territories: NWS.
/// - Norway: MET Norway. Germany: the DWD through Bright Sky. Canada: ECCC.
/// - Other MeteoAlarm countries: MeteoAlarm, with the country's feed.
/// - Norway and Germany fall back to MeteoAlarm (which carries MET Norway's and the DWD's warnings too)
///   when their own service is switched off.
/// - Anywhere else: none. One service per country, so a warning is never fetched twice.
public enum WarningSourceSelection {
    /// NWS covers the states and these territories (Puerto Rico, Guam, the US Virgin Islands, American
    /// Samoa, the Northern Mariana Islands, the Minor Outlying Islands).
    public static let nwsCountries: Set<String> = ["US", "PR", "GU", "VI", "AS", "MP", "UM"]

    public struct Choice: Sendable, Hashable {
        public var kind: WarningSourceKind
        /// The MeteoAlarm feed name, for ``WarningSourceKind/meteoalarm``.
        public var meteoAlarmFeed: String?
    }

    public static func source(forCountry code: String?, switches: WarningSourceSwitches) -> Choice? {
        guard let country = code?.trimmingCharacters(in: .whitespaces).uppercased(), !country.isEmpty else {
            return nil
        }
        let own: WarningSourceKind? =
            switch country {
            case _ where nwsCountries.contains(country): .nws
            case "NO": .metNorway
            case "DE": .brightSky
            case "CA": .eccc
            default: nil
            }
        if let own, switches.allows(own) { return Choice(kind: own, meteoAlarmFeed: nil) }
        if let feed = MeteoAlarmCountries.feed(for: country), switches.allows(.meteoalarm) {
            return Choice(kind: .meteoalarm, meteoAlarmFeed: feed)
        }
        return nil
    }
}
