import ForecastModel
import Foundation
import MQTTPayloads
import Testing
import TestSupport

/// The report on MQTT: what a follower makes of it, and what it refuses.
struct SharedReportTests {
    static let now = PayloadFixtures.bromsgroveFetched.addingTimeInterval(180)

    static func payload(_ inputs: ReportInputs, now: Date = now) throws -> [UInt8] {
        try SharedReport(publishedAt: now, publisher: PayloadFixtures.publisher, model: SharedModel(inputs, now: now))
            .payload(report: Report(inputs, now: now))
    }

    static func decoded(_ payload: [UInt8], now: Date = now) throws -> SharedReport {
        guard case .report(let report) = try SharedReport.decode(payload, now: now) else {
            throw Refused.removed
        }
        return report
    }

    enum Refused: Error { case removed }

    /// The seeds of `scripts/fuzz`'s FuzzSharedReport: what a publisher sends for the recorded Open-Meteo answers,
    /// kept equal to the encoder's output here (`FORECASTD_UPDATE_GOLDEN=1` rewrites them), so the fuzzer starts
    /// from real messages of the current form, not from ones an older encoder wrote.
    @Test func theFuzzSeedsAreWhatAPublisherSends() throws {
        let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fuzz/Seeds/shared-reports")
        let warned = try PayloadFixtures.samara(
            warnings: [PayloadFixtures.windWarning(start: PayloadFixtures.samaraFetched)])
        let samaraNow = PayloadFixtures.samaraFetched.addingTimeInterval(120)
        let seeds: [(name: String, payload: [UInt8], now: Date)] = [
            ("bromsgrove-metric", try Self.payload(try PayloadFixtures.bromsgrove(units: .metric)), Self.now),
            ("bromsgrove-imperial", try Self.payload(try PayloadFixtures.bromsgrove(units: .imperial)), Self.now),
            ("samara-wind-warning", try Self.payload(warned, now: samaraNow), samaraNow),
        ]
        if ProcessInfo.processInfo.environment["FORECASTD_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for seed in seeds {
                try Data(seed.payload).write(to: directory.appendingPathComponent(seed.name + ".json"), options: .atomic)
            }
        }
        for seed in seeds {
            let kept = try Data(contentsOf: directory.appendingPathComponent(seed.name + ".json"))
            #expect(kept == Data(seed.payload), "\(seed.name).json differs from what the encoder sends now")
            // And each is a message a follower takes.
            guard case .report = try SharedReport.decode(seed.payload, now: seed.now.addingTimeInterval(60)) else {
                Issue.record("\(seed.name) decodes as a removal")
                continue
            }
        }
    }

    /// A follower renders the publisher's values in its own units and gets the report the publisher would have
    /// made in those units: the same numbers, not a conversion of rounded ones.
    @Test func aFollowerRendersThePublishersValuesInItsOwnUnits() throws {
        let published = try PayloadFixtures.bromsgrove(units: .metric)
        let shared = try Self.decoded(try Self.payload(published))
        let later = Self.now.addingTimeInterval(600)
        for units in [UnitPreferences.imperial, .metric, UnitPreferences(preset: .uk)] {
            let followerInputs = shared.model.reportInputs(units: units, staleAfter: 3600, nowcastHorizon: 7200)
            var expected = published
            expected.units = units
            #expect(Report(followerInputs, now: later) == Report(expected, now: later))
        }
        #expect(shared.publisher == PayloadFixtures.publisher)
        #expect(abs(shared.publishedAt.timeIntervalSince(Self.now)) < 1)
    }

    @Test func theModelKeepsTwoDaysOfHoursAndEveryDay() throws {
        let inputs = try PayloadFixtures.bromsgrove()
        let full = try #require(inputs.forecast)
        #expect(full.hourly.count == 168)
        let model = SharedModel(inputs, now: Self.now)
        let cut = try #require(model.forecast)
        #expect(cut.hourly.count == 49)  // the hour that holds `now`, then 48
        #expect(cut.hourly.allSatisfy { $0.time > Self.now.addingTimeInterval(-3600) })
        #expect(cut.daily == full.daily)
        #expect(cut.current == full.current)
        let size = try Self.payload(inputs).count
        #expect(size < 48 * 1024, "the payload is \(size) bytes")
    }

    @Test func theReportPartIsTheSocketsReportWithoutCitiesAndTheSummaryIsInItsUnits() throws {
        let inputs = try PayloadFixtures.bromsgrove(units: .imperial)
        var report = Report(inputs, now: Self.now)
        report.cities = [ReportCity(id: "paris-fr", name: "Paris", favorite: false, report: report)]
        let bytes = try SharedReport(
            publishedAt: Self.now, publisher: PayloadFixtures.publisher, model: SharedModel(inputs, now: Self.now)
        ).payload(report: report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["forecastd_share"] as? Int == 1)
        #expect(object["published_at"] as? String == Timestamps.rfc3339(Self.now))
        let reportPart = try #require(object["report"] as? [String: Any])
        #expect(reportPart["cities"] == nil)
        let decodedReport = try Report.makeDecoder().decode(
            Report.self, from: JSONSerialization.data(withJSONObject: reportPart))
        var expected = report
        expected.cities = nil
        #expect(decodedReport == expected)

        let summary = try #require(object["summary"] as? [String: Any])
        let nextHour = try #require(summary["next_hour"] as? [String: Any])
        // 13:35Z: the first hour after it is 14:00.
        #expect(nextHour["time"] as? String == "2026-02-23T14:00:00Z")
        #expect(nextHour["precipitation_probability"] as? Double == report.hourly.first { $0.time == "2026-02-23T14:00:00Z" }?.precipitationProbability)
        let condition = try #require(summary["condition"] as? [String: Any])
        #expect(condition["code"] as? String == "overcast")
        #expect(condition["mdi_icon"] as? String == "mdi:weather-cloudy")
        let warnings = try #require(summary["warnings"] as? [String: Any])
        #expect(warnings["count"] as? Int == 0)
        #expect(warnings["highest"] as? String == "none")
    }

    @Test func theSummaryCountsWarningsAndNamesTheHighest() throws {
        let start = PayloadFixtures.samaraFetched.addingTimeInterval(-3600)
        let inputs = try PayloadFixtures.samara(
            warnings: [
                PayloadFixtures.windWarning(start: start, severity: .moderate),
                PayloadFixtures.windWarning(start: start, severity: .severe),
            ])
        var withOmitted = inputs
        withOmitted.warningsOmitted = 3
        let summary = SharedSummary(Report(withOmitted, now: PayloadFixtures.samaraFetched))
        let warnings = try #require(summary.warnings)
        #expect(warnings.count == 5)
        #expect(warnings.highest == "severe")
        #expect(warnings.list.map(\.severity) == ["moderate", "severe"])
        #expect(warnings.list.first?.headline == "Strong wind, yellow level")
        // Warning sources off: no warnings object at all.
        #expect(SharedSummary(Report(try PayloadFixtures.samara(), now: PayloadFixtures.samaraFetched)).warnings == nil)
    }

    @Test func everyConditionIconHasAMaterialDesignIcon() {
        for kind in ConditionKind.allCases {
            for isDay in [true, false] {
                #expect(MaterialIcon.name(forIcon: kind.condition(isDay: isDay).icon) != nil, "\(kind) \(isDay)")
            }
        }
    }

    // MARK: Refusals

    static func refusal(_ payload: [UInt8], now: Date = now) -> String? {
        do {
            _ = try SharedReport.decode(payload, now: now, maximumBytes: 64 * 1024)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func anEmptyMessageIsARemovalNotARefusal() throws {
        #expect(try SharedReport.decode([], now: Self.now) == .removed)
    }

    @Test func whatIsRefusedAndWhy() throws {
        let good = try Self.payload(try PayloadFixtures.bromsgrove())
        var object = try #require(try JSONSerialization.jsonObject(with: Data(good)) as? [String: Any])
        func with(_ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
            var copy = object
            change(&copy)
            return Array(try JSONSerialization.data(withJSONObject: copy))
        }
        #expect(Self.refusal(Array(repeating: 0x20, count: 70_000)) == "is 68.4 KiB, more than the 64 KiB allowed")
        #expect(Self.refusal(Array("online".utf8)) == "is not a JSON object (not JSON)")
        #expect(Self.refusal(Array("[1,2]".utf8))?.hasPrefix("is not a JSON object") == true)
        #expect(Self.refusal(try with { $0["forecastd_share"] = nil })
            == "is not a forecastd report: it has no \"forecastd_share\" number")
        #expect(Self.refusal(try with { $0["forecastd_share"] = 2 })
            == "uses share schema 2, and this forecastd reads schema 1: update forecastd here")
        #expect(Self.refusal(try with { $0["model"] = nil }) == "is not a usable forecastd report (the top level has no \"model\")")
        #expect(Self.refusal(try with { $0["model"] = ["fix": 3] })?.hasPrefix("is not a usable forecastd report (model") == true)
        #expect(Self.refusal(try with { $0["published_at"] = "yesterday" }) == "has published_at \"yesterday\", not an RFC 3339 time")
        #expect(Self.refusal(try with { $0["published_at"] = Timestamps.rfc3339(Self.now.addingTimeInterval(7200)) })
            == "is dated 120 minutes ahead of this machine's clock: check the clocks of both machines")
        var model = try #require(object["model"] as? [String: Any])
        var fix = try #require(model["fix"] as? [String: Any])
        fix["coordinate"] = ["latitude": 0.0, "longitude": 0.0]
        model["fix"] = fix
        #expect(Self.refusal(try with { $0["model"] = model }) == "has a position (0.0, 0.0) that is no place on Earth")
        #expect(Self.refusal(try with { $0["publisher"] = ["topic": "x", "version": "1", "refresh_seconds": 0, "stale_after_seconds": 0] })?
            .hasPrefix("gives refresh_seconds 0") == true)
        object["forecastd_share"] = 1
        #expect(Self.refusal(good) == nil)
    }
}

/// The topics under a base topic, and which base topics are refused.
struct ShareTopicsTests {
    @Test func topicsUnderTheBase() throws {
        let topics = try ShareTopics(base: "forecastd/pi-van")
        #expect(topics.report == "forecastd/pi-van/report")
        #expect(topics.status == "forecastd/pi-van/status")
        #expect(topics.cityReport("paris-fr") == "forecastd/pi-van/cities/paris-fr/report")
        #expect(topics.cityReports == "forecastd/pi-van/cities/+/report")
        #expect(topics.cityID(ofReportTopic: "forecastd/pi-van/cities/paris-fr/report") == "paris-fr")
        #expect(topics.cityID(ofReportTopic: "forecastd/pi-van/report") == nil)
        #expect(topics.cityID(ofReportTopic: "forecastd/pi-van/cities/a/b/report") == nil)
        #expect(topics.nodeID == "forecastd_pi-van")
    }

    @Test func refusedBaseTopics() {
        let cases: [(String, String)] = [
            ("", "is empty"),
            ("forecastd/+", "contains a wildcard (+ or #), which only subscriptions may"),
            ("a/#", "contains a wildcard (+ or #), which only subscriptions may"),
            ("$SYS/x", "starts with $, which brokers keep for themselves ($SYS)"),
            ("/forecastd", "has an empty level (a leading, trailing or doubled /)"),
            ("forecastd//x", "has an empty level (a leading, trailing or doubled /)"),
            ("forecastd/", "has an empty level (a leading, trailing or doubled /)"),
            ("a\u{0}b", "contains a control character"),
            (String(repeating: "x", count: 201), "is 201 bytes long, more than the 200 allowed"),
        ]
        for (base, problem) in cases {
            #expect(throws: ShareTopicError(topic: base, problem: problem)) { try ShareTopics(base: base) }
        }
    }

    @Test func theDefaultBaseIsTheHostName() {
        #expect(ShareTopics.defaultBase(hostname: "pi-van") == "forecastd/pi-van")
        #expect(ShareTopics.defaultBase(hostname: "a/b+c#d") == "forecastd/a_b_c_d")
        #expect(ShareTopics.defaultBase(hostname: "") == "forecastd/localhost")
        #expect(ShareTopics.problem(ShareTopics.defaultBase(hostname: "weird\u{7}name")) == nil)
    }
}
