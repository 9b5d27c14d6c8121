import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// An answer is checked against what was asked, by one rule (`AnswerCheck`) for the forecast and the air: the
/// place it is for within 100 km of the point asked, the time it speaks for within a day of now, before or after.
@Suite("Answers checked against the request", .timeLimit(.minutes(3)))
struct AnswerCheckTests {
    typealias Air = AirQualityTests

    /// The Enschede recording with its grid cell moved to (`latitude`, `longitude`).
    static func enschede(at latitude: Double, _ longitude: Double) throws -> String {
        var text = String(decoding: try Fixtures.data(Air.enschedeFixture), as: UTF8.self)
        for (name, value) in [("latitude", latitude), ("longitude", longitude)] {
            let pattern = try NSRegularExpression(pattern: "^  \"\(name)\": [^,]+,", options: .anchorsMatchLines)
            let moved = pattern.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "  \"\(name)\": \(value),")
            #expect(moved != text, "the recording has a top-level \(name)")
            text = moved
        }
        return text
    }

    /// Asks for the air at Enschede with the recorded answer first, then `body`, an hour apart.
    static func refused(_ body: String) async throws -> (good: AirQualityService.Outcome, then: AirQualityService.Outcome) {
        var outcomes: [AirQualityService.Outcome] = []
        try await withServer { server, client in
            let clock = ManualClock(Air.enschedeNow)
            server.setRoute(path: Air.path, sequence: [try .fixture(Air.enschedeFixture), .json(body)])
            let service = Air.service(server, client, clock: clock)
            outcomes.append(await service.air(at: Air.enschede, scale: .european))
            clock.advance(by: 3600)
            outcomes.append(await service.air(at: Air.enschede, scale: .european))
            #expect(server.requestCount(path: Air.path) == 2)
        }
        return (outcomes[0], outcomes[1])
    }

    @Test("an air answer for Sydney, served for a request for Enschede, is refused; the last reading stays")
    func anotherPlace() async throws {
        let (good, then) = try await Self.refused(try Self.enschede(at: -33.9, 151.2))
        #expect(good.air?.aqi == 44)
        #expect(then.requested)
        #expect(then.error?.kind == .badResponse)
        let message = try #require(then.error?.message)
        #expect(
            message.hasPrefix("open-meteo-air-quality: the answer is for -33.9, 151.2, 16")
                && message.contains("km from the place asked (52.22, 6.89); at most 100 km is the same place"),
            "\(message)")
        #expect(then.air == good.air)
    }

    @Test("a neighbouring grid cell (40 km away) is the same place")
    func neighbouringCell() async throws {
        let (_, then) = try await Self.refused(try Self.enschede(at: 52.3, 6.3))
        #expect(then.error == nil)
        #expect(then.air?.coordinate == Coordinate(latitude: 52.3, longitude: 6.3))
    }

    @Test(
        "an air answer 40 days old or 400 days ahead is refused; the last reading stays",
        arguments: [
            ("\"2026-08-24T12:00\"", "the answer is dated 2026-08-24T10:00:00Z, 40 days old"),
            ("\"2027-11-07T13:10\"", "the answer is dated 2027-11-07T11:10:00Z, 400 days ahead of this machine's clock"),
        ])
    func anotherTime(_ time: String, _ words: String) async throws {
        let text = String(decoding: try Fixtures.data(Air.enschedeFixture), as: UTF8.self)
        let (good, then) = try await Self.refused(try Air.enschedeText(text, with: "time", time))
        #expect(then.error?.kind == .badResponse)
        #expect(then.error?.message.contains(words) == true, "\(String(describing: then.error?.message))")
        #expect(then.air == good.air)
    }

    @Test("the rule: a day either way, 100 km")
    func rule() {
        let now = Air.enschedeNow
        #expect(AnswerCheck.time(now.addingTimeInterval(-86_400), now: now) == nil)
        #expect(AnswerCheck.time(now.addingTimeInterval(86_400), now: now) == nil)
        #expect(AnswerCheck.time(now.addingTimeInterval(-86_401), now: now)?.contains("hours old") == true)
        #expect(AnswerCheck.time(now.addingTimeInterval(86_401), now: now)?.contains("24 hours ahead") == true)
        let berlin = Coordinate(latitude: 52.52, longitude: 13.405)
        #expect(AnswerCheck.place(Coordinate(latitude: 52.5, longitude: 13.4), requested: berlin) == nil)
        #expect(AnswerCheck.place(Coordinate(latitude: 53.4, longitude: 13.4), requested: berlin) == nil)
        #expect(AnswerCheck.place(Coordinate(latitude: 53.5, longitude: 13.4), requested: berlin) != nil)
        #expect(AnswerCheck.place(Coordinate(latitude: .nan, longitude: 13.4), requested: berlin) != nil)
    }
}

/// The forecast's providers under the same rule, through the chain.
@Suite("Forecast answers checked against the time", .timeLimit(.minutes(3)))
struct ForecastAnswerTimeTests {
    typealias Chain = ProviderChainTests

    @Test("a forecast answer 400 days ahead of this machine's clock is each provider's failure")
    func answerFromTheFuture() async throws {
        try await withServer { server, client in
            // The Samara answer speaks for 2026-09-15T08:00Z; the clock 400 days before it.
            let answerTime = Timestamps.parseUTC("2026-09-15T08:00:00Z")!
            let clock = ManualClock(answerTime.addingTimeInterval(-400 * 86_400))
            let chain = Chain.chain(server, client, clock: clock, maximumAnswerOffset: AnswerCheck.maximumTimeOffset)
            server.setRoute(path: Chain.openMeteoPath, try .fixture(Chain.samara))
            server.setRoute(path: Chain.metPath, try .wrapped(MetNorwayTests.fixture))
            let outcome = await chain.fetch(for: Chain.berlin)
            #expect(outcome.forecast == nil)
            let message = try #require(outcome.failures.first?.message)
            #expect(
                message.hasPrefix("open-meteo: the answer is dated 2026-09-15T08:00:00Z, 400 days ahead of this machine's clock"),
                "\(message)")
        }
    }

    @Test("an old answer says the last good forecast was kept only when one is held for the place")
    func keptOnlyWhenHeld() async throws {
        try await withServer { server, client in
            let answerTime = Timestamps.parseUTC("2026-09-15T08:00:00Z")!
            let clock = ManualClock(answerTime.addingTimeInterval(30 * 86_400))
            let chain = Chain.chain(server, client, clock: clock, maximumAnswerOffset: AnswerCheck.maximumTimeOffset)
            server.setRoute(path: Chain.openMeteoPath, try .fixture(Chain.samara))
            server.setRoute(path: Chain.metPath, try .wrapped(MetNorwayTests.fixture))

            // Nothing held (a first start, or a new place): nothing was kept, and the error must not say so.
            let none = await chain.fetch(for: Chain.berlin, reason: .userAsked)
            let first = try #require(none.failures.first?.message)
            #expect(first.contains("30 days old"), "\(first)")
            #expect(!first.contains("kept"), "\(first)")

            // A forecast held for the place: it stays, and the error says so.
            let held = await chain.fetch(
                for: Chain.berlin, reason: .userAsked, held: answerTime.addingTimeInterval(29 * 86_400))
            let second = try #require(held.failures.first?.message)
            #expect(second.hasSuffix("; kept the last good forecast"), "\(second)")
        }
    }
}

/// Sizes in refusals read one way everywhere: the IP lookups' 64 KiB cap was "65536 bytes" here while the
/// warning feeds' said "4 MiB".
@Suite("Sizes in refusals", .timeLimit(.minutes(3)))
struct RefusedSizeTests {
    @Test("an answer over a 64 KiB cap is refused as larger than 64 KiB, not 65536 bytes")
    func sixtyFourKiB() async throws {
        try await withServer { server, client in
            server.setRoute(path: "/big", .json("[" + String(repeating: "1,", count: 50_000) + "1]"))
            let fetcher = Fetcher(
                service: "ip-api", client: client, userAgent: "forecastd/test",
                limits: .init(timeout: .seconds(60), maxBodyBytes: 64 * 1024), logger: Logger(label: "test"))
            let error = await #expect(throws: FetchFailure.self) { _ = try await fetcher.get(server.url("/big")) }
            #expect(error?.description == "ip-api: the response is larger than 64 KiB", "\(String(describing: error))")
        }
    }
}
