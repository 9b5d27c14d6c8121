import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import Warnings

/// Each source's recorded answers decoded, and positions inside and outside their areas matched.
@Suite("Decoders and matching on recorded answers")
struct DecoderAndMatchingTests {
    // MARK: NWS

    @Test("NWS, Iowa May 2024: a point in the tornado warning's polygon gets exactly that warning")
    func nwsIowaInside() throws {
        let now = Alerts.time("2024-05-21T22:00:00Z")
        let feed = try NWSDecoder.decode(try Alerts.iowa(now: now), askedPoint: Alerts.at(41.01, -95.16))
        #expect(feed.messages.count == 48)
        #expect(feed.refused.isEmpty)
        // One Flood Watch update's message expires 20 hours ahead, its watch starts in 3.7 days, and it gives no
        // `ends`: an announcement, kept (not refused as never in force).
        let flood = try #require(
            feed.messages.first {
                $0.warning.identifier == "urn:oid:2.49.0.1.840.0.05166443b0a2ae2151e060012ace1ae33096b4d3.002.1"
            })
        #expect(flood.warning.isAnnouncement)
        let matched = WarningMatcher().match(feed, at: Alerts.at(41.0117, -95.1617))
        let merged = WarningMerger.merge([matched], now: now)
        // The watches in the answer are for Iowa's zones, not confirmed for the point: listed after, as such.
        #expect(merged.warnings.filter(\.areaConfirmed).map(\.event) == ["Tornado Warning"])
        #expect(merged.warnings.first?.event == "Tornado Warning")
        let tornado = try #require(merged.warnings.first)
        #expect(tornado.identifier == "urn:oid:2.49.0.1.840.0.dd2ea9bc85e10d9965e349d8d462c1f69650b1bb.001.1")
        #expect(tornado.severity == .extreme && tornado.urgency == .immediate && tornado.certainty == .observed)
        #expect(tornado.area?.contains("Montgomery, IA") == true)
        #expect(tornado.expires == now.addingTimeInterval(1547))
        #expect(tornado.until == tornado.ends ?? tornado.expires)
    }

    @Test("NWS, Iowa: a point outside every polygon gets none; the zone-only watches are kept, their area not confirmed")
    func nwsIowaOutside() throws {
        let now = Alerts.time("2024-05-21T22:00:00Z")
        let feed = try NWSDecoder.decode(try Alerts.iowa(now: now), askedPoint: Alerts.at(41.59, -93.62))
        let matched = WarningMatcher().match(feed, at: Alerts.at(41.59, -93.62))
        #expect(matched.covering.isEmpty)
        // The answer is for Iowa, not for the point: watches named by zone are not guessed onto it, nor dropped.
        #expect(matched.unplaced.count == 14)
        #expect(matched.unplaced.allSatisfy { $0.geocodes.contains { $0.scheme == "UGC" } })
        let merged = WarningMerger.merge([matched], now: now)
        #expect(!merged.warnings.isEmpty)
        #expect(merged.warnings.allSatisfy { !$0.areaConfirmed })
    }

    @Test("NWS, Minneapolis: an answer made for the asked point confirms its zone advisory for that point")
    func nwsPointAnswer() throws {
        let data = try Alerts.data("nws/weathergov-alerts-active-point-minneapolis-2024-01-12.json")
        let asked = Alerts.at(44.9869, -93.2926)
        let feed = try NWSDecoder.decode(data, askedPoint: asked)
        let matched = WarningMatcher().match(feed, at: asked)
        #expect(matched.covering.map(\.event) == ["Winter Weather Advisory"])
        let advisory = try #require(matched.covering.first)
        #expect(advisory.messageType == .update)
        #expect(advisory.references.count == 2)
        // The id is the oldest message of the chain, so the next update keeps it.
        #expect(advisory.id == "urn:oid:2.49.0.1.840.0.a9b0168968276be115b0972cbad265be0a817ded.001.2")
        #expect(advisory.severity == .moderate && advisory.urgency == .expected && advisory.certainty == .likely)
        #expect(advisory.sent == Alerts.time("2024-01-12T20:05:00Z"))

        // The same answer for a point it does not name places nothing.
        let elsewhere = try NWSDecoder.decode(data, askedPoint: Alerts.at(45.5, -94.0))
        #expect(WarningMatcher().match(elsewhere, at: Alerts.at(45.5, -94.0)).covering.isEmpty)
    }

    @Test("NWS: empty point answers give no warning")
    func nwsEmpty() throws {
        for file in ["nws/linecast-alerts-active-point-nyc-empty.json", "nws/weathergov-alerts-active-point-empty-2024-01-08.json"] {
            let feed = try NWSDecoder.decode(try Alerts.data(file), askedPoint: Alerts.at(40.7128, -74.006))
            #expect(feed.messages.isEmpty)
            #expect(feed.refused.isEmpty)
        }
    }

    @Test("NWS: Test, Exercise, System and Draft messages are dropped")
    func nwsDropsNonActual() throws {
        var root = try Alerts.json("nws/weathergov-alerts-active-point-minneapolis-2024-01-12.json")
        var features = try #require(root["features"] as? [[String: Any]])
        let original = features[0]
        features = ["Test", "Exercise", "System", "Draft", "Actual"].map { status in
            var feature = original
            var properties = feature["properties"] as! [String: Any]
            properties["status"] = status
            properties["id"] = "derived-\(status)"
            feature["properties"] = properties
            return feature
        }
        root["features"] = features
        let feed = try NWSDecoder.decode(try Alerts.encode(root), askedPoint: Alerts.at(44.9869, -93.2926))
        #expect(feed.messages.map(\.warning.identifier) == ["derived-Actual"])
    }

    @Test("NWS: an Update replaces what it references; a Cancel removes it and is not shown")
    func nwsUpdateAndCancel() throws {
        // Derived from the recorded Minneapolis advisory (an Update referencing two earlier messages):
        // the referenced original is rebuilt beside it, and a Cancel of the update is made from it.
        let root = try Alerts.json("nws/weathergov-alerts-active-point-minneapolis-2024-01-12.json")
        let update = try #require((root["features"] as? [[String: Any]])?.first)
        var properties = update["properties"] as! [String: Any]
        let reference = try #require((properties["references"] as? [[String: Any]])?.first)
        var original = update
        var originalProperties = properties
        originalProperties["id"] = reference["identifier"]
        originalProperties["messageType"] = "Alert"
        originalProperties["sent"] = reference["sent"]
        originalProperties["references"] = [[String: Any]]()
        original["properties"] = originalProperties

        let now = Alerts.time("2024-01-12T21:00:00Z")
        let point = Alerts.at(44.9869, -93.2926)
        func merged(_ features: [[String: Any]]) throws -> [WeatherWarning] {
            var body = root
            body["features"] = features
            let feed = try NWSDecoder.decode(try Alerts.encode(body), askedPoint: point)
            return WarningMerger.merge([WarningMatcher().match(feed, at: point)], now: now).warnings
        }
        let withOriginal = try merged([original, update])
        #expect(withOriginal.count == 1)
        #expect(withOriginal.first?.identifier == properties["id"] as? String)
        #expect(withOriginal.first?.id == reference["identifier"] as? String)

        var cancel = update
        properties["id"] = "urn:oid:derived.cancel"
        properties["messageType"] = "Cancel"
        properties["sent"] = "2024-01-12T14:40:00-06:00"
        properties["references"] = [
            [
                "identifier": (update["properties"] as! [String: Any])["id"]!, "sender": "w-nws.webmaster@noaa.gov",
                "sent": "2024-01-12T14:05:00-06:00",
            ]
        ]
        cancel["properties"] = properties
        #expect(try merged([original, update, cancel]).isEmpty)
    }

    @Test("NWS: a zone answer (Portland's ORZ006 flood watch) names zones, not the point: unplaced")
    func nwsZoneAnswer() throws {
        let feed = try NWSDecoder.decode(
            try Alerts.data("nws/pynws-alerts-active-zone-ORZ006-flood-watch-2019-12-20.json"),
            askedPoint: Alerts.at(45.0, -123.5))
        let matched = WarningMatcher().match(feed, at: Alerts.at(45.0, -123.5))
        #expect(matched.covering.isEmpty)
        #expect(matched.unplaced.first?.geocodes.contains(Geocode(scheme: "UGC", value: "ORZ006")) == true)
        #expect(matched.unplaced.first?.warning.references.count == 4)
    }

    // MARK: MET Norway

    @Test("MET Norway: a boat on Tromsøflaket gets exactly that gale warning; Oslo gets none")
    func metNorway() throws {
        let feed = try MetNorwayAlertsDecoder.decode(
            try Alerts.data("met-norway/linecast-metalerts-current-marine-gale-2026-03-07.json"))
        #expect(feed.messages.count == 29)
        #expect(feed.refused.isEmpty)
        let now = Alerts.time("2026-03-07T06:00:00Z")
        let inside = WarningMerger.merge([WarningMatcher().match(feed, at: Alerts.at(71.513, 19.218))], now: now)
        #expect(inside.warnings.map(\.area) == ["Tromsøflaket"])
        let gale = try #require(inside.warnings.first)
        #expect(gale.identifier == "2.49.0.1.578.0.260306220000.7080_1_0")
        #expect(gale.severity == .moderate)
        // `eventAwarenessName` (the recording asked for Norwegian: "Storm" is the same word in English).
        #expect(gale.event == "Storm")
        #expect(gale.headline == "Storm, Tromsøflaket, 06 mars 22:00 UTC til 07 mars 22:00 UTC.")
        #expect(gale.onset == Alerts.time("2026-03-06T22:00:00Z"))
        #expect(gale.expires == Alerts.time("2026-03-07T22:00:00Z"))
        #expect(gale.messageType == .update)
        #expect(gale.url == "https://www.met.no/vaer-og-klima/Ekstremvaervarsler-og-andre-farevarsler")

        let oslo = WarningMatcher().match(feed, at: Alerts.at(59.91, 10.75))
        #expect(oslo.covering.isEmpty && oslo.unplaced.isEmpty)
    }

    // MARK: Bright Sky

    @Test("Bright Sky: the answer names the warn cell, so its frost warning is the position's")
    func brightSky() throws {
        let feed = try BrightSkyDecoder.decode(try Alerts.data("bright-sky/linecast-alerts-berlin-mitte-frost-2026-03-06.json"))
        let matched = WarningMatcher().match(feed, at: Alerts.at(52.52, 13.405))
        let frost = try #require(matched.covering.first)
        #expect(matched.covering.count == 1)
        #expect(frost.event == "frost" && frost.severity == .minor && frost.urgency == .immediate)
        #expect(frost.headline == "Official WARNING of FROST")
        #expect(frost.area == "Berl. - Mitte")
        #expect(frost.expires == Alerts.time("2026-03-07T08:00:00Z"))
        #expect(WarningMerger.merge([matched], now: Alerts.time("2026-03-07T08:00:00Z")).warnings.isEmpty)
    }

    @Test("Bright Sky: an answer that places the position in no warn cell places no warning")
    func brightSkyWithoutCell() throws {
        var root = try Alerts.json("bright-sky/linecast-alerts-berlin-mitte-frost-2026-03-06.json")
        root["location"] = NSNull()
        let feed = try BrightSkyDecoder.decode(try Alerts.encode(root))
        let matched = WarningMatcher().match(feed, at: Alerts.at(47.8, 13.0))
        #expect(matched.covering.isEmpty)
        #expect(matched.unplaced.count == 1)
    }

    // MARK: MeteoAlarm

    @Test("MeteoAlarm, Bosnia-Herzegovina: Banja Luka and Bihać get their own region's warnings, by shape")
    func meteoAlarmInside() throws {
        let feed = try MeteoAlarmDecoder.decode(
            try Alerts.data("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"))
        #expect(feed.messages.count == 5)
        let matcher = WarningMatcher(areas: try Alerts.areas(["BA"]))
        let now = Alerts.time("2024-01-07T12:00:00Z")

        let banjaLuka = WarningMerger.merge([matcher.match(feed, at: Alerts.at(44.7722, 17.191))], now: now)
        #expect(banjaLuka.warnings.map(\.identifier) == ["2.49.0.0.70.1.BA.240105083949.65615156"])
        let snow = try #require(banjaLuka.warnings.first)
        // The English info block, not the first (Bosnian) one.
        #expect(snow.event == "Snow-ice Yellow Warning")
        #expect(snow.severity == .moderate)
        #expect(snow.area == "Banja Luka")
        #expect(snow.url == "https://rhmzrs.com/")

        let bihac = WarningMerger.merge([matcher.match(feed, at: Alerts.at(44.8169, 15.8708))], now: now)
        // Same severity: the earlier onset (rain from midnight) comes before the snow from 18:00.
        #expect(bihac.warnings.map(\.event) == ["Rain Yellow Warning", "Snow-ice Yellow Warning"])
    }

    @Test("MeteoAlarm, Bosnia-Herzegovina: Mostar and Sarajevo, in regions without a warning here, get none")
    func meteoAlarmOutside() throws {
        let feed = try MeteoAlarmDecoder.decode(
            try Alerts.data("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"))
        let matcher = WarningMatcher(areas: try Alerts.areas(["BA"]))
        for point in [Alerts.at(43.3438, 17.8078), Alerts.at(43.8563, 18.4131)] {
            let matched = matcher.match(feed, at: point)
            #expect(matched.covering.isEmpty)
            #expect(matched.unplaced.isEmpty)
            #expect(matched.elsewhere.count == 5)
        }
    }

    @Test("MeteoAlarm without region shapes leaves code-only warnings unplaced instead of guessing")
    func meteoAlarmWithoutShapes() throws {
        let feed = try MeteoAlarmDecoder.decode(
            try Alerts.data("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"))
        let matched = WarningMatcher().match(feed, at: Alerts.at(44.7722, 17.191))
        #expect(matched.covering.isEmpty)
        #expect(matched.unplaced.count == 5)
        #expect(matched.unplaced.first?.geocodes == [Geocode(scheme: "EMMA_ID", value: "BA003")])
    }

    @Test("MeteoAlarm, the Netherlands: green \"no warnings\" entries are not warnings")
    func meteoAlarmGreen() throws {
        let feed = try MeteoAlarmDecoder.decode(
            try Alerts.data("meteoalarm/linecast-api-v1-warnings-feeds-netherlands-2026-03.json"))
        #expect(feed.messages.isEmpty)
        #expect(feed.refused.isEmpty)
    }

    @Test("MeteoAlarm: a feed's own CAP polygon places its warning without the shipped shapes")
    func meteoAlarmPolygon() throws {
        var root = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        // Derived: the first recorded warning, its area given a CAP polygon around Banja Luka instead of a code.
        root["warnings"] = [try Self.withArea(root, ["areaDesc": "Banja Luka", "polygon": ["44.6,17.0 44.6,17.4 45.0,17.4 45.0,17.0 44.6,17.0"]])]
        let feed = try MeteoAlarmDecoder.decode(try Alerts.encode(root))
        #expect(WarningMatcher().match(feed, at: Alerts.at(44.7722, 17.191)).covering.count == 1)
        #expect(WarningMatcher().match(feed, at: Alerts.at(43.85, 18.41)).elsewhere.count == 1)
    }

    @Test("MeteoAlarm: a CAP with no area is refused; an unclosed triangle and a crossing polygon are judged")
    func meteoAlarmBadEntries() throws {
        var root = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        let recorded = try #require(root["warnings"] as? [[String: Any]])
        let noArea = try Self.withArea(root, nil, identifier: "derived-no-area")
        let threePoints = try Self.withArea(
            root, ["areaDesc": "x", "polygon": "44.6,17.0 44.6,17.4 45.0,17.4"], identifier: "derived-three-points")
        let bowTie = try Self.withArea(
            root, ["areaDesc": "x", "polygon": "44.6,17.0 45.0,17.4 45.0,17.0 44.6,17.4 44.6,17.0"],
            identifier: "derived-bow-tie")
        root["warnings"] = [noArea, threePoints, bowTie] + recorded
        let feed = try MeteoAlarmDecoder.decode(try Alerts.encode(root))
        #expect(feed.messages.count == 7)
        #expect(feed.refused == [RefusedEntry(entry: "derived-no-area", problem: .noArea)])
        #expect(feed.refusedShapes.isEmpty)
        // The triangle closed; the bow tie's lower loop holds (44.7, 17.2), its waist's side (44.8, 17.05) not.
        let triangle = WarningMatcher().match(feed, at: Alerts.at(44.9, 17.3)).covering.map(\.identifier)
        #expect(triangle.contains("derived-three-points"))
        #expect(WarningMatcher().match(feed, at: Alerts.at(44.7, 17.2)).covering.map(\.identifier).contains("derived-bow-tie"))
        #expect(WarningMatcher().match(feed, at: Alerts.at(44.8, 17.05)).elsewhere.map(\.identifier).contains("derived-bow-tie"))
    }

    /// A Bosnian country-wide ice warning's six CAP polygons (derived from the recorded feed's first warning:
    /// the polygons are made up, the shape of the problem is the one issue 22 reports). The first, around
    /// Sarajevo, has a repeated position, a spike out and back (A → B → A) and a lobe through a vertex visited
    /// twice; the old geometry refused it ("a ring crosses itself") and with it the whole warning.
    static let icePolygons = [
        "43.6,18.0 43.6,18.8 43.6,18.8 44.1,18.8 44.3,18.9 44.1,18.8 44.1,18.0 43.85,18.0 43.75,17.7 43.95,17.7 "
            + "43.85,18.0 43.6,18.0",
        "44.6,17.0 44.6,17.4 45.0,17.4 45.0,17.0 44.6,17.0",  // Banja Luka
        "43.2,17.6 43.2,18.0 43.5,18.0 43.5,17.6 43.2,17.6",  // Mostar
        "44.4,18.5 44.4,18.9 44.7,18.9 44.7,18.5 44.4,18.5",  // Tuzla
        "44.7,15.8 44.7,16.1 45.0,16.1 45.0,15.8 44.7,15.8",  // Bihać
        "42.6,18.3 42.6,18.5 42.8,18.5 42.8,18.3 42.6,18.3",  // Trebinje
    ]

    @Test(
        "Issue 22's ice warning: a polygon with a spike, repeated points and a self-touch places the warning at every position inside any of the six polygons, and not outside"
    )
    func iceWarning() throws {
        var root = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        root["warnings"] = [
            try Self.withArea(
                root,
                [
                    "areaDesc": "Bosnia and Herzegovina", "polygon": Self.icePolygons,
                    "geocode": [["valueName": "EMMA_ID", "value": "BA006"]],
                ], identifier: "derived-ice")
        ]
        let feed = try MeteoAlarmDecoder.decode(try Alerts.encode(root))
        #expect(feed.refused.isEmpty)
        #expect(feed.refusedShapes.isEmpty)
        let matcher = WarningMatcher()
        let inside = [
            Alerts.at(43.8563, 18.4131),  // Sarajevo, the capital
            Alerts.at(43.85, 17.75),  // the lobe through the self-touching vertex
            Alerts.at(44.0, 18.75),  // beside the spike's base
            Alerts.at(44.7722, 17.191), Alerts.at(43.3438, 17.8078), Alerts.at(44.5384, 18.6763),
            Alerts.at(44.8169, 15.8708), Alerts.at(42.7110, 18.3436),
        ]
        for position in inside {
            #expect(matcher.match(feed, at: position).covering.map(\.identifier) == ["derived-ice"], "\(position)")
        }
        let outside = [
            Alerts.at(44.25, 18.88),  // beside the spike, outside the ring
            Alerts.at(43.85, 17.5),  // west of the lobe
            Alerts.at(44.2, 17.2),  // between the polygons
            Alerts.at(45.8, 15.98),  // Zagreb
        ]
        for position in outside {
            let matched = matcher.match(feed, at: position)
            #expect(matched.covering.isEmpty, "\(position)")
            #expect(matched.elsewhere.map(\.identifier) == ["derived-ice"], "\(position)")
        }
    }

    @Test(
        "A polygon that cannot be judged is left out alone: the warning's other polygons and areas still place it, its codes decide for the rest, and the refusal names the warning"
    )
    func unusablePolygonAlone() throws {
        var root = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        var warning = try Self.withArea(root, nil, identifier: "derived-one-bad-polygon")
        var alert = warning["alert"] as! [String: Any]
        alert["info"] = (alert["info"] as! [[String: Any]]).map { info in
            var info = info
            info["area"] = [
                // Area 1: around Sarajevo, but one position has a latitude of 95; its code is Sarajevo's region.
                [
                    "areaDesc": "Sarajevo", "polygon": ["43.6,18.0 43.6,18.8 95.0,18.8 44.1,18.0 43.6,18.0", Self.icePolygons[3]],
                    "geocode": [["valueName": "EMMA_ID", "value": "BA006"]],
                ],
                // Area 2: Banja Luka, a good polygon.
                ["areaDesc": "Banja Luka", "polygon": Self.icePolygons[1]],
            ]
            return info
        }
        warning["alert"] = alert
        root["warnings"] = [warning]
        let feed = try MeteoAlarmDecoder.decode(try Alerts.encode(root))
        #expect(feed.refused.isEmpty)
        #expect(
            feed.refusedShapes == [
                RefusedShape(entry: "derived-one-bad-polygon", problem: .invalidCoordinate(latitude: 95, longitude: 18.8))
            ])
        // Its sibling polygon (Tuzla) and the other area (Banja Luka) still place it.
        #expect(WarningMatcher().match(feed, at: Alerts.at(44.5384, 18.6763)).covering.count == 1)
        #expect(WarningMatcher().match(feed, at: Alerts.at(44.7722, 17.191)).covering.count == 1)
        // In Sarajevo only the refused polygon could have said: the area's code does, with the shipped shapes…
        let shaped = WarningMatcher(areas: try Alerts.areas(["BA"]))
        #expect(shaped.match(feed, at: Alerts.at(43.8563, 18.4131)).covering.count == 1)
        // …and without them the warning is kept, its area not confirmed, rather than dropped.
        let unplaced = WarningMatcher().match(feed, at: Alerts.at(43.8563, 18.4131)).unplaced
        #expect(unplaced.map(\.warning.identifier) == ["derived-one-bad-polygon"])
        let merged = WarningMerger.merge([WarningMatcher().match(feed, at: Alerts.at(43.8563, 18.4131))], now: Alerts.time("2024-01-06T12:00:00Z"))
        #expect(merged.warnings.map(\.areaConfirmed) == [false])
    }

    @Test("A MeteoAlarm entry that carries only a NUTS 3 code is shown inside that region and not outside; NUTS 2 too")
    func nutsCodes() throws {
        var root = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        // Derived: the recorded warning's area named only by NUTS 2021 codes of Haute-Savoie (FRK28, not in
        // MeteoAlarm's alias list) and of Auvergne-Rhône-Alpes (FRK2).
        root["warnings"] = [
            try Self.withArea(
                root, ["areaDesc": "Haute-Savoie", "geocode": [["valueName": "NUTS3", "value": "FRK28"]]],
                identifier: "derived-nuts3"),
            try Self.withArea(
                root, ["areaDesc": "Auvergne-Rhône-Alpes", "geocode": [["valueName": "NUTS2", "value": "FRK2"]]],
                identifier: "derived-nuts2"),
        ]
        let feed = try MeteoAlarmDecoder.decode(try Alerts.encode(root))
        let matcher = WarningMatcher(areas: try Alerts.areas(["FR"]))
        let annecy = matcher.match(feed, at: Alerts.at(45.8992, 6.1294))
        #expect(annecy.covering.map(\.identifier) == ["derived-nuts3", "derived-nuts2"])
        let lyon = matcher.match(feed, at: Alerts.at(45.764, 4.8357))
        #expect(lyon.covering.map(\.identifier) == ["derived-nuts2"])
        #expect(lyon.elsewhere.map(\.identifier) == ["derived-nuts3"])
        let paris = matcher.match(feed, at: Alerts.at(48.8566, 2.3522))
        #expect(paris.covering.isEmpty)
        #expect(paris.unplaced.isEmpty)
    }

    @Test("docs/warnings.md's example is what the encoder writes for the first recorded Bosnian warning")
    func documentedExample() throws {
        let feed = try MeteoAlarmDecoder.decode(
            try Alerts.data("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"))
        let warning = try #require(feed.messages.first?.warning)
        let encoded = String(decoding: try Report.makeEncoder().encode(warning), as: UTF8.self)
        let docs = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/warnings.md"), encoding: .utf8)
        let example = docs.split(separator: "\n").first { $0.hasPrefix("{\"area\":\"Banja Luka\"") }
        #expect(example.map(String.init) == encoded)
    }

    /// The first recorded Bosnian warning with every info block's area replaced (nil: removed).
    static func withArea(_ root: [String: Any], _ area: [String: Any]?, identifier: String? = nil) throws -> [String: Any] {
        var warning = try #require((root["warnings"] as? [[String: Any]])?.first)
        var alert = warning["alert"] as! [String: Any]
        alert["info"] = (alert["info"] as! [[String: Any]]).map { info in
            var info = info
            info["area"] = area.map { [$0] }
            return info
        }
        if let identifier { alert["identifier"] = identifier }
        warning["alert"] = alert
        return warning
    }
}
