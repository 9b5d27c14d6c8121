import ForecastModel
import Foundation
import Testing

@testable import Warnings

@Suite("Merging warnings from several sources")
struct MergeTests {
    static let now = Alerts.time("2026-03-07T06:00:00Z")

    static func warning(
        _ identifier: String, source: String = "meteoalarm", severity: WarningSeverity = .moderate,
        onset: String? = nil, expires: String? = "2026-03-07T20:00:00Z", sent: String? = "2026-03-07T05:00:00Z",
        type: WarningMessageType = .alert, references: [String] = []
    ) -> WeatherWarning {
        WeatherWarning(
            source: source, event: identifier, severity: severity, onset: onset.map(Alerts.time),
            expires: expires.map(Alerts.time), sent: sent.map(Alerts.time), identifier: identifier,
            references: references.map { CAPReference(sender: nil, identifier: $0, sent: nil) }, messageType: type)
    }

    @Test("The same CAP message from two sources is one warning, the issuer's own service's copy kept")
    func duplicatesAcrossSources() {
        let viaMeteoAlarm = Self.warning("dwd-1", source: "meteoalarm")
        let viaBrightSky = Self.warning("dwd-1", source: "bright-sky")
        let merged = WarningMerger.merge(
            [MatchedFeed(covering: [viaMeteoAlarm]), MatchedFeed(covering: [viaBrightSky])], now: Self.now)
        #expect(merged.warnings.map(\.source) == ["bright-sky"])
    }

    @Test("Most severe first, then the earliest onset; a warning without onset is in force already")
    func order() {
        let merged = WarningMerger.merge(
            [
                MatchedFeed(covering: [
                    Self.warning("later-moderate", onset: "2026-03-07T12:00:00Z"),
                    Self.warning("extreme", severity: .extreme, onset: "2026-03-07T18:00:00Z"),
                    Self.warning("minor", severity: .minor),
                    Self.warning("earlier-moderate", onset: "2026-03-07T07:00:00Z"),
                    Self.warning("moderate-now"),
                ])
            ], now: Self.now)
        #expect(merged.warnings.map(\.identifier) == ["extreme", "moderate-now", "earlier-moderate", "later-moderate", "minor"])
    }

    @Test("Expired warnings go; the next expiry is when the list changes by itself")
    func expiry() {
        let feed = MatchedFeed(covering: [
            Self.warning("gone", expires: "2026-03-07T06:00:00Z"),
            Self.warning("soon", expires: "2026-03-07T09:00:00Z"),
            Self.warning("later", expires: "2026-03-08T09:00:00Z"),
            Self.warning("open", expires: nil),
        ])
        let merged = WarningMerger.merge([feed], now: Self.now)
        #expect(Set(merged.warnings.map(\.identifier)) == ["soon", "later", "open"])
        #expect(merged.nextExpiry == Alerts.time("2026-03-07T09:00:00Z"))
        let afterwards = WarningMerger.merge([feed], now: Alerts.time("2026-03-07T09:00:00Z"))
        #expect(Set(afterwards.warnings.map(\.identifier)) == ["later", "open"])
        #expect(afterwards.nextExpiry == Alerts.time("2026-03-08T09:00:00Z"))
    }

    @Test("An update that moved away from the position still retires the message it replaces")
    func updateElsewhere() {
        let original = Self.warning("v1")
        let update = Self.warning("v2", type: .update, references: ["v1"])
        let merged = WarningMerger.merge([MatchedFeed(covering: [original], elsewhere: [update])], now: Self.now)
        #expect(merged.warnings.isEmpty)
    }

    @Test("A cancel is never shown, even when it covers the position")
    func cancelAlone() {
        let merged = WarningMerger.merge(
            [MatchedFeed(covering: [Self.warning("c", type: .cancel, references: ["gone"])])], now: Self.now)
        #expect(merged.warnings.isEmpty)
    }

    @Test("Two current messages of one chain: the latest sent is kept")
    func chain() {
        let a = Self.warning("u1", sent: "2026-03-07T04:00:00Z", type: .update, references: ["root"])
        let b = Self.warning("u2", sent: "2026-03-07T05:30:00Z", type: .update, references: ["root"])
        let merged = WarningMerger.merge([MatchedFeed(covering: [a, b])], now: Self.now)
        #expect(merged.warnings.map(\.identifier) == ["u2"])
        #expect(merged.warnings.first?.id == "root")
    }
}

@Suite("Choosing the source by country")
struct SelectionTests {
    @Test("The US and its territories: NWS; Norway: MET Norway; Germany: Bright Sky; MeteoAlarm elsewhere in Europe")
    func defaults() {
        let on = WarningSourceSwitches()
        for code in ["US", "us", "PR", "GU", "VI", "AS", "MP"] {
            #expect(WarningSourceSelection.source(forCountry: code, switches: on)?.kind == .nws)
        }
        #expect(WarningSourceSelection.source(forCountry: "NO", switches: on)?.kind == .metNorway)
        #expect(WarningSourceSelection.source(forCountry: "DE", switches: on)?.kind == .brightSky)
        #expect(
            WarningSourceSelection.source(forCountry: "GB", switches: on)
                == .init(kind: .meteoalarm, meteoAlarmFeed: "united-kingdom"))
        #expect(WarningSourceSelection.source(forCountry: "MK", switches: on)?.meteoAlarmFeed == "republic-of-north-macedonia")
        #expect(WarningSourceSelection.source(forCountry: "JP", switches: on) == nil)
        #expect(WarningSourceSelection.source(forCountry: nil, switches: on) == nil)
        #expect(MeteoAlarmCountries.feeds.count == 39)
    }

    @Test("Each source can be switched off; Norway and Germany then fall back to MeteoAlarm")
    func switches() {
        #expect(WarningSourceSelection.source(forCountry: "US", switches: .init(nws: false)) == nil)
        #expect(
            WarningSourceSelection.source(forCountry: "DE", switches: .init(brightSky: false))
                == .init(kind: .meteoalarm, meteoAlarmFeed: "germany"))
        #expect(WarningSourceSelection.source(forCountry: "NO", switches: .init(metNorway: false))?.meteoAlarmFeed == "norway")
        #expect(WarningSourceSelection.source(forCountry: "FR", switches: .init(meteoalarm: false)) == nil)
        #expect(WarningSourceSelection.source(forCountry: "DE", switches: .init(brightSky: false, meteoalarm: false)) == nil)
        #expect(WarningSourceSelection.source(forCountry: "FR", switches: .init(enabled: false)) == nil)
    }
}

@Suite("The shipped MeteoAlarm region shapes")
struct AreasTests {
    @Test("Every region of every country reads and passes the geometry rules")
    func wholeFile() throws {
        let countries = Set(MeteoAlarmCountries.feeds.keys)
        let areas = try MeteoAlarmAreas.load(from: MeteoAlarmAreas.sourceTreeURL, countries: countries)
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: MeteoAlarmAreas.sourceTreeURL.path)[.size] as? Int)
        #expect(areas.toleranceKm == 1.2)
        // 2002 regions plus their NUTS/FIPS aliases.
        #expect(areas.count > 2002)
        #expect(size < 1_200_000)
    }

    @Test("Only the asked country is read")
    func oneCountry() throws {
        let bosnia = try Alerts.areas(["BA"])
        #expect(bosnia.count == 10)
        #expect(bosnia.geometry(for: Geocode(scheme: "EMMA_ID", value: "BA006")) != nil)
        #expect(bosnia.geometry(for: Geocode(scheme: "EMMA_ID", value: "FR035")) == nil)
    }

    @Test("France's NUTS3 codes (what its feed sends) name the same shapes as its EMMA_IDs")
    func aliases() throws {
        let france = try Alerts.areas(["FR"])
        let hauteSavoie = try #require(france.geometry(for: Geocode(scheme: "NUTS3", value: "FR718")))
        #expect(hauteSavoie == france.geometry(for: Geocode(scheme: "EMMA_ID", value: "FR035")))
        let annecy = Alerts.at(45.8992, 6.1294)
        #expect(hauteSavoie.contains(annecy))
        #expect(france.geometry(for: Geocode(scheme: "NUTS3", value: "FR717"))?.contains(annecy) == false)
    }

    @Test("A damaged file is refused with its path and line")
    func damaged() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("areas-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let header = #"{"format":"forecastd-meteoalarm-areas","version":1,"tolerance_km":1.2}"#
        let offTheEarth = #"{"country":"XX","code":"XX001","polygons":[[[[0,0],[1,100],[1,0],[0,1],[0,0]]]]}"#
        try Data((header + "\n" + offTheEarth + "\n").utf8).write(to: url)
        let reason = "region XX001: a position (100.0, 1.0) is outside latitude -90...90 / longitude -360...360"
        #expect(throws: MeteoAlarmAreasError.invalidLine(path: url.path, line: 2, reason: reason)) {
            try MeteoAlarmAreas.load(from: url, countries: ["XX"])
        }
        #expect(throws: MeteoAlarmAreasError.self) {
            try MeteoAlarmAreas.load(from: url.appendingPathExtension("missing"), countries: ["XX"])
        }
    }
}
