import ForecastModel
import Foundation
import Location
import Testing

@Suite("Wi-Fi geolocation: when to ask, and the answers kept")
struct WiFiQueryRuleTests {
    static let start = Date(timeIntervalSince1970: 1_767_000_000)

    /// A request for access points `00:25:9c:00:PP:NN`, NN in `numbers`, at place PP.
    static func request(place: UInt8, _ numbers: some Sequence<Int>) -> WiFiGeolocationRequest {
        WiFiGeolocationRequest(
            observations: numbers.map {
                WiFiObservation(
                    hardwareAddress: String(format: "00:25:9C:00:%02X:%02X", place, $0), ssid: Array("n".utf8),
                    strengthPercent: 50, frequencyMHz: 2412, lastSeen: 1000)
            }, bootTime: 1000)
    }

    static let berlin = WiFiPosition(coordinate: Coordinate(latitude: 52.5163, longitude: 13.3777), accuracyMeters: 50)
    static let potsdam = WiFiPosition(coordinate: Coordinate(latitude: 52.3906, longitude: 13.0645), accuracyMeters: 60)

    @Test("Same place: at least half of what is seen now was in the known set")
    func samePlace() {
        let home = Self.request(place: 1, 0..<10).bssids
        #expect(WiFiQueryRule.samePlace(known: home, current: Self.request(place: 1, 5..<15).bssids))
        #expect(!WiFiQueryRule.samePlace(known: home, current: Self.request(place: 1, 6..<16).bssids))
        // A scan that caught a few of the place's access points is that place; a few old ones lingering among a
        // new place's are not.
        #expect(WiFiQueryRule.samePlace(known: home, current: Self.request(place: 1, 0..<3).bssids))
        let moved = Self.request(place: 1, 0..<2).bssids.union(Self.request(place: 2, 0..<6).bssids)
        #expect(!WiFiQueryRule.samePlace(known: home, current: moved))
        #expect(!WiFiQueryRule.samePlace(known: [], current: []))
    }

    @Test("A new place is asked at once; the same place at most once in 10 minutes; a minute between any two")
    func timing() {
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let home = Self.request(place: 1, 0..<10)
        #expect(WiFiQueryRule.decide(home, state: state, cache: cache, now: Self.start) == .ask)
        // The service could not be reached: the same place again only 10 minutes later.
        _ = WiFiQueryRule.record(.unreachable, for: home, state: &state, cache: &cache, now: Self.start)
        let drifted = Self.request(place: 1, 2..<12)
        #expect(
            WiFiQueryRule.decide(drifted, state: state, cache: cache, now: Self.start + 300)
                == .wait(until: Self.start + 600))
        #expect(WiFiQueryRule.decide(drifted, state: state, cache: cache, now: Self.start + 600) == .ask)
        // Another place: at once, but not within a minute of the last request.
        let office = Self.request(place: 2, 0..<10)
        #expect(WiFiQueryRule.decide(office, state: state, cache: cache, now: Self.start + 30) == .wait(until: Self.start + 60))
        #expect(WiFiQueryRule.decide(office, state: state, cache: cache, now: Self.start + 61) == .ask)
        #expect(WiFiQueryRule.decide(Self.request(place: 3, [1]), state: state, cache: cache, now: Self.start) == .tooFew)
    }

    @Test("Answers are kept by place: a position for a week, not-found for an hour, then asked again")
    func cache() {
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let home = Self.request(place: 1, 0..<10)
        let verdict = WiFiQueryRule.record(
            .answered(.position(Self.berlin)), for: home, state: &state, cache: &cache, now: Self.start)
        #expect(verdict.position == Self.berlin && verdict.problem == nil)
        let tomorrow = Self.start + 86_400
        #expect(WiFiQueryRule.decide(Self.request(place: 1, 3..<12), state: state, cache: cache, now: tomorrow) == .known(Self.berlin))
        #expect(WiFiQueryRule.decide(home, state: state, cache: cache, now: Self.start + 8 * 86_400) == .ask)

        let cafe = Self.request(place: 4, 0..<6)
        let notFound = WiFiQueryRule.record(.answered(.notFound), for: cafe, state: &state, cache: &cache, now: tomorrow)
        #expect(notFound.problem == "the geolocation service knows none of these access points")
        #expect(WiFiQueryRule.decide(cafe, state: state, cache: cache, now: tomorrow + 1800) == .known(nil))
        #expect(WiFiQueryRule.decide(cafe, state: state, cache: cache, now: tomorrow + 3601) == .ask)
    }

    @Test("Retry-After holds every request; a refused answer backs off ten minutes; a contradiction is refused")
    func slowingDown() {
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        let home = Self.request(place: 1, 0..<10)
        let office = Self.request(place: 2, 0..<10)
        _ = WiFiQueryRule.record(.slowDown(retryAfter: 900), for: home, state: &state, cache: &cache, now: Self.start)
        #expect(WiFiQueryRule.decide(office, state: state, cache: cache, now: Self.start + 120) == .wait(until: Self.start + 900))
        #expect(WiFiQueryRule.decide(office, state: state, cache: cache, now: Self.start + 900) == .ask)

        let refused = WiFiQueryRule.record(
            .answered(.refused("the answer is not a JSON object")), for: office, state: &state, cache: &cache,
            now: Self.start + 900)
        #expect(refused.problem == "the geolocation service's answer was refused: the answer is not a JSON object")
        #expect(
            WiFiQueryRule.decide(Self.request(place: 3, 0..<10), state: state, cache: cache, now: Self.start + 1000)
                == .wait(until: Self.start + 1500))

        // Home was Berlin; the service now says Potsdam for mostly the same access points: refused, nothing kept.
        _ = WiFiQueryRule.record(.answered(.position(Self.berlin)), for: home, state: &state, cache: &cache, now: Self.start + 2000)
        let moved = Self.request(place: 1, 3..<13)
        let contradicted = WiFiQueryRule.record(
            .answered(.position(Self.potsdam)), for: moved, state: &state, cache: &cache, now: Self.start + 3000)
        #expect(contradicted.position == nil)
        #expect(contradicted.problem?.hasPrefix("the geolocation service's answer was refused: it is 25 km from") == true)
        // A new place whose access points are mostly new contradicts nothing, even with one old one (a hotspot
        // carried along).
        let elsewhere = Self.request(place: 5, 0..<9).bssids.union(Self.request(place: 1, [0]).bssids)
        #expect(cache.contradiction(of: Self.potsdam, for: elsewhere, now: Self.start + 3000) == nil)
    }

    @Test("The cache is bounded and survives a round trip through JSON")
    func bounded() throws {
        var cache = WiFiAnswerCache()
        for place in 0..<200 {
            cache.record(Self.berlin, for: Self.request(place: UInt8(place), 0..<5).bssids, now: Self.start + Double(place))
        }
        #expect(cache.entries.count == WiFiAnswerCache.capacity)
        let decoded = try JSONDecoder().decode(WiFiAnswerCache.self, from: JSONEncoder().encode(cache))
        #expect(decoded == cache)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                WiFiAnswerCache.self, from: Data(#"{"entries":[{"accessPoints":["nope"],"answeredAt":0}]}"#.utf8))
        }
    }

    /// A day of a laptop moving between home, the office and a café, by the rule alone (the service's answers
    /// given): how many requests it makes. NetworkManager scans every two minutes while the laptop is awake; each
    /// scan sees a random 70 to 100 % of the place's access points and now and then a passer-by's.
    @Test("A simulated day between three places costs a handful of requests")
    func simulatedDay() {
        var random = SplitMix64(seed: 25)
        var state = WiFiQueryRule.State()
        var cache = WiFiAnswerCache()
        var requests: [String: Int] = [:]
        let places: [String: (id: UInt8, count: Int, answer: WiFiGeolocationAnswer)] = [
            "home": (1, 14, .position(Self.berlin)),
            "office": (2, 25, .position(WiFiPosition(coordinate: Coordinate(latitude: 52.5200, longitude: 13.4050), accuracyMeters: 40))),
            "café": (3, 8, .notFound),
        ]
        // (from minute, to minute, where; nil: asleep in a bag)
        let day: [(Int, Int, String?)] = [
            (0, 60, "home"), (60, 420, nil), (420, 480, "home"), (480, 510, "bus"), (510, 720, "office"),
            (720, 780, "café"), (780, 1050, "office"), (1050, 1080, nil), (1080, 1380, "home"), (1380, 1440, nil),
        ]
        var busStop = 0
        for (from, to, place) in day {
            guard let place else { continue }
            for minute in stride(from: from, to: to, by: 2) {
                let now = Self.start + Double(minute * 60)
                let request: WiFiGeolocationRequest
                let answer: WiFiGeolocationAnswer
                if place == "bus" {
                    // Every scan on a moving bus sees other access points; the service knows half of the stops.
                    busStop += 1
                    request = Self.request(place: UInt8(100 + busStop), 0..<Int(random.next() % 5 + 2))
                    answer = busStop % 2 == 0 ? .position(Self.berlin) : .notFound
                } else {
                    let spot = places[place]!
                    let seen = (0..<spot.count).filter { _ in random.next() % 100 < 85 }
                    var observations = Self.request(place: spot.id, seen).accessPoints.map(\.bssid)
                    if random.next() % 5 == 0 { observations += Self.request(place: 99, [Int(random.next() % 200)]).bssids }
                    request = WiFiGeolocationRequest(
                        observations: observations.map {
                            WiFiObservation(
                                hardwareAddress: $0.description, ssid: Array("n".utf8), strengthPercent: 50,
                                frequencyMHz: 2412, lastSeen: 1000)
                        }, bootTime: 1000)
                    answer = spot.answer
                }
                if WiFiQueryRule.decide(request, state: state, cache: cache, now: now) == .ask {
                    requests[place, default: 0] += 1
                    _ = WiFiQueryRule.record(.answered(answer), for: request, state: &state, cache: &cache, now: now)
                }
            }
        }
        // Home once (the morning's answer serves the evening), the office once (after lunch too), and the bus once a
        // scan: fifteen stops, each a new place. The café twice: its first scan caught 5 of its 8 access points, and
        // one at minute 762 saw 7, only 3 of them among those 5: under half in common is a new place by the rule.
        #expect(requests == ["home": 1, "office": 1, "café": 2, "bus": 15])
    }
}

/// A small deterministic generator, so the simulated day is the same every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
