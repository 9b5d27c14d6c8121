import AsyncHTTPClient
import ForecastModel
import Foundation
import Location
import Logging
import TestSupport
import Testing

/// The Wi-Fi geolocation request over HTTP, against a local server replaying the service's answers: what is sent,
/// byte for byte, and what each answer means to the query rule.
@Suite("Wi-Fi geolocation over HTTP")
struct WiFiGeolocationClientTests {
    static let userAgent = "forecastd/0.0.0-test (weather daemon for status bars)"
    static let boot: Int64 = 50_000

    /// Three access points of one place, one of them opted out and one randomised: two are sent.
    static let request = WiFiGeolocationRequest(
        observations: [
            WiFiObservation(
                hardwareAddress: "00:25:9C:CF:1C:AC", ssid: Array("Home".utf8), strengthPercent: 80,
                frequencyMHz: 2437, lastSeen: Int32(boot - 3)),
            WiFiObservation(
                hardwareAddress: "84:1B:5E:00:00:01", ssid: Array("Cafe".utf8), strengthPercent: 40,
                frequencyMHz: 5180, lastSeen: Int32(boot)),
            WiFiObservation(
                hardwareAddress: "00:25:9C:CF:1C:AD", ssid: Array("Flat_nomap".utf8), strengthPercent: 90,
                frequencyMHz: 2412, lastSeen: Int32(boot)),
            WiFiObservation(
                hardwareAddress: "DA:A1:19:00:00:01", ssid: Array("Pixel".utf8), strengthPercent: 95,
                frequencyMHz: 2462, lastSeen: Int32(boot)),
        ], bootTime: boot)

    func locate(answering response: ReplayResponse) async throws -> (WiFiQueryRule.Outcome, [RecordedRequest]) {
        try await ReplayServer.withClient { server, client in
            server.setRoute(path: "/v1/geolocate", response)
            let geolocation = WiFiGeolocationClient(
                url: server.url("/v1/geolocate"), client: client, userAgent: Self.userAgent,
                logger: Logger(label: "test"))
            let outcome = await geolocation.locate(Self.request)
            return (outcome, server.requests())
        }
    }

    @Test("One POST of exactly the documented body: no SSID, no _nomap or randomised address, the User-Agent")
    func sendsTheBody() async throws {
        let (outcome, requests) = try await locate(answering: try .fixture("geolocation/beacondb-200-position.json"))
        #expect(requests.count == 1)
        let sent = try #require(requests.first)
        #expect(sent.method == "POST")
        #expect(sent.path == "/v1/geolocate")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.header("User-Agent") == Self.userAgent)
        let body = String(decoding: sent.body, as: UTF8.self)
        #expect(
            body
                == #"{"considerIp":false,"wifiAccessPoints":["#
                + #"{"macAddress":"00:25:9c:cf:1c:ac","signalStrength":-52,"frequency":2437,"age":3000},"#
                + #"{"macAddress":"84:1b:5e:00:00:01","signalStrength":-76,"frequency":5180,"age":0}]}"#)
        for leaked in ["Home", "Cafe", "Flat", "Pixel", "1c:ad", "da:a1"] { #expect(!body.contains(leaked)) }
        #expect(
            outcome
                == .answered(
                    .position(
                        WiFiPosition(
                            coordinate: Coordinate(latitude: 52.516275, longitude: 13.377704), accuracyMeters: 50))))
    }

    @Test("beaconDB's 404 notFound is 'not known here', which the rule keeps for an hour without asking again")
    func notFound() async throws {
        let (outcome, _) = try await locate(
            answering: try .fixture("geolocation/beacondb-404-not-found.json", status: 404))
        #expect(outcome == .answered(.notFound))
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let verdict = WiFiQueryRule.record(outcome, for: Self.request, state: &state, cache: &cache, now: now)
        #expect(verdict.position == nil)
        #expect(
            WiFiQueryRule.decide(Self.request, state: state, cache: cache, now: now.addingTimeInterval(3000))
                == .known(nil))
    }

    @Test("A 429 with Retry-After holds every request for as long as the service said")
    func retryAfter() async throws {
        let (outcome, _) = try await locate(
            answering: .json(#"{"error":{"code":429,"message":"Too Many Requests"}}"#, status: 429,
                headers: [("Retry-After", "1800")]))
        #expect(outcome == .slowDown(retryAfter: 1800))
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = WiFiQueryRule.record(outcome, for: Self.request, state: &state, cache: &cache, now: now)
        #expect(
            WiFiQueryRule.decide(Self.request, state: state, cache: cache, now: now.addingTimeInterval(1000))
                == .wait(until: now.addingTimeInterval(1800)))
    }

    @Test("An answer from the service's IP fallback is refused: a VPN's exit never comes back as a Wi-Fi position")
    func fallbackRefused() async throws {
        let (outcome, _) = try await locate(answering: try .fixture("geolocation/beacondb-200-fallback-ipf.json"))
        guard case .answered(.refused(let reason)) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(reason.contains("fallback (ipf)"))
    }

    @Test("Garbage: a proxy's HTML page, a 200 that is not JSON, a body over the cap")
    func garbage() async throws {
        let (page, _) = try await locate(answering: .html("<html><body>502 Bad Gateway</body></html>"))
        #expect(page == .answered(.serviceError("HTTP 502")))
        let (notJSON, _) = try await locate(answering: .json("OK"))
        #expect(notJSON == .answered(.refused("the answer is not a JSON object")))
        let huge = String(repeating: " ", count: WiFiGeolocationAnswer.maxBodyBytes + 1) + "{}"
        let (tooLarge, _) = try await locate(answering: .json(huge))
        guard case .answered(.refused) = tooLarge else {
            Issue.record("expected a refusal of the oversized answer, got \(tooLarge)")
            return
        }
    }

    @Test("No service listening is 'unreachable': nothing is held back, since the service saw nothing")
    func unreachable() async throws {
        let server = try await ReplayServer.start()
        let url = server.url("/v1/geolocate")
        try await server.shutdown()
        let client = ReplayServer.makeClient()
        let geolocation = WiFiGeolocationClient(
            url: url, client: client, userAgent: Self.userAgent, logger: Logger(label: "test"))
        let outcome = await geolocation.locate(Self.request)
        try await client.shutdown()
        #expect(outcome == .unreachable)
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = WiFiQueryRule.record(outcome, for: Self.request, state: &state, cache: &cache, now: now)
        #expect(state.notBefore == nil)
    }
}
