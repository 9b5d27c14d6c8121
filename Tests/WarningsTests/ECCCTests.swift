import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import Warnings

/// Environment and Climate Change Canada's alerts: the recorded OGC API answer for a box over Toronto (in the
/// warnings corpus, `Tests/Fixtures/alerts/corpus`)
/// (2026-03-05, a freezing rain warning over the Golden Horseshoe and a special weather statement for Niagara),
/// decoded, matched, and asked for through the real HTTP stack.
@Suite("ECCC's alerts", .timeLimit(.minutes(2)))
struct ECCCTests {
    static let fixture = "corpus/eccc-geojson/linecast-eccc-weather-alerts-golden-horseshoe-2026-03-05.json"
    static let toronto = Alerts.at(43.6532, -79.3832)
    static let ottawa = Alerts.at(45.4215, -75.6972)
    static let now = Alerts.time("2026-03-05T23:00:00Z")

    @Test("A position in Toronto gets the freezing rain warning of the City of Toronto region, and only that")
    func torontoInside() throws {
        let feed = try ECCCDecoder.decode(try Alerts.data(Self.fixture))
        #expect(feed.messages.count == 7)
        #expect(feed.refused.isEmpty && feed.refusedShapes.isEmpty)
        let merged = WarningMerger.merge([WarningMatcher().match(feed, at: Self.toronto)], now: Self.now)
        let warning = try #require(merged.warnings.first)
        #expect(merged.warnings.count == 1)
        #expect(warning.source == "eccc")
        #expect(warning.event == "freezing rain warning")
        #expect(warning.headline == "Freezing rain")
        #expect(warning.area == "City of Toronto")
        #expect(warning.identifier == "1618115311375151707202603050503_fea1-1185")
        #expect(warning.severity == .moderate, "ECCC's yellow")
        #expect(warning.areaConfirmed)
        // From the event's start to its end; the message itself expires later.
        #expect(warning.onset == Alerts.time("2026-03-05T22:00:00Z"))
        #expect(warning.ends == Alerts.time("2026-03-06T06:00:00Z"))
        #expect(warning.expires == Alerts.time("2026-03-06T08:04:06.795Z"))
        #expect(warning.until == warning.ends)
        #expect(warning.description?.isEmpty == false)
    }

    @Test("A position outside every polygon of the answer gets none, and nothing unplaced")
    func outside() throws {
        let feed = try ECCCDecoder.decode(try Alerts.data(Self.fixture))
        for position in [Self.ottawa, Alerts.at(43.9, -78.9)] {
            let matched = WarningMatcher().match(feed, at: position)
            #expect(matched.covering.isEmpty, "\(position)")
            #expect(matched.unplaced.isEmpty, "\(position)")
            #expect(WarningMerger.merge([matched], now: Self.now).warnings.isEmpty)
        }
    }

    @Test("The special weather statement (no colour) is minor; in French the texts are ECCC's French ones")
    func statementAndFrench() throws {
        let english = try ECCCDecoder.decode(try Alerts.data(Self.fixture))
        let statement = try #require(english.messages.first { $0.warning.event == "special weather statement" })
        #expect(statement.warning.severity == .minor)
        let french = try ECCCDecoder.decode(try Alerts.data(Self.fixture), language: "fr")
        let toronto = try #require(WarningMatcher().match(french, at: Self.toronto).covering.first)
        #expect(toronto.event == "avertissement de pluie verglaçante")
        #expect(toronto.area == "ville de Toronto")
    }

    @Test("The source asks for a box one rounding step around the rounded position, in the display language")
    func request() async throws {
        try await Alerts.withServer(clock: TestClock(Self.now)) { server, context in
            server.setRoute(path: "/collections/weather-alerts/items", try .fixture("alerts/" + Self.fixture))
            let source = ECCCSource(
                url: server.url("/collections/weather-alerts/items"), language: "fr_CA", context: context)
            let answer = try await source.warnings(at: Self.toronto)
            #expect(answer.feed.covering.map(\.area) == ["ville de Toronto"])
            let request = try #require(server.requests().first)
            #expect(
                request.query == ["f": "json", "lang": "fr", "limit": "500", "bbox": "-79.39,43.64,-79.37,43.66"])
            #expect(request.header("User-Agent") == Alerts.userAgent)
        }
    }

    @Test("Canada is ECCC's; switched off, nothing is asked there")
    func selection() {
        #expect(WarningSourceSelection.source(forCountry: "CA", switches: WarningSourceSwitches())?.kind == .eccc)
        #expect(WarningSourceSelection.source(forCountry: "CA", switches: WarningSourceSwitches(eccc: false)) == nil)
    }
}
