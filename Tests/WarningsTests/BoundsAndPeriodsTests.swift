import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import Warnings

/// Issue 22's periods (a warning runs from onset to its hazard's end, never backwards) and issue 28's bounds on
/// what a feed may make the daemon keep (G2: 10,000 warnings; G6: giant polygons; G7: periods never in force).
@Suite("Warning periods and the bounds on feeds")
struct BoundsAndPeriodsTests {
    static let minneapolis = "nws/weathergov-alerts-active-point-minneapolis-2024-01-12.json"
    static let asked = Alerts.at(44.9869, -93.2926)

    /// The recorded Minneapolis point answer with its one advisory's times replaced (`nil` removes a field).
    static func minneapolisAnswer(onset: String?, expires: String?, ends: String?) throws -> Data {
        var root = try Alerts.json(minneapolis)
        var features = try #require(root["features"] as? [[String: Any]])
        var properties = try #require(features[0]["properties"] as? [String: Any])
        properties["onset"] = onset
        properties["effective"] = onset
        properties["expires"] = expires
        properties["ends"] = ends
        features[0]["properties"] = properties
        root["features"] = features
        return try Alerts.encode(root)
    }

    // MARK: Periods

    @Test("NWS: a warning whose message expires before its hazard starts runs from onset to ends, and stays after expires")
    func nwsEnds() throws {
        // Issue 22's heat warning: the message expires at 13:34, the heat runs from 20:34 to the next day 20:00.
        let data = try Self.minneapolisAnswer(
            onset: "2024-01-14T20:34:00Z", expires: "2024-01-14T13:34:00Z", ends: "2024-01-15T20:00:00Z")
        let feed = try NWSDecoder.decode(data, askedPoint: Self.asked)
        #expect(feed.refused.isEmpty)
        let warning = try #require(feed.messages.first?.warning)
        #expect(warning.onset == Alerts.time("2024-01-14T20:34:00Z"))
        #expect(warning.until == Alerts.time("2024-01-15T20:00:00Z"))
        // After the message's expiry, while the source still lists it, it is in force.
        let matched = WarningMatcher().match(feed, at: Self.asked)
        let later = WarningMerger.merge([matched], now: Alerts.time("2024-01-14T22:00:00Z"))
        #expect(later.warnings.map(\.identifier) == [warning.identifier])
        #expect(later.nextExpiry == warning.ends)
        #expect(WarningMerger.merge([matched], now: Alerts.time("2024-01-15T20:00:01Z")).warnings.isEmpty)
        // "until" is the hazard's end, never before "from".
        let times = try #require(warning.times(now: Alerts.time("2024-01-14T12:00:00Z"), utcOffsetSeconds: 0))
        #expect(times == "from 20:34 until Mon 20:00")
        let encoded = String(decoding: try Report.makeEncoder().encode(warning), as: UTF8.self)
        #expect(encoded.contains("\"ends\":\"2024-01-15T20:00:00Z\""))
    }

    @Test(
        "G7: a hazard that ends before it starts is refused as a bad entry by every source that sends an end; a message that expires before its hazard starts only announces it"
    )
    func neverInForceRefused() throws {
        let onset = "2024-01-14T20:34:00Z", early = "2024-01-14T13:34:00Z"
        let problem = WarningEntryProblem.neverInForce(from: Alerts.time(onset), until: Alerts.time(early))

        // NWS: `ends` before `onset` is refused; without `ends`, a message expiring before the onset is an
        // announcement (as NWS sends watches days ahead: two corpus documents do).
        let nws = try NWSDecoder.decode(
            try Self.minneapolisAnswer(onset: onset, expires: "2024-01-14T10:00:00Z", ends: early), askedPoint: Self.asked)
        #expect(nws.messages.isEmpty)
        #expect(nws.refused.map(\.problem) == [problem])
        let watch = try NWSDecoder.decode(
            try Self.minneapolisAnswer(onset: onset, expires: early, ends: nil), askedPoint: Self.asked)
        #expect(watch.refused.isEmpty)
        let announced = try #require(watch.messages.first?.warning)
        #expect(announced.isAnnouncement)
        #expect(announced.times(now: Alerts.time("2024-01-14T12:00:00Z"), utcOffsetSeconds: 0) == "from 20:34")
        let matched = WarningMatcher().match(watch, at: Self.asked)
        #expect(WarningMerger.merge([matched], now: Alerts.time("2024-01-14T13:00:00Z")).warnings.count == 1)
        #expect(WarningMerger.merge([matched], now: Alerts.time("2024-01-14T13:34:00Z")).warnings.isEmpty)

        // MET Norway's interval is the warning's own period: backwards, it is refused.
        var norway = try Alerts.json("met-norway/linecast-metalerts-current-marine-gale-2026-03-07.json")
        var features = try #require(norway["features"] as? [[String: Any]])
        features = [features[0]]
        features[0]["when"] = ["interval": [onset, early]]
        norway["features"] = features
        let metNorway = try MetNorwayAlertsDecoder.decode(try Alerts.encode(norway))
        #expect(metNorway.messages.isEmpty)
        #expect(metNorway.refused.map(\.problem) == [problem])

        // ECCC: `event_end_datetime` before `validity_datetime` is refused.
        func ecccAnswer(_ times: [String: String]) throws -> Data {
            try Alerts.encode([
                "type": "FeatureCollection",
                "features": [
                    [
                        "type": "Feature", "id": "derived-backwards",
                        "geometry": [
                            "type": "Polygon", "coordinates": [[[-80.0, 43.0], [-79.0, 43.0], [-79.0, 44.0], [-80.0, 43.0]]],
                        ],
                        "properties": ["alert_name_en": "frost advisory", "alert_type": "advisory", "status_en": "issued"]
                            .merging(times) { $1 },
                    ]
                ],
            ])
        }
        let eccc = try ECCCDecoder.decode(
            try ecccAnswer(["validity_datetime": onset, "event_end_datetime": early, "expiration_datetime": onset]))
        #expect(eccc.messages.isEmpty)
        #expect(eccc.refused.map(\.problem) == [problem])

        // MeteoAlarm and Bright Sky send no end of their own beside CAP's `expires`: an early one announces.
        var bosnia = try Alerts.json("meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json")
        var first = try #require((bosnia["warnings"] as? [[String: Any]])?.first)
        var alert = first["alert"] as! [String: Any]
        alert["info"] = (alert["info"] as! [[String: Any]]).map { info in
            var info = info
            info["onset"] = onset
            info["expires"] = early
            return info
        }
        first["alert"] = alert
        bosnia["warnings"] = [first]
        let meteoAlarm = try MeteoAlarmDecoder.decode(try Alerts.encode(bosnia))
        #expect(meteoAlarm.refused.isEmpty)
        #expect(meteoAlarm.messages.first?.warning.isAnnouncement == true)
        var berlin = try Alerts.json("bright-sky/linecast-alerts-berlin-mitte-frost-2026-03-06.json")
        var alerts = try #require(berlin["alerts"] as? [[String: Any]])
        alerts[0]["onset"] = onset
        alerts[0]["expires"] = early
        berlin["alerts"] = alerts
        let brightSky = try BrightSkyDecoder.decode(try Alerts.encode(berlin))
        #expect(brightSky.refused.isEmpty)
        #expect(brightSky.messages.first?.warning.isAnnouncement == true)
    }

    // MARK: G2: many warnings

    @Test("G2: 10,000 warnings in one answer: the 2,000 most severe are read, 20 reported, the rest counted")
    func tenThousandWarnings() async throws {
        var root = try Alerts.json(Self.minneapolis)
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        root["features"] = (0..<10_000).map { index -> [String: Any] in
            var copy = feature
            var properties = copy["properties"] as! [String: Any]
            properties["id"] = "derived-\(index)"
            properties["references"] = []
            // One in a hundred severe, the rest minor: the severe ones must be the ones kept.
            properties["severity"] = index % 100 == 7 ? "Severe" : "Minor"
            copy["properties"] = properties
            return copy
        }
        let answer = try Alerts.encode(root)
        // Seconds of decoding: off the cooperative pool (see ``onOwnThread(_:)``).
        let feed = try await onOwnThread { try NWSDecoder.decode(answer, askedPoint: Self.asked) }
        #expect(feed.messages.count == WarningLimits.maxMessagesPerFeed)
        #expect(feed.omitted == 10_000 - WarningLimits.maxMessagesPerFeed)
        #expect(feed.messages.filter { $0.warning.severity == .severe }.count == 100)
        let matched = WarningMatcher().match(feed, at: Self.asked)
        #expect(matched.omitted == feed.omitted)
        let merged = WarningMerger.merge([matched], now: Alerts.time("2024-01-12T21:00:00Z"))
        #expect(merged.warnings.count == WarningLimits.maxWarningsShown)
        #expect(merged.warnings.allSatisfy { $0.severity == .severe })
        #expect(merged.omitted == WarningLimits.maxMessagesPerFeed - WarningLimits.maxWarningsShown)
    }

    // MARK: G6: giant polygons

    /// A Polygon GeoJSON feature of `positions` positions (a circle's outline), as one NWS feature.
    static func nwsAnswer(polygons: [Int]) throws -> Data {
        var root = try Alerts.json(Self.minneapolis)
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        root["features"] = polygons.enumerated().map { index, positions -> [String: Any] in
            var copy = feature
            var properties = copy["properties"] as! [String: Any]
            properties["id"] = "derived-\(index)"
            copy["properties"] = properties
            let ring = (0..<positions).map { step -> [Double] in
                let angle = Double(step) / Double(positions) * 2 * .pi
                return [-93.29 + 0.5 * cos(angle), 44.98 + 0.5 * sin(angle)]
            }
            copy["geometry"] = ["type": "Polygon", "coordinates": [ring + [ring[0]]]]
            return copy
        }
        return try Alerts.encode(root)
    }

    @Test("G6: a ring of more than 100,000 positions is refused alone; the answer's other polygons still place")
    func giantRing() throws {
        let feed = try NWSDecoder.decode(try Self.nwsAnswer(polygons: [120_000, 100]), askedPoint: Self.asked)
        #expect(feed.messages.count == 2)
        #expect(
            feed.refusedShapes == [
                RefusedShape(entry: "derived-0", problem: .tooManyPositions(count: 120_001, limit: 100_000))
            ])
        let matched = WarningMatcher().match(feed, at: Self.asked)
        #expect(matched.covering.map(\.identifier) == ["derived-1"])
        #expect(matched.unplaced.map(\.warning.identifier) == ["derived-0"])
    }

    @Test("G6: an answer whose shapes hold more than 250,000 positions is refused whole, by name")
    func tooManyPositionsInAnswer() async throws {
        // Seconds of building and decoding answers: off the cooperative pool (see ``onOwnThread(_:)``).
        let (refusal, covering) = try await onOwnThread { () throws -> (Result<DecodedFeed, any Error>, Int) in
            let tooMany = try Self.nwsAnswer(polygons: Array(repeating: 90_000, count: 3))
            let refusal = Result { try NWSDecoder.decode(tooMany, askedPoint: Self.asked) }
            // 200,000 positions are read, and place their warnings.
            let feed = try NWSDecoder.decode(try Self.nwsAnswer(polygons: Array(repeating: 19_999, count: 10)), askedPoint: Self.asked)
            return (refusal, WarningMatcher().match(feed, at: Self.asked).covering.count)
        }
        #expect(throws: WarningError(
            source: "nws", reason: .tooComplex(limit: 250_000),
            detail: "the answer's shapes hold more than 250000 positions; it was not used")) { try refusal.get() }
        #expect(covering == 10)
    }

    @Test("G6: a CAP polygon of 1,000,000 positions is refused before it is read into positions")
    func millionPositionCAPPolygon() throws {
        let text = String(repeating: "44.1,17.1 ", count: 1_000_000)
        #expect(throws: GeometryError.tooManyPositions(count: 1_000_000, limit: 100_000)) {
            try AreaGeometry.capPolygon(text)
        }
    }
}
