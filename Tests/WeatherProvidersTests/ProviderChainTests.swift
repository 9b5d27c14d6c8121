import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// The failover chain against a local server: Open-Meteo first, MET Norway second, each misbehaviour
/// of the first served by the second, with backoff that never hammers and recovery at once.
@Suite("Provider chain", .timeLimit(.minutes(3)))
struct ProviderChainTests {
    static let openMeteoPath = "/v1/forecast"
    static let metPath = "/weatherapi/locationforecast/2.0/compact"
    static let samara = "open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json"
    static let berlin = Coordinate(latitude: 52.520_008, longitude: 13.404_954)
    static let start = Timestamps.parseUTC("2026-11-22T05:00:00Z")!

    /// Open-Meteo then MET Norway on one server, a chain clock the test moves, and jitter fixed at `jitter`
    /// (0 = the lowest value of every range, 1 = the highest).
    static func chain(
        _ server: ReplayServer, _ client: HTTPClient, clock: ManualClock, precision: Int = 2, jitter: Double = 0,
        openMeteoTimeout: Duration = .seconds(5), maximumAnswerOffset: TimeInterval? = nil,
        logger: Logger = Logger(label: "test")
    ) -> ProviderChain {
        let openMeteo = OpenMeteoProvider(
            url: server.url(openMeteoPath), fetcher: .test(client: client, timeout: openMeteoTimeout, logger: logger),
            now: { clock.now })
        let metNorway = MetNorwayProvider(
            url: server.url(metPath), contact: "+mailto:ops@example.org",
            fetcher: .test(client: client, userAgent: "forecastd/test (+mailto:ops@example.org)", logger: logger),
            logger: logger, timeZone: { _ in TimeZone(identifier: "Europe/Berlin") },
            now: { MetNorwayTests.recordedAt })
        return ProviderChain(
            providers: [openMeteo, metNorway], coordinatePrecision: precision, maximumAnswerOffset: maximumAnswerOffset,
            logger: logger, now: { clock.now },
            random: { range in range.lowerBound + (range.upperBound - range.lowerBound) * jitter })
    }

    /// The ways Open-Meteo fails in the wild, each with the error kind the chain must report.
    static let misbehaviours: [(String, ErrorKind)] = [
        ("slow", .timeout), ("500", .providerError), ("502 html", .badResponse), ("429", .rateLimited),
        ("truncated", .badResponse), ("wrong types", .badResponse), ("empty arrays", .badResponse),
        ("nulls", .badResponse), ("closed", .providerError),
    ]

    static func misbehaviour(_ name: String) throws -> ReplayResponse {
        let samara = try ReplayResponse.fixture(Self.samara)
        switch name {
        case "slow": return samara.delayed(by: .seconds(60))  // far past the 1 s deadline, even on a loaded machine
        case "500": return .json(#"{"error":true,"reason":"internal"}"#, status: 500)
        case "502 html": return .html("<html><body><h1>502 Bad Gateway</h1></body></html>")
        case "429":
            return try .fixture("open-meteo/error-429-daily-limit.json", status: 429, headers: [("Retry-After", "120")])
        case "truncated": return samara.behaving(.truncateBody(afterBytes: 400))
        case "wrong types":
            return .json(
                #"{"latitude":"north","longitude":13.4,"current":{"time":12,"temperature_2m":"warm"},"hourly":{"time":"soon"},"daily":[1,2]}"#
            )
        case "empty arrays":
            return .json(
                #"{"latitude":52.5,"longitude":13.4,"hourly":{"time":[],"temperature_2m":[]},"daily":{"time":[]}}"#)
        case "nulls":
            return .json(#"{"latitude":null,"longitude":null,"current":null,"hourly":null,"daily":null}"#)
        default: return samara.behaving(.closeWithoutAnswer)
        }
    }

    @Test("An answer dated a month back is each provider's failure, never a forecast")
    func answerFromThePast() async throws {
        try await withServer { server, client in
            // The Samara answer speaks for 2026-09-15T12:00+04:00; the MET Norway one for July 2020.
            let clock = ManualClock(Timestamps.parseUTC("2026-09-15T08:40:00Z")!)
            let chain = Self.chain(server, client, clock: clock, maximumAnswerOffset: 3 * 3600)
            server.setRoute(path: Self.openMeteoPath, try .fixture(Self.samara))
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))

            let fresh = await chain.fetch(for: Self.berlin)
            #expect(fresh.forecast?.provider == "open-meteo")

            clock.advance(by: 30 * 86_400)
            let month = await chain.fetch(for: Self.berlin)
            #expect(month.forecast == nil)
            #expect(month.failures.map(\.kind) == [.badResponse, .badResponse])
            #expect(month.failures.map(\.provider) == ["open-meteo", "met-norway"])
            let message = try #require(month.failures.first?.message)
            #expect(message.hasPrefix("open-meteo: the answer is dated 2026-09-15T08:00:00Z, 30 days old"), "\(message)")
            // Like any failure, the provider backs off rather than being asked again at once.
            #expect(await chain.providerHealth().allSatisfy { $0.backoffUntil != nil })
        }
    }

    @Test("An answer older than the forecast already held by more than an hour never replaces it")
    func answerOlderThanHeld() async throws {
        try await withServer { server, client in
            // The Samara answer speaks for 2026-09-15T08:00Z, the MET Norway one for July 2020; no age limit here.
            let clock = ManualClock(Timestamps.parseUTC("2026-09-15T08:40:00Z")!)
            let chain = Self.chain(server, client, clock: clock)
            server.setRoute(path: Self.openMeteoPath, try .fixture(Self.samara))
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))
            let answerTime = try #require(Timestamps.parseUTC("2026-09-15T08:00:00Z"))

            // Within the tolerance (another provider's quarter hour or hour): taken.
            let close = await chain.fetch(for: Self.berlin, held: answerTime.addingTimeInterval(45 * 60))
            #expect(close.forecast?.provider == "open-meteo")

            // Three hours behind what is held (a cache serving an old copy): each provider's failure.
            let behind = await chain.fetch(for: Self.berlin, held: answerTime.addingTimeInterval(3 * 3600))
            #expect(behind.forecast == nil)
            #expect(behind.failures.map(\.kind) == [.badResponse, .badResponse])
            let message = try #require(behind.failures.first?.message)
            #expect(
                message.hasPrefix(
                    "open-meteo: the answer is dated 2026-09-15T08:00:00Z, 3 hours older than the forecast already held"),
                "\(message)")
        }
    }

    @Test(
        "Each misbehaviour of the first provider is served by the second, with the error returned",
        arguments: misbehaviours.map(\.0))
    func failover(_ name: String) async throws {
        let expected = try #require(Self.misbehaviours.first { $0.0 == name }?.1)
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock, openMeteoTimeout: .seconds(1))
            server.setRoute(path: Self.openMeteoPath, try Self.misbehaviour(name))
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))

            let outcome = await chain.fetch(for: Self.berlin)
            let forecast = try #require(outcome.forecast)
            #expect(forecast.provider == "met-norway")
            #expect(forecast.current?.temperature == 26.5)
            #expect(outcome.failures.count == 1)
            #expect(outcome.failures.first?.provider == "open-meteo")
            #expect(outcome.failures.first?.kind == expected)
            #expect(outcome.errors.map(\.kind) == [expected])
            #expect(outcome.skipped.isEmpty)
            #expect(outcome.nextAttempt == nil)
            #expect(server.requestCount(path: Self.openMeteoPath) == 1)
            #expect(server.requestCount(path: Self.metPath) == 1)
            let health = await chain.providerHealth()
            #expect(health.map(\.consecutiveFailures) == [1, 0])
            #expect(health[0].backoffUntil != nil)
        }
    }

    @Test("Coordinates are rounded before any provider sees them")
    func rounding() async throws {
        try await withServer { server, client in
            server.setRoute(path: Self.openMeteoPath, try .fixture(Self.samara))
            let clock = ManualClock(Self.start)
            let outcome = await Self.chain(server, client, clock: clock).fetch(for: Self.berlin)
            #expect(outcome.coordinate == Coordinate(latitude: 52.52, longitude: 13.4))
            #expect(outcome.forecast?.provider == "open-meteo")
            let query = try #require(server.requests().last?.query)
            #expect(query["latitude"] == "52.52")
            #expect(query["longitude"] == "13.4")

            _ = await Self.chain(server, client, clock: clock, precision: 0).fetch(for: Self.berlin)
            #expect(server.requests().last?.query["latitude"] == "53")
            #expect(server.requests().last?.query["longitude"] == "13")

            _ = await Self.chain(server, client, clock: clock, precision: 9).fetch(for: Self.berlin)
            #expect(server.requests().last?.query["latitude"] == "52.52")  // clamped to 4: 52.5200
            #expect(server.requests().last?.query["longitude"] == "13.405")  // 13.4050
        }
        #expect(
            ProviderChain.round(Coordinate(latitude: -33.868_82, longitude: 151.209_296), decimals: 2)
                == Coordinate(latitude: -33.87, longitude: 151.21))
        #expect(
            ProviderChain.round(Coordinate(latitude: -0.001, longitude: 0.004), decimals: 2)
                == Coordinate(latitude: 0, longitude: 0))
        #expect(ProviderChain.round(Coordinate(latitude: -0.001, longitude: 0.004), decimals: 2).latitude.sign == .plus)
    }

    @Test("A provider in backoff is not asked; it is asked again when its time comes, and recovers at once")
    func backoffSkipAndRecovery() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock, jitter: 1)  // the longest delays
            server.setRoute(path: Self.openMeteoPath, .json(#"{"error":true}"#, status: 503))
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))

            let first = await chain.fetch(for: Self.berlin)
            #expect(first.forecast?.provider == "met-norway")
            // 30 s × 1.2 at the top of the jitter.
            let until = try #require(await chain.providerHealth()[0].backoffUntil)
            #expect(until == Self.start.addingTimeInterval(36))

            // Within the backoff: Open-Meteo is skipped, not asked; MET Norway serves from its cache.
            clock.advance(by: 35)
            let second = await chain.fetch(for: Self.berlin)
            #expect(second.forecast?.provider == "met-norway")
            #expect(second.failures.isEmpty)
            #expect(second.skipped.map(\.provider) == ["open-meteo"])
            #expect(second.skipped.first?.until == until)
            #expect(
                second.errors.map(\.message) == [
                    "open-meteo: not asked again before 2026-11-22T05:00:36Z after: HTTP 503: Service Unavailable"
                ])
            #expect(server.requestCount(path: Self.openMeteoPath) == 1)
            #expect(server.requestCount(path: Self.metPath) == 1)

            // Its time has come and it fails again: the delay doubles (60 s × 1.2).
            clock.advance(by: 2)
            _ = await chain.fetch(for: Self.berlin)
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
            #expect(await chain.providerHealth()[0].backoffUntil == clock.now.addingTimeInterval(72))
            #expect(await chain.providerHealth()[0].consecutiveFailures == 2)

            // It answers again: served by it at once, failures forgotten.
            clock.advance(by: 73)
            server.setRoute(path: Self.openMeteoPath, try .fixture(Self.samara))
            let recovered = await chain.fetch(for: Self.berlin)
            #expect(recovered.forecast?.provider == "open-meteo")
            #expect(recovered.errors.isEmpty)
            #expect(server.requestCount(path: Self.openMeteoPath) == 3)
            let health = await chain.providerHealth()
            #expect(health[0].consecutiveFailures == 0)
            #expect(health[0].backoffUntil == nil)
            #expect(health[0].lastError == nil)
        }
    }

    @Test("429 honours Retry-After and a daily limit waits for the next UTC midnight")
    func rateLimits() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock)
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))
            server.setRoute(
                path: Self.openMeteoPath,
                .json(
                    #"{"reason":"Too many concurrent requests","error":true}"#, status: 429,
                    headers: [("Retry-After", "120")]))
            _ = await chain.fetch(for: Self.berlin)
            #expect(await chain.providerHealth()[0].backoffUntil == Self.start.addingTimeInterval(120))

            await chain.resetBackoff()
            server.setRoute(
                path: Self.openMeteoPath, try .fixture("open-meteo/error-429-daily-limit.json", status: 429))
            let outcome = await chain.fetch(for: Self.berlin)
            #expect(outcome.failures.first?.rateLimitWindow == .day)
            #expect(await chain.providerHealth()[0].backoffUntil == Timestamps.parseUTC("2026-11-23T00:00:00Z"))
            // Asked again an hour later: skipped, no request.
            clock.advance(by: 3600)
            _ = await chain.fetch(for: Self.berlin)
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
        }
    }

    @Test("A user's refresh passes over the chain's own backoff, never a wait the provider asked for")
    func userAskedPassesOverOwnBackoff() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock)
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))
            server.setRoute(path: Self.openMeteoPath, .json(#"{"error":true}"#, status: 503))
            _ = await chain.fetch(for: Self.berlin)
            #expect(await chain.providerHealth()[0].backoffUntil == Self.start.addingTimeInterval(24))

            // A due round skips it; the network's return does not mend a server error either.
            _ = await chain.fetch(for: Self.berlin)
            _ = await chain.fetch(for: Self.berlin, reason: .networkReturned)
            #expect(server.requestCount(path: Self.openMeteoPath) == 1)

            // A user's round asks it; this time it says how long to wait, and that wait holds even for a user.
            server.setRoute(
                path: Self.openMeteoPath,
                .json(#"{"reason":"Too many concurrent requests","error":true}"#, status: 429, headers: [("Retry-After", "120")]))
            _ = await chain.fetch(for: Self.berlin, reason: .userAsked)
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
            // The failure still counts: the streak goes on.
            #expect(await chain.providerHealth()[0].consecutiveFailures == 2)
            #expect(await chain.providerHealth()[0].backoffUntil == Self.start.addingTimeInterval(120))
            let skipped = await chain.fetch(for: Self.berlin, reason: .userAsked)
            #expect(skipped.skipped.map(\.provider) == ["open-meteo"])
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
            #expect(await chain.nextAttempt() == Self.start.addingTimeInterval(120))
        }
    }

    @Test("The network's return asks again a provider that could not be reached, at once")
    func networkReturnedAsksUnreachable() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock, openMeteoTimeout: .milliseconds(200))
            server.setRoute(path: Self.metPath, try .wrapped(MetNorwayTests.fixture))
            // No answer in time: the kind of failure a lost network gives. The answer would come long after the
            // deadline, so a loaded machine that fires the deadline late still sees a timeout.
            server.setRoute(path: Self.openMeteoPath, try ReplayResponse.fixture(Self.samara).delayed(by: .seconds(300)))
            let first = await chain.fetch(for: Self.berlin)
            #expect(first.failures.map(\.kind) == [.timeout])
            #expect(await chain.nextAttempt() == Self.start.addingTimeInterval(24))
            server.setRoute(path: Self.openMeteoPath, try .fixture(Self.samara))
            _ = await chain.fetch(for: Self.berlin)
            #expect(server.requestCount(path: Self.openMeteoPath) == 1)
            let back = await chain.fetch(for: Self.berlin, reason: .networkReturned)
            #expect(back.forecast?.provider == "open-meteo")
            #expect(server.requestCount(path: Self.openMeteoPath) == 2)
        }
    }

    @Test("When every provider fails: no forecast, every error, the next attempt, and a typed error")
    func everyProviderFails() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.start)
            let chain = Self.chain(server, client, clock: clock)
            server.setRoute(path: Self.openMeteoPath, .html("<h1>502</h1>"))
            server.setRoute(path: Self.metPath, .html("<h1>503</h1>", status: 503))
            let outcome = await chain.fetch(for: Self.berlin)
            #expect(outcome.forecast == nil)
            #expect(outcome.failures.map(\.provider) == ["open-meteo", "met-norway"])
            #expect(outcome.failures.map(\.kind) == [.badResponse, .providerError])
            #expect(outcome.nextAttempt == Self.start.addingTimeInterval(24))  // 30 s × 0.8

            let provider: any WeatherProvider = chain
            #expect(provider.name == "open-meteo → met-norway")
            // Everyone is backing off: nobody is asked, and the first provider's reason is thrown.
            let error = await failure(provider, at: Self.berlin)
            #expect(error?.kind == .badResponse)
            #expect(
                error?.message
                    == "open-meteo: not asked again before 2026-11-22T05:00:24Z after: the response is not JSON (text/html, 502)"
            )
            #expect(server.requests().count == 2)
        }
    }

    @Test("Backoff: exponential, capped, jittered within bounds; offline retried soon, auth late")
    func policy() {
        let policy = BackoffPolicy()
        #expect(
            (1...8).map { policy.baseDelay(afterFailures: $0, kind: .timeout) } == [
                30, 60, 120, 240, 480, 960, 1800, 1800,
            ])
        #expect(policy.baseDelay(afterFailures: 500, kind: .providerError) == 1800)
        #expect((1...4).map { policy.baseDelay(afterFailures: $0, kind: .offline) } == [30, 60, 60, 60])
        #expect(policy.baseDelay(afterFailures: 1, kind: .auth) == 1800)

        let now = Self.start
        let error = ProviderError(provider: "p", kind: .timeout, detail: "slow")
        func delay(_ error: ProviderError, failures: Int = 1, random: (ClosedRange<Double>) -> Double) -> TimeInterval {
            policy.nextAttempt(after: error, failures: failures, now: now, random: random).timeIntervalSince(now)
        }
        #expect(delay(error) { $0.lowerBound } == 24)
        #expect(delay(error) { $0.upperBound } == 36)
        var generator = SystemRandomNumberGenerator()
        let draws = (0..<500).map { _ in delay(error, failures: 3) { Double.random(in: $0, using: &generator) } }
        #expect(draws.allSatisfy { (96...144).contains($0) })
        #expect(Set(draws).count > 100)  // spread, not one value

        // Retry-After wins when longer than the policy's delay, and is capped.
        let asked = ProviderError(provider: "p", kind: .rateLimited, detail: "x", retryAfter: .seconds(500))
        #expect(delay(asked) { $0.upperBound } == 500)
        let absurd = ProviderError(provider: "p", kind: .rateLimited, detail: "x", retryAfter: .seconds(10_000_000))
        #expect(delay(absurd) { $0.lowerBound } == 86_400)
        // A quota period ends on its UTC boundary, plus up to 5 minutes.
        let hourly = ProviderError(provider: "p", kind: .rateLimited, detail: "x", rateLimitWindow: .hour)
        #expect(delay(hourly) { $0.lowerBound } == 3600)
        #expect(delay(hourly) { $0.upperBound } == 3600 + 300)
        #expect(RateLimitWindow.day.end(after: now) == Timestamps.parseUTC("2026-11-23T00:00:00Z"))
        #expect(RateLimitWindow.minute.end(after: now.addingTimeInterval(30)) == now.addingTimeInterval(60))
        #expect(
            ProviderError.rateLimitWindow(in: "Minutely API request limit exceeded. Please try again in one minute.")
                == .minute)
        #expect(
            ProviderError.rateLimitWindow(in: "Hourly API request limit exceeded. Please try again in the next hour.")
                == .hour)
        #expect(ProviderError.rateLimitWindow(in: "Too many requests") == nil)
    }
}
