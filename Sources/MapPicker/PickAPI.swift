import ForecastModel
import Foundation
import Gazetteer

/// The page's questions, answered from the offline gazetteer, and the choice it sends, checked.
///
/// The same functions as forecastctl's: `nearestPlace(to:)` names a position as `forecastctl place`
/// does, `resolve(_:)` finds a name as `forecastctl pin "Paris, TX"` does, and `largestPlaces(in:limit:)`
/// gives the dots of the offline map.
struct PickAPI: Sendable {
    let gazetteer: Gazetteer
    let page: PickPage

    /// The most dots one answer gives: enough to fill a screen, few enough to draw at once.
    static let placesLimit = 400
    /// The longest name a search takes (the gazetteer's names are shorter).
    static let searchLength = 200

    /// A request the API refuses, with its status and a sentence.
    struct Refusal: Error, Equatable {
        var status: Int
        var message: String
    }

    // MARK: Answers

    struct PlaceJSON: Encodable {
        var name: String
        var admin1: String?
        var countryCode: String
        var latitude: Double
        var longitude: Double
        var population: Int
        var label: String

        init(_ place: Place) {
            name = place.name
            admin1 = place.admin1
            countryCode = place.countryCode
            latitude = place.coordinate.latitude
            longitude = place.coordinate.longitude
            population = place.population
            label = placeLabel(place)
        }
    }

    struct Setup: Encodable {
        struct Tiles: Encodable {
            var url: String
            var attribution: String
            var attributionURL: String?
        }
        struct Point: Encodable {
            var latitude: Double
            var longitude: Double
            var name: String?
            var accuracyM: Double?
            var source: String?
        }
        var language: String
        var purpose: String
        var texts: [String: String]
        var tiles: Tiles
        var pin: Point?
        var position: Point?
        var forecastPlace: String?
        var placesCredit: String
    }

    func setup() -> Data {
        let start = page.start
        let setup = Setup(
            language: page.translation.language.replacingOccurrences(of: "_", with: "-"),
            purpose: page.purpose.rawValue,
            texts: PageTexts.all(page.translation),
            tiles: .init(
                url: page.tiles.urlTemplate, attribution: page.tiles.attribution,
                attributionURL: page.tiles.attributionURL?.absoluteString),
            pin: start.pin.map {
                .init(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, name: $0.name)
            },
            position: start.position.map {
                .init(
                    latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, accuracyM: $0.accuracyM,
                    source: $0.source)
            },
            forecastPlace: start.forecastPlace,
            placesCredit: gazetteer.attribution)
        return Self.encode(setup)
    }

    /// `places?south=&west=&north=&east=&limit=`: the largest places in the view.
    func places(_ query: [String: String]) throws(Refusal) -> Data {
        let edges = try ["south", "west", "north", "east"].map { name throws(Refusal) in
            try Self.number(query, name)
        }
        // Leaflet's view may reach past the poles by a little: the edges are clamped, not refused.
        guard
            let area = MapArea(
                south: max(-90, edges[0]), west: edges[1], north: min(90, edges[2]), east: edges[3])
        else { throw Refusal(status: 400, message: "the edges do not make an area (south ≤ north, west ≤ east)") }
        var limit = Self.placesLimit
        if let text = query["limit"] {
            guard let asked = Int(text), asked > 0 else {
                throw Refusal(status: 400, message: "limit must be a whole number above 0")
            }
            limit = min(asked, Self.placesLimit)
        }
        struct Places: Encodable { var places: [PlaceJSON] }
        return Self.encode(Places(places: gazetteer.largestPlaces(in: area, limit: limit).map(PlaceJSON.init)))
    }

    /// `search?q=`: the place a name means, the places it may mean, or none.
    func search(_ query: [String: String]) throws(Refusal) -> Data {
        guard let text = query["q"]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw Refusal(status: 400, message: "q must name a place")
        }
        guard text.count <= Self.searchLength else {
            throw Refusal(status: 400, message: "q is longer than \(Self.searchLength) characters")
        }
        struct Found: Encodable {
            var result: String
            var places: [PlaceJSON]
        }
        let found: Found =
            switch gazetteer.resolve(text) {
            case .unique(let place): Found(result: "unique", places: [PlaceJSON(place)])
            case .ambiguous(let places): Found(result: "ambiguous", places: places.map(PlaceJSON.init))
            case .notFound: Found(result: "none", places: [])
            }
        return Self.encode(found)
    }

    /// `nearest?lat=&lon=`: the gazetteer's nearest place, as `forecastctl place` gives it.
    func nearest(_ query: [String: String]) throws(Refusal) -> Data {
        let coordinate = try Self.coordinate(latitude: Self.number(query, "lat"), longitude: Self.number(query, "lon"))
        guard let place = gazetteer.nearestPlace(to: coordinate) else {
            throw Refusal(status: 404, message: "no place is known near that position")
        }
        struct Nearest: Encodable {
            var place: PlaceJSON
            var distanceKm: Double
        }
        return Self.encode(Nearest(place: PlaceJSON(place), distanceKm: (place.distanceKm * 10).rounded() / 10))
    }

    // MARK: The choice

    /// The choice a `POST choose` carries: `{"action": "pin", "latitude": 48.85, "longitude": 2.35,
    /// "favorite": false}`; the action must be one the page offers.
    func choice(_ body: [UInt8]) throws(Refusal) -> PickChoice {
        struct Body: Decodable {
            var action: PickChoice.Action
            var latitude: Double?
            var longitude: Double?
            var favorite: Bool?
        }
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw Refusal(status: 400, message: "the choice is not JSON with an action of pin, city, use or cancel")
        }
        let offered: Set<PickChoice.Action> = page.purpose == .print ? [.use, .cancel] : [.pin, .city, .cancel]
        guard offered.contains(decoded.action) else {
            throw Refusal(status: 400, message: "this page does not offer \(decoded.action.rawValue)")
        }
        if decoded.action == .cancel {
            return PickChoice(action: .cancel, coordinate: nil, place: nil, favorite: false)
        }
        guard let latitude = decoded.latitude, let longitude = decoded.longitude else {
            throw Refusal(status: 400, message: "the choice has no latitude and longitude")
        }
        let coordinate = try Self.coordinate(latitude: latitude, longitude: longitude)
        guard let place = gazetteer.nearestPlace(to: coordinate) else {
            throw Refusal(status: 404, message: "no place is known near that position")
        }
        return PickChoice(
            action: decoded.action, coordinate: coordinate, place: place, favorite: decoded.favorite ?? false)
    }

    // MARK: Helpers

    /// A finite number from the query, or a refusal naming the parameter.
    static func number(_ query: [String: String], _ name: String) throws(Refusal) -> Double {
        guard let text = query[name], text.count <= 32, let number = Double(text), number.isFinite else {
            throw Refusal(status: 400, message: "\(name) must be a number")
        }
        return number
    }

    /// A position to 1e-5 degrees (about a metre: a click is no finer), its longitude brought into
    /// -180...180 (a map panned round the world gives 361.2); a latitude outside -90...90 is refused.
    static func coordinate(latitude: Double, longitude: Double) throws(Refusal) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), abs(longitude) <= 3600 else {
            throw Refusal(status: 400, message: "the position is outside latitude -90...90")
        }
        func rounded(_ value: Double) -> Double { (value * 100_000).rounded() / 100_000 }
        return Coordinate(latitude: rounded(latitude), longitude: rounded(MapArea.normalized(longitude)))
    }

    /// The query's parameters, percent-decoded; the first of a repeated name.
    static func parameters(_ query: String?) -> [String: String] {
        guard let query, let items = URLComponents(string: "http://page/?" + query)?.queryItems else { return [:] }
        var parameters: [String: String] = [:]
        for item in items where parameters[item.name] == nil {
            parameters[item.name] = item.value ?? ""
        }
        return parameters
    }

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
