import ForecastModel
import Foundation
import Testing

@Suite("Reading a pin from coordinates, geo: URIs and map links")
struct CoordinateParserTests {
    /// Parses `text` and checks the coordinate to a millionth of a degree (about 0.1 m).
    func expectPin(
        _ text: String, _ latitude: Double, _ longitude: Double, label: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let pin = try CoordinateParser.parse(text)
            #expect(
                abs(pin.coordinate.latitude - latitude) < 1e-6, "latitude of \(text)", sourceLocation: sourceLocation)
            #expect(
                abs(pin.coordinate.longitude - longitude) < 1e-6, "longitude of \(text)", sourceLocation: sourceLocation
            )
            #expect(pin.name == label, "label of \(text)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
        }
    }

    func failure(_ text: String) -> CoordinateParseError? {
        do {
            let pin = try CoordinateParser.parse(text)
            Issue.record("\(text) was read as \(pin)")
            return nil
        } catch {
            return error
        }
    }

    @Test("decimal degrees: comma, space, signs, hemisphere letters before or after")
    func decimalDegrees() {
        expectPin("48.8566,2.3522", 48.8566, 2.3522)
        expectPin("48.8566, 2.3522", 48.8566, 2.3522)
        expectPin("  48.8566 2.3522 ", 48.8566, 2.3522)
        expectPin("-34.9011,-56.1645", -34.9011, -56.1645)
        expectPin("-34.9011 -56.1645", -34.9011, -56.1645)
        expectPin("+59.91 +10.75", 59.91, 10.75)
        expectPin("48.8566N 2.3522E", 48.8566, 2.3522)
        expectPin("48.8566 N, 2.3522 E", 48.8566, 2.3522)
        expectPin("N48.8566 E2.3522", 48.8566, 2.3522)
        expectPin("S34.9011 W56.1645", -34.9011, -56.1645)
        expectPin("34.9011S 56.1645W", -34.9011, -56.1645)
        expectPin("48.8566°N 2.3522°E", 48.8566, 2.3522)
        expectPin("48.8566° -2.3522°", 48.8566, -2.3522)
        // Hemisphere letters decide the order.
        expectPin("2.3522E 48.8566N", 48.8566, 2.3522)
        expectPin("45 7", 45, 7)
    }

    @Test("degrees, minutes and seconds, with marks or with spaces")
    func degreesMinutesSeconds() {
        expectPin(#"48°51'24"N 2°21'08"E"#, 48 + 51 / 60.0 + 24 / 3600.0, 2 + 21 / 60.0 + 8 / 3600.0)
        expectPin("48°51′24″N 2°21′08″E", 48 + 51 / 60.0 + 24 / 3600.0, 2 + 21 / 60.0 + 8 / 3600.0)
        expectPin("48°51'24''N, 2°21'8''E", 48 + 51 / 60.0 + 24 / 3600.0, 2 + 21 / 60.0 + 8 / 3600.0)
        expectPin("48 51 24 N 2 21 8 E", 48 + 51 / 60.0 + 24 / 3600.0, 2 + 21 / 60.0 + 8 / 3600.0)
        expectPin("N 48 51 24 E 2 21 8", 48 + 51 / 60.0 + 24 / 3600.0, 2 + 21 / 60.0 + 8 / 3600.0)
        expectPin("48°51.4'N 2°21.1'E", 48 + 51.4 / 60, 2 + 21.1 / 60)
        expectPin(#"34°54'4"S 56°9'52"W"#, -(34 + 54 / 60.0 + 4 / 3600.0), -(56 + 9 / 60.0 + 52 / 3600.0))
        expectPin(#"-34°54'4" -56°9'52""#, -(34 + 54 / 60.0 + 4 / 3600.0), -(56 + 9 / 60.0 + 52 / 3600.0))
        expectPin("48 51 2 21", 48 + 51 / 60.0, 2 + 21 / 60.0)
        // A sign on zero degrees still counts: -0°30' is half a degree south.
        expectPin("-0 30 0 10 30 0", -0.5, 10.5)
    }

    @Test("geo: URIs as RFC 5870 writes them, and Android's q= form")
    func geoURIs() {
        expectPin("geo:48.85,2.35", 48.85, 2.35)
        expectPin("GEO:48.85,2.35", 48.85, 2.35)
        expectPin("geo:48.85,2.35,35", 48.85, 2.35)
        expectPin("geo:48.85,2.35;u=30", 48.85, 2.35)
        expectPin("geo:48.85,2.35,35;crs=wgs84;u=30", 48.85, 2.35)
        expectPin("geo:48.85,2.35;CRS=WGS84", 48.85, 2.35)
        expectPin("geo:-34.9011,-56.1645;foo=bar", -34.9011, -56.1645)
        expectPin("geo:0,0?q=48.8584,2.2945(Tour%20Eiffel)", 48.8584, 2.2945, label: "Tour Eiffel")
        expectPin("geo:48.85,2.35?z=12", 48.85, 2.35)
    }

    @Test("OpenStreetMap links: the marker, else the view")
    func openStreetMap() {
        expectPin("https://www.openstreetmap.org/?mlat=48.8584&mlon=2.2945#map=17/48.85840/2.29450", 48.8584, 2.2945)
        expectPin("https://www.openstreetmap.org/?mlat=48.8584&mlon=2.2945&zoom=15&layers=M", 48.8584, 2.2945)
        expectPin("https://www.openstreetmap.org/#map=12/59.9139/10.7522", 59.9139, 10.7522)
        expectPin("https://www.openstreetmap.org/#map=12/-34.9011/-56.1645&layers=C", -34.9011, -56.1645)
        expectPin("openstreetmap.org/#map=5/51.5/-0.12", 51.5, -0.12)
        expectPin("https://osm.org/go/0BOdUs9e--?m=&mlat=45.5&mlon=7.25", 45.5, 7.25)
    }

    @Test("Google Maps links: place names, the view, queries")
    func googleMaps() {
        expectPin(
            "https://www.google.com/maps/place/Tour+Eiffel/@48.8583701,2.2944813,17z/data=!3m1!4b1",
            48.8583701, 2.2944813, label: "Tour Eiffel")
        expectPin(
            "https://www.google.fr/maps/place/S%C3%A3o+Paulo,+SP/@-23.6821604,-46.8754915,10z",
            -23.6821604, -46.8754915, label: "São Paulo, SP")
        // The place's own coordinates (!3d…!4d…) win over the centre of the view.
        expectPin(
            "https://www.google.com/maps/place/Louvre/@48.86,2.33,15z/data=!4m6!3m5!1s0x0:0x0!8m2!3d48.8606111!4d2.337644",
            48.8606111, 2.337644, label: "Louvre")
        expectPin("https://www.google.com/maps/@59.9138688,10.7522454,13z", 59.9138688, 10.7522454)
        expectPin("https://www.google.com/maps/@-33.8688,151.2093,3a,75y,90t/data=!3m6", -33.8688, 151.2093)
        expectPin("https://maps.google.com/?q=48.8584,2.2945", 48.8584, 2.2945)
        expectPin("https://maps.google.com/maps?q=48.8584%2C2.2945&z=15", 48.8584, 2.2945)
        expectPin("https://www.google.com/maps/search/?api=1&query=47.5951518,-122.3316393", 47.5951518, -122.3316393)
        expectPin("https://maps.google.com/?ll=40.7128,-74.0060", 40.7128, -74.006)
    }

    @Test("text that is no coordinate and no link is reported as such, for a place search")
    func notCoordinates() {
        #expect(failure("Paris") == .notACoordinate("Paris"))
        #expect(failure("Paris, FR") == .notACoordinate("Paris, FR"))
        #expect(failure("São Paulo") == .notACoordinate("São Paulo"))
        #expect(failure("Route 66") == .notACoordinate("Route 66"))
        #expect(failure("https://maps.google.com/?q=Lisbon") == .notACoordinate("Lisbon"))
        #expect(failure("https://www.google.com/maps/place/Lisboa/") == .notACoordinate("Lisboa"))
        #expect(failure("geo:0,0?q=Eiffel+Tower") == .notACoordinate("Eiffel Tower"))
        #expect(
            CoordinateParseError.notACoordinate("Paris").description == "not a coordinate or map link: Paris")
    }

    @Test("malformed coordinates and links say what was expected")
    func malformed() {
        let bad = [
            "48.85", "48.85,2.35,7", "48.85,,2.35", "1.2.3 4", "48 51 24 N", "48N 2N", "2E 3W", "48.5°30' 2°",
            "48°61' 2°", "-48N 2E", "48 -51 2 3", "geo:48.85", "geo:a,b", "geo:48.85,2.35;u=-1", "geo:48.85,2.35;u=x",
            "geo:48.85,2.35;u=5;crs=wgs84", "https://www.openstreetmap.org/about",
            "https://www.openstreetmap.org/?mlat=abc&mlon=2", "https://www.google.com/maps/@abc,def,3z",
            "https://www.google.com/maps", "48.85 # 2.35", "",
        ]
        for text in bad {
            switch failure(text) {
            case .malformed, .outOfRange: break
            case let other: Issue.record("\(text): expected a malformed error, got \(String(describing: other))")
            }
        }
        #expect(
            failure("geo:48.85")?.description
                == "geo:48.85: expected geo:LAT,LON or geo:LAT,LON,ALTITUDE, optionally followed by ;crs=wgs84 and ;u=METRES"
        )
        #expect(
            failure("https://www.openstreetmap.org/about")?.description
                == "https://www.openstreetmap.org/about: expected an OpenStreetMap link with ?mlat=LAT&mlon=LON or "
                + "#map=ZOOM/LAT/LON")
        #expect(failure("48°61' 2°") == .outOfRange("minutes 61", allowed: "0 up to 60"))
    }

    @Test("out-of-range values, (0, 0) and other coordinate systems are refused")
    func refused() {
        #expect(failure("95,10") == .outOfRange("latitude 95", allowed: "-90...90"))
        #expect(failure("45,181") == .outOfRange("longitude 181", allowed: "-180...180"))
        #expect(failure("91N 10E") == .outOfRange("latitude 91", allowed: "-90...90"))
        #expect(failure("geo:48.85,200") == .outOfRange("longitude 200", allowed: "-180...180"))
        #expect(failure("https://www.google.com/maps/@95.1,2,3z") == .outOfRange("latitude 95.1", allowed: "-90...90"))
        #expect(failure("0,0") == .nullIsland)
        #expect(failure("0.0 0.0") == .nullIsland)
        #expect(failure("geo:0,0") == .nullIsland)
        #expect(failure("https://www.openstreetmap.org/#map=3/0/0") == .nullIsland)
        #expect(failure("geo:48.85,2.35;crs=nad27") == .unsupportedCRS("nad27"))
        #expect(
            CoordinateParseError.unsupportedCRS("nad27").description
                == "geo: URI in the coordinate reference system \"nad27\" (allowed: wgs84)")
    }
}
