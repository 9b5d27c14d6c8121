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

    // MARK: - Map links

    /// The parts of a web link, split by hand: pasted links often hold characters
    /// (`°`, `é`, spaces) that a strict URL parser refuses.
    struct MapLink {
        enum Site { case openStreetMap, google }
        var site: Site
        var path: Substring
        var query: Substring
        var fragment: Substring

        init?(_ text: String) {
            var rest = text[...]
            if let scheme = rest.range(of: "://") {
                let name = rest[..<scheme.lowerBound].lowercased()
                guard name == "http" || name == "https" else { return nil }
                rest = rest[scheme.upperBound...]
            }
            let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            var host = rest[..<hostEnd].lowercased()
            if let colon = host.firstIndex(of: ":") { host = String(host[..<colon]) }
            let labels = host.split(separator: ".")
            if host == "openstreetmap.org" || host.hasSuffix(".openstreetmap.org") || host == "osm.org"
                || host.hasSuffix(".osm.org")
            {
                site = .openStreetMap
            } else if labels.contains("google") || host == "goo.gl" || host == "maps.app.goo.gl" {
                site = .google
            } else {
                return nil
            }
            rest = rest[hostEnd...]
            fragment = ""
            if let hash = rest.firstIndex(of: "#") {
                fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
            }
            query = ""
            if let questionMark = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: questionMark)...]
                rest = rest[..<questionMark]
            }
            path = rest
        }
    }

    static func parseMapLink(_ link: MapLink, original: String) throws(CoordinateParseError) -> Pin {
        switch link.site {
        case .openStreetMap: try parseOpenStreetMap(link, original: original)
        case .google: try parseGoogle(link, original: original)
        }
    }

    static let openStreetMapExpected =
        "an OpenStreetMap link with ?mlat=LAT&mlon=LON or #map=ZOOM/LAT/LON"

    static func parseOpenStreetMap(_ link: MapLink, original: String) throws(CoordinateParseError) -> Pin {
        let items = queryItems(link.query)
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        // The marker is the point the user chose; the view's centre is only where the map was.
        for (latitudeName, longitudeName) in [("mlat", "mlon"), ("lat", "lon")] {
            guard let latitudeText = value(latitudeName), let longitudeText = value(longitudeName) else { continue }
            guard let latitude = decimal(latitudeText[...]), let longitude = decimal(longitudeText[...]) else {
                throw .malformed(original, expected: openStreetMapExpected)
            }
            return Pin(coordinate: try checked(Coordinate(latitude: latitude, longitude: longitude)))
        }
        if let map = queryItems(link.fragment).first(where: { $0.name == "map" })?.value {
            let parts = map.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, decimal(parts[0]) != nil, let latitude = decimal(parts[1]),
                let longitude = decimal(parts[2])
            else {
                throw .malformed(original, expected: openStreetMapExpected)
            }
            return Pin(coordinate: try checked(Coordinate(latitude: latitude, longitude: longitude)))
        }
        throw .malformed(original, expected: openStreetMapExpected)
    }

    static let googleExpected =
        "a Google Maps link with /@LAT,LON,ZOOMz, /place/NAME/@LAT,LON or ?q=LAT,LON"

    static func parseGoogle(_ link: MapLink, original: String) throws(CoordinateParseError) -> Pin {
        let segments = link.path.split(separator: "/")
        var label: String?
        if let place = segments.firstIndex(of: "place"), place + 1 < segments.count,
            !segments[place + 1].hasPrefix("@")
        {
            let name = formDecoded(segments[place + 1]).trimmingCharacters(in: .whitespaces)
            label = name.isEmpty ? nil : name
        }
        // `!3dLAT!4dLON` in the data segment is the place itself; `@` is the centre of the view.
        if let data = segments.first(where: { $0.hasPrefix("data=") }),
            let coordinate = placeCoordinate(inData: data)
        {
            return Pin(coordinate: try checked(coordinate), name: label)
        }
        if let view = segments.first(where: { $0.hasPrefix("@") }) {
            let fields = view.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let latitude = decimal(fields[0]), let longitude = decimal(fields[1]) else {
                throw .malformed(original, expected: googleExpected)
            }
            return Pin(coordinate: try checked(Coordinate(latitude: latitude, longitude: longitude)), name: label)
        }
        let items = queryItems(link.query)
        for name in ["q", "query", "ll", "center", "destination"] {
            guard let value = items.first(where: { $0.name == name })?.value, !value.isEmpty else { continue }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if let coordinate = try? decimalPair(trimmed[...], what: name + "=") {
                return Pin(coordinate: try checked(coordinate), name: label)
            }
            if name == "q" || name == "query" || name == "destination" {
                // A search for a name, not a point: the caller may look the name up.
                throw .notACoordinate(trimmed)
            }
            throw .malformed(original, expected: googleExpected)
        }
        if let label { throw .notACoordinate(label) }
        throw .malformed(original, expected: googleExpected)
    }

    /// The `!3dLAT!4dLON` pair of a Google Maps `data=` segment.
    static func placeCoordinate(inData data: Substring) -> Coordinate? {
        var latitude: Double?
        var longitude: Double?
        for field in data.split(separator: "!") {
            if field.hasPrefix("3d"), let value = decimal(field.dropFirst(2)) { latitude = value }
            if field.hasPrefix("4d"), let value = decimal(field.dropFirst(2)) { longitude = value }
        }
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// `name=value` pairs of a query or fragment, decoded as HTML forms do (`+` is a space).
    static func queryItems(_ text: Substring) -> [(name: String, value: String)] {
        text.split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (formDecoded(pair[0]).lowercased(), pair.count > 1 ? formDecoded(pair[1]) : "")
        }
    }

    static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    // MARK: - Plain coordinates

    enum Token: Equatable {
        /// The magnitude, and the sign as written (`-0 30` is half a degree south or west).
        case number(Double, isInteger: Bool, sign: Sign)
        case mark(Mark)
        case hemisphere(Character)
        case comma
    }

    enum Sign { case none, plus, minus }

    /// Degree, minute and second marks, in the order they must come.
    enum Mark: Int, Comparable {
        case degrees = 0, minutes = 1, seconds = 2
        static func < (lhs: Mark, rhs: Mark) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    static func parsePlain(_ text: String) throws(CoordinateParseError) -> Coordinate {
        guard text.contains(where: { $0.isASCII && $0.isNumber }) else { throw .notACoordinate(text) }
        let tokens = try tokenize(text)
        let halves = try split(tokens, text: text)
        var first = try component(halves.0, text: text)
        var second = try component(halves.1, text: text)
        if first.axis == .longitude || second.axis == .latitude {
            swap(&first, &second)
        }
        guard first.axis != .longitude, second.axis != .latitude else {
            throw .malformed(text, expected: "one latitude (N or S) and one longitude (E or W)")
        }
        return Coordinate(latitude: first.value, longitude: second.value)
    }

    static func tokenize(_ text: String) throws(CoordinateParseError) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "," || character == ";" {
                tokens.append(.comma)
                index += 1
                continue
            }
            if var mark = mark(character) {
                index += 1
                // Two apostrophes (`24''`) are a seconds mark typed without the double quote.
                if mark == .minutes, index < characters.count, self.mark(characters[index]) == .minutes {
                    mark = .seconds
                    index += 1
                }
                tokens.append(.mark(mark))
                continue
            }
            if (character.isASCII && character.isNumber) || character == "." || character == "-" || character == "+"
                || character == "−"
            {
                var end = index + 1
                while end < characters.count,
                    (characters[end].isASCII && characters[end].isNumber) || characters[end] == "."
                {
                    end += 1
                }
                var literal = String(characters[index..<end])
                if literal.hasPrefix("−") { literal = "-" + literal.dropFirst() }
                guard let value = decimal(literal[...]) else {
                    throw .malformed(text, expected: expectedAnything)
                }
                let sign: Sign = literal.hasPrefix("-") ? .minus : literal.hasPrefix("+") ? .plus : .none
                tokens.append(.number(abs(value), isInteger: !literal.contains("."), sign: sign))
                index = end
                continue
            }
            if character.isLetter {
                var end = index + 1
                while end < characters.count, characters[end].isLetter { end += 1 }
                let word = String(characters[index..<end]).uppercased()
                // A word that is not a lone hemisphere letter makes this a name, not a coordinate.
                guard ["N", "S", "E", "W"].contains(word) else { throw .notACoordinate(text) }
                tokens.append(.hemisphere(Character(word)))
                index = end
                continue
            }
            throw .malformed(text, expected: expectedAnything)
        }
        return tokens
    }

    static func mark(_ character: Character) -> Mark? {
        switch character {
        case "°", "º", "˚": .degrees
        case "'", "′", "’", "‘": .minutes
        case "\"", "″", "”", "“": .seconds
        default: nil
        }
    }

    /// Splits the tokens into the two coordinates: at a comma, at the hemisphere letters, or in half.
    static func split(_ tokens: [Token], text: String) throws(CoordinateParseError) -> ([Token], [Token]) {
        let commas = tokens.indices.filter { tokens[$0] == .comma }
        if !commas.isEmpty {
            guard commas.count == 1 else { throw .malformed(text, expected: "two values separated by one comma") }
            return (Array(tokens[..<commas[0]]), Array(tokens[(commas[0] + 1)...]))
        }
        let hemispheres = tokens.indices.filter {
            if case .hemisphere = tokens[$0] { return true }
            return false
        }
        if !hemispheres.isEmpty {
            guard hemispheres.count == 2 else {
                throw .malformed(text, expected: "a hemisphere letter for both values, or for neither")
            }
            // `N48 E2`: the second letter starts the second value; `48N 2E`: the first letter ends the first.
            let cut = hemispheres[0] == 0 ? hemispheres[1] : hemispheres[0] + 1
            return (Array(tokens[..<cut]), Array(tokens[cut...]))
        }
        let degreeMarks = tokens.indices.filter { tokens[$0] == .mark(.degrees) }
        if degreeMarks.count == 2 {
            // The second value starts with the number right before its degree mark.
            let cut = degreeMarks[1] - 1
            guard cut > 0 else { throw .malformed(text, expected: expectedAnything) }
            return (Array(tokens[..<cut]), Array(tokens[cut...]))
        }
        let numbers = tokens.indices.filter {
            if case .number = tokens[$0] { return true }
            return false
        }
        guard [2, 4, 6].contains(numbers.count) else {
            throw .malformed(text, expected: expectedAnything)
        }
        let cut = numbers[numbers.count / 2]
        return (Array(tokens[..<cut]), Array(tokens[cut...]))
    }

    enum Axis { case latitude, longitude, unknown }

    /// One coordinate: `[sign]D[°] [M[']] [S["]]` with a hemisphere letter before or after.
    static func component(
        _ tokens: [Token], text: String
    ) throws(CoordinateParseError) -> (value: Double, axis: Axis) {
        var hemisphere: Character?
        var parts: [(value: Double, isInteger: Bool, sign: Sign, mark: Mark?)] = []
        for (offset, token) in tokens.enumerated() {
            switch token {
            case .hemisphere(let letter):
                guard hemisphere == nil, offset == 0 || offset == tokens.count - 1 else {
                    throw .malformed(text, expected: "N, S, E or W before or after each value")
                }
                hemisphere = letter
            case .number(let value, let isInteger, let sign):
                parts.append((value, isInteger, sign, nil))
            case .mark(let mark):
                guard let last = parts.last, last.mark == nil else {
                    throw .malformed(text, expected: "a number before each °, ' or \" mark")
                }
                parts[parts.count - 1].mark = mark
            case .comma:
                throw .malformed(text, expected: expectedAnything)
            }
        }
        guard (1...3).contains(parts.count) else {
            throw .malformed(text, expected: "degrees, or degrees and minutes, or degrees, minutes and seconds")
        }
        // Unmarked numbers take the next place: degrees, then minutes, then seconds.
        var places: [Mark] = []
        for part in parts {
            let place = part.mark ?? (places.last.flatMap { Mark(rawValue: $0.rawValue + 1) } ?? .degrees)
            guard places.last.map({ $0 < place }) ?? true else {
                throw .malformed(text, expected: "degrees, minutes and seconds in that order")
            }
            places.append(place)
        }
        guard places.first == .degrees else {
            throw .malformed(text, expected: "degrees first, then minutes and seconds")
        }
        var value = 0.0
        for (index, part) in parts.enumerated() {
            let place = places[index]
            if index > 0 {
                guard part.sign == .none else { throw .malformed(text, expected: "a sign on the degrees only") }
                guard part.value < 60 else {
                    let name = place == .minutes ? "minutes" : "seconds"
                    throw .outOfRange("\(name) \(format(part.value))", allowed: "0 up to 60")
                }
            }
            // Only the last number may have a fraction: `48.5°30'` means nothing.
            guard index == parts.count - 1 || part.isInteger else {
                throw .malformed(text, expected: "a fraction on the last number only")
            }
            let divisor: Double = place == .degrees ? 1 : place == .minutes ? 60 : 3600
            value += part.value / divisor
        }
        var axis = Axis.unknown
        if let hemisphere {
            guard parts[0].sign == .none else {
                throw .malformed(text, expected: "either a sign or a hemisphere letter, not both")
            }
            axis = hemisphere == "N" || hemisphere == "S" ? .latitude : .longitude
            if hemisphere == "S" || hemisphere == "W" { value = -value }
        } else if parts[0].sign == .minus {
            value = -value
        }
        return (value, axis)
    }
}
