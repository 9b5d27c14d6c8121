import Foundation

/// Why a text could not be read as a position.
public enum CoordinateParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is no coordinate syntax and no map link at all: it may be a place name.
    ///
    /// The associated text is what to search for: the input itself, or the query of a map link
    /// that names a place instead of a point (`https://maps.google.com/?q=Lisbon` gives `Lisbon`).
    case notACoordinate(String)
    /// The text is a coordinate or link of a known kind, written wrong: what was read and what was expected.
    case malformed(String, expected: String)
    /// A latitude or longitude beyond its range, e.g. `latitude 95`.
    case outOfRange(String, allowed: String)
    /// (0, 0): where receivers without a fix claim to be, never where a user is.
    case nullIsland
    /// A `geo:` URI in a coordinate reference system other than WGS 84.
    case unsupportedCRS(String)

    public var description: String {
        switch self {
        case .notACoordinate(let text):
            "not a coordinate or map link: \(text)"
        case .malformed(let text, let expected):
            "\(text): expected \(expected)"
        case .outOfRange(let what, let allowed):
            "\(what) is out of range (allowed: \(allowed))"
        case .nullIsland:
            "0, 0 is \"null island\", where receivers without a fix claim to be (allowed: any other point)"
        case .unsupportedCRS(let crs):
            "geo: URI in the coordinate reference system \"\(crs)\" (allowed: wgs84)"
        }
    }
}

/// Reads a position from the ways people write or share one.
///
/// Accepted, with or without surrounding spaces:
/// - decimal degrees: `48.8566,2.3522`, `48.8566 2.3522`, `-34.9011, -56.1645`, with N/S/E/W as a
///   prefix or suffix (`48.8566N 2.3522E`, `S34.9011 W56.1645`, `48.8566°N, 2.3522°E`);
/// - degrees, minutes and seconds: `48°51'24"N 2°21'08"E`, `48 51 24 N 2 21 8 E`, `48°51.4'N 2°21.1'E`
///   (also with the typographic marks ′ and ″);
/// - `geo:` URIs (RFC 5870): `geo:48.85,2.35`, `geo:48.85,2.35,35`, `;crs=wgs84`, `;u=30`, and the
///   Android form `geo:0,0?q=48.85,2.35(Label)`;
/// - OpenStreetMap links: `?mlat=LAT&mlon=LON` (the marker), `#map=ZOOM/LAT/LON` (the view);
/// - Google Maps links: `/place/NAME/@LAT,LON,17z` (label NAME, `+` read as a space), `@LAT,LON,15z`,
///   `?q=LAT,LON`, `?query=LAT,LON`, `?ll=LAT,LON`; a place's own `!3dLAT!4dLON` wins over the view's `@`.
///
/// Latitude comes first unless hemisphere letters say otherwise (`2.35E 48.85N`). Out-of-range values
/// and (0, 0) are rejected. A text that is none of these is ``CoordinateParseError/notACoordinate(_:)``,
/// so that a caller can try it as a place name. The pin's name is what a link or URI called the place.
public enum CoordinateParser {
    public static func parse(_ text: String) throws(CoordinateParseError) -> Pin {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw .malformed("an empty text", expected: expectedAnything)
        }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("geo:") {
            return try parseGeoURI(trimmed)
        }
        if let link = MapLink(trimmed) {
            return try parseMapLink(link, original: trimmed)
        }
        let coordinate = try parsePlain(trimmed)
        return Pin(coordinate: try checked(coordinate))
    }

    static let expectedAnything =
        "LAT,LON or LAT LON in decimal degrees or degrees-minutes-seconds, a geo: URI, "
        + "or an OpenStreetMap or Google Maps link"

    /// `coordinate` when it is a real place, else the error saying which value is wrong.
    static func checked(_ coordinate: Coordinate) throws(CoordinateParseError) -> Coordinate {
        let latitude = coordinate.latitude
        let longitude = coordinate.longitude
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw .outOfRange("latitude \(format(latitude))", allowed: "-90...90")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw .outOfRange("longitude \(format(longitude))", allowed: "-180...180")
        }
        guard !(latitude == 0 && longitude == 0) else { throw .nullIsland }
        return coordinate
    }

    /// A number as people write it: `95` rather than `95.0`.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    // MARK: - Decimal numbers

    /// A plain decimal number: optional sign, digits, optional fraction (`48`, `-34.9011`, `.5`).
    static func decimal(_ text: Substring) -> Double? {
        var body = text
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard !body.isEmpty else { return nil }
        var digits = 0
        var dots = 0
        for character in body {
            if character == "." {
                dots += 1
            } else if character.isASCII, character.isNumber {
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        return Double(text)
    }

    /// `LAT,LON` of two plain decimals, as links and URIs write it.
    static func decimalPair(_ text: Substring, what: String) throws(CoordinateParseError) -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let latitude = decimal(parts[0].trimmingCharacters(in: .whitespaces)[...]),
            let longitude = decimal(parts[1].trimmingCharacters(in: .whitespaces)[...])
        else {
            throw .malformed(String(text), expected: "\(what) as LAT,LON in decimal degrees")
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    // MARK: - geo: URIs (RFC 5870)

    static let geoExpected = "geo:LAT,LON or geo:LAT,LON,ALTITUDE, optionally followed by ;crs=wgs84 and ;u=METRES"

    static func parseGeoURI(_ text: String) throws(CoordinateParseError) -> Pin {
        var rest = text.dropFirst(4)
        var query: Substring?
        if let questionMark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: questionMark)...]
            rest = rest[..<questionMark]
        }
        var parameters = rest.split(separator: ";", omittingEmptySubsequences: false)
        guard !parameters.isEmpty else { throw .malformed(text, expected: geoExpected) }
        let coordinates = parameters.removeFirst().split(separator: ",", omittingEmptySubsequences: false)
        guard (2...3).contains(coordinates.count),
            let latitude = decimal(coordinates[0]), let longitude = decimal(coordinates[1]),
            coordinates.count == 2 || decimal(coordinates[2]) != nil
        else {
            throw .malformed(text, expected: geoExpected)
        }
        for (offset, parameter) in parameters.enumerated() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, !pair[0].isEmpty else { throw .malformed(text, expected: geoExpected) }
            let name = pair[0].lowercased()
            let value = String(pair[1]).removingPercentEncoding ?? String(pair[1])
            switch name {
            case "crs":
                // RFC 5870 §3.3: crs comes first; wgs84 is the only one registered.
                guard offset == 0 else { throw .malformed(text, expected: "crs= as the first parameter") }
                guard value.lowercased() == "wgs84" else { throw .unsupportedCRS(value) }
            case "u":
                guard let uncertainty = decimal(value[...]), uncertainty >= 0 else {
                    throw .malformed(text, expected: "u= an uncertainty in metres (a number, 0 or more)")
                }
            default:
                // Other parameters are allowed by the RFC and carry nothing forecastd needs.
                break
            }
        }
        // Android's form: `geo:0,0?q=LAT,LON(Label)` or `geo:0,0?q=a place name`.
        if let query, let q = queryItems(query).first(where: { $0.name == "q" })?.value, !q.isEmpty {
            var search = q[...]
            var label: String?
            if search.hasSuffix(")"), let open = search.lastIndex(of: "(") {
                let inside = search[search.index(after: open)..<search.index(before: search.endIndex)]
                label = inside.trimmingCharacters(in: .whitespaces)
                search = search[..<open]
            }
            let trimmedSearch = search.trimmingCharacters(in: .whitespaces)
            if let coordinate = try? decimalPair(trimmedSearch[...], what: "q=") {
                return Pin(coordinate: try checked(coordinate), name: label.flatMap { $0.isEmpty ? nil : $0 })
            }
            throw .notACoordinate(trimmedSearch)
        }
        return Pin(coordinate: try checked(Coordinate(latitude: latitude, longitude: longitude)))
    }
}
