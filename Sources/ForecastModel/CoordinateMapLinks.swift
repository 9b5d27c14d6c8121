import Foundation

/// Positions in OpenStreetMap and Google Maps links.
extension CoordinateParser {
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
}
