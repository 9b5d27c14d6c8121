import Foundation
import Testing

@testable import ForecastModel

@Suite("WeatherWarning in the report's JSON conventions")
struct WeatherWarningTests {
    static let warning = WeatherWarning(
        source: "nws", event: "Winter Weather Advisory", severity: .moderate, urgency: .expected, certainty: .likely,
        onset: Timestamps.parseUTC("2024-01-12T14:05:00-06:00"), expires: Timestamps.parseUTC("2024-01-12T22:15:00-06:00"),
        headline: "Winter Weather Advisory issued January 12", area: "Hennepin",
        sent: Timestamps.parseUTC("2024-01-12T14:05:00-06:00"), identifier: "urn:oid:update",
        sender: "w-nws.webmaster@noaa.gov",
        references: [
            CAPReference(sender: "w-nws.webmaster@noaa.gov", identifier: "urn:oid:second", sent: Timestamps.parseUTC("2024-01-12T10:10:00-06:00")),
            CAPReference(sender: "w-nws.webmaster@noaa.gov", identifier: "urn:oid:first", sent: Timestamps.parseUTC("2024-01-12T04:00:00-06:00")),
        ], messageType: .update)

    @Test("snake_case keys, UTC RFC 3339 times, absent fields left out")
    func encoding() throws {
        let data = try Report.makeEncoder().encode(Self.warning)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["onset"] as? String == "2024-01-12T20:05:00Z")
        #expect(object["expires"] as? String == "2024-01-13T04:15:00Z")
        #expect(object["message_type"] as? String == "update")
        #expect(object["severity"] as? String == "moderate")
        // The oldest referenced message names the chain.
        #expect(object["id"] as? String == "urn:oid:first")
        for absent in ["description", "instruction", "url"] { #expect(object[absent] == nil) }
        #expect(!String(decoding: data, as: UTF8.self).contains("null"))
    }

    @Test("Decoding what was encoded gives the same warning")
    func roundTrip() throws {
        let data = try Report.makeEncoder().encode(Self.warning)
        #expect(try Report.makeDecoder().decode(WeatherWarning.self, from: data) == Self.warning)
    }

    @Test("CAP references: sender,identifier,sent triples; malformed ones skipped")
    func references() {
        let parsed = CAPReference.parseList(
            "https://meteo.hr,2.49.0.0.191.0.HR.240104085000_0_yellow_HR802,2024-01-04T08:50:00+01:00 broken,triple")
        #expect(parsed == [
            CAPReference(
                sender: "https://meteo.hr", identifier: "2.49.0.0.191.0.HR.240104085000_0_yellow_HR802",
                sent: Timestamps.parseUTC("2024-01-04T07:50:00Z"))
        ])
    }

    @Test("Severity orders unknown < minor < moderate < severe < extreme; CAP Unknown is unknown, never minor")
    func severity() {
        #expect(WarningSeverity.allCases.sorted() == [.unknown, .minor, .moderate, .severe, .extreme])
        #expect(WarningSeverity(cap: "Extreme") == .extreme)
        #expect(WarningSeverity(cap: "Unknown") == .unknown)
        #expect(WarningSeverity(cap: "Catastrophic") == nil)
    }
}
