import ForecastModel
import Foundation
import Localization

/// What the picker's page shows and offers: the map's tiles, the language, where it starts, and what
/// the choice is for.
public struct PickPage: Sendable {
    /// What a choice does.
    public enum Purpose: String, Sendable, Hashable {
        /// "Pin here" and "Add to my cities": forecastctl edits the settings.
        case settings
        /// "Use this place": forecastctl prints the choice (`--print`).
        case print
    }

    public var purpose: Purpose
    public var tiles: TileServer
    /// The words of the page, in `[display] language`.
    public var translation: Translation
    public var start: PickStart

    public init(purpose: Purpose, tiles: TileServer, translation: Translation, start: PickStart) {
        self.purpose = purpose
        self.tiles = tiles
        self.translation = translation
        self.start = start
    }
}

/// The tile server the browser loads the map from (`[map]` in the settings).
public struct TileServer: Sendable, Hashable {
    /// Leaflet's URL template: `https://tile.openstreetmap.org/{z}/{x}/{y}.png`.
    public var urlTemplate: String
    /// The credit its terms ask for, shown in the map's corner.
    public var attribution: String
    /// Where the credit links to.
    public var attributionURL: URL?

    public init(urlTemplate: String, attribution: String, attributionURL: URL?) {
        self.urlTemplate = urlTemplate
        self.attribution = attribution
        self.attributionURL = attributionURL
    }

    /// The origin the page may load images from, as a Content-Security-Policy source:
    /// `https://tile.openstreetmap.org`, `https://*.tile.example.org` for a `{s}` subdomain, with the
    /// port when the template names one. Nil when the template has no usable host (the settings refuse
    /// such a template, so the page then shows only its offline map).
    public var contentSecurityPolicySource: String? {
        let filled = urlTemplate.replacingOccurrences(of: "{s}", with: "subdomain-placeholder")
            .replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0").replacingOccurrences(of: "{r}", with: "")
        guard let components = URLComponents(string: filled), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.host?.lowercased(), !host.isEmpty,
            host.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) })
        else { return nil }
        if host.hasPrefix("subdomain-placeholder.") {
            host = "*." + host.dropFirst("subdomain-placeholder.".count)
        } else if host.contains("subdomain-placeholder") {
            return nil
        }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }
}

/// Where the page starts: the pin, the position the daemon uses and the place its forecast is for.
public struct PickStart: Sendable, Hashable {
    /// `[location.pin]`, when the settings have one.
    public var pin: Pin?
    /// The position the daemon's report gives, when the daemon (or its status file) told one.
    public var position: Position?
    /// The name of the place the forecast is for now (the report's `place`).
    public var forecastPlace: String?

    public struct Position: Sendable, Hashable {
        public var coordinate: Coordinate
        /// How far off the position may be, in metres (gpsd's estimate, IP geolocation's city level).
        public var accuracyM: Double?
        /// The report's `location.source`: gpsd, ip, static_file, pinned.
        public var source: String

        public init(coordinate: Coordinate, accuracyM: Double?, source: String) {
            self.coordinate = coordinate
            self.accuracyM = accuracyM
            self.source = source
        }
    }

    public init(pin: Pin? = nil, position: Position? = nil, forecastPlace: String? = nil) {
        self.pin = pin
        self.position = position
        self.forecastPlace = forecastPlace
    }
}

/// What the person chose on the page.
public struct PickChoice: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable, Codable {
        /// "Pin here".
        case pin
        /// "Add to my cities".
        case city
        /// "Use this place" (`--print`).
        case use
        /// "Cancel".
        case cancel
    }

    public var action: Action
    /// The position chosen, to 1e-5 degrees (about a metre); nil for cancel.
    public var coordinate: Coordinate?
    /// The nearest place of the gazetteer to `coordinate`, as `forecastctl place` names it.
    public var place: Place?
    /// "as a favourite", for a city.
    public var favorite: Bool

    public init(action: Action, coordinate: Coordinate?, place: Place?, favorite: Bool) {
        self.action = action
        self.coordinate = coordinate
        self.place = place
        self.favorite = favorite
    }
}

/// What forecastctl made of a choice, for the page.
public enum PickAnswer: Sendable, Hashable {
    /// Done: the page says so and the server refuses everything from now on.
    case done(String)
    /// Not done (the settings file could not be edited): the page says why and the person may choose again.
    case failed(String)
}

/// A place as the page names it: `Paris, Île-de-France, FR`.
public func placeLabel(_ place: Place) -> String {
    [place.name, place.admin1, place.countryCode].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
}
