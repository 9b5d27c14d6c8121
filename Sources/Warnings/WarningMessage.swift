import ForecastModel
import Foundation

/// A code naming an area in a scheme the source uses: `EMMA_ID` `BA006`, `NUTS3` `FR718`, `UGC` `IAC113`.
public struct Geocode: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The scheme, upper-cased (`EMMA_ID`, `NUTS3`, `UGC`, `SAME`, `WARNCELLID`).
    public var scheme: String
    public var value: String

    public init(scheme: String, value: String) {
        self.scheme = scheme.trimmingCharacters(in: .whitespaces).uppercased()
        self.value = value.trimmingCharacters(in: .whitespaces)
    }

    public var description: String { "\(scheme):\(value)" }

    public static func < (lhs: Geocode, rhs: Geocode) -> Bool { lhs.description < rhs.description }
}

/// One area a warning names: its shape when the source sent one, and its codes.
public struct WarningArea: Sendable, Hashable {
    /// The source's name for it (`Haute Savoie`), shown to people, never matched.
    public var name: String?
    public var geometry: AreaGeometry?
    public var geocodes: [Geocode]

    public init(name: String? = nil, geometry: AreaGeometry? = nil, geocodes: [Geocode] = []) {
        self.name = name
        self.geometry = geometry
        self.geocodes = geocodes
    }
}

/// A warning as one source sent it, with what the source says about where it applies.
public struct WarningMessage: Sendable, Hashable {
    /// How the source relates the warning to the asked position.
    public enum Coverage: Sendable, Hashable {
        /// The source answered a question about the position itself and listed this warning for it
        /// (NWS `?point=` when its answer names the point, Bright Sky when it names the warn cell).
        case confirmedForPoint
        /// The warning covers these areas; whether the position is in one of them is for forecastd to judge.
        case areas([WarningArea])
    }

    public var warning: WeatherWarning
    public var coverage: Coverage

    public init(warning: WeatherWarning, coverage: Coverage) {
        self.warning = warning
        self.coverage = coverage
    }
}

/// What a decoder made of one response: the usable messages and the entries it left out.
public struct DecodedFeed: Sendable, Hashable {
    public var messages: [WarningMessage]
    public var refused: [RefusedEntry]

    public init(messages: [WarningMessage] = [], refused: [RefusedEntry] = []) {
        self.messages = messages
        self.refused = refused
    }
}
