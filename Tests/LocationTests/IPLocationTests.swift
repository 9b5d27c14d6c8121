import AsyncHTTPClient
import ForecastModel
import Foundation
import Location
import Logging
import TestSupport
import Testing

/// IP geolocation against a local server replaying the services' answers, through the one HTTP layer.
@Suite("IP geolocation lookups", .serialized)
struct IPLocationTests {
    static let userAgent = "forecastd/0.0.0-test (weather daemon for status bars)"
    let logger = Logger(label: "test")

    final class Events: @unchecked Sendable {
        // `lock` guards `list`.
        private let lock = NSLock()
        private var list: [LocationEvent] = []
        func append(_ event: LocationEvent) { lock.withLock { list.append(event) } }
        var all: [LocationEvent] { lock.withLock { list } }

        func wait(count: Int, within seconds: Double) async -> [LocationEvent] {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while all.count < count, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            return all
        }
    }

    func withLookups(
        _ server: ReplayServer, cachePath: String, timeout: Duration = .seconds(60),
        services: [IPGeolocationService] = [.ipinfo, .ipapi, .ipAPI], logger: Logger? = nil,
        _ body: (IPLocationProvider) async throws -> Void
    ) async throws {
        let client = ReplayServer.makeClient()
        let provider = IPLocationProvider(
            endpoints: services.map { IPLocationProvider.Endpoint(service: $0, url: server.url("/\($0.rawValue)")) },
            client: client, userAgent: Self.userAgent, timeout: timeout,
            cachePath: cachePath, logger: logger ?? self.logger)
        do {
            try await body(provider)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Runs the provider until `count` events came (or `seconds` passed), then stops it.
    func run(_ provider: IPLocationProvider, events count: Int, within seconds: Double = 15) async -> [LocationEvent] {
        let events = Events()
        let task = Task { await provider.run { events.append($0) } }
        let seen = await events.wait(count: count, within: seconds)
        try? await Task.sleep(for: .milliseconds(200))  // anything more would show up here
        task.cancel()
        await task.value
        return events.all.count > seen.count ? events.all : seen
    }

    func withServer(_ body: (ReplayServer) async throws -> Void) async throws {
        try await ReplayServer.with(body)
    }

    func temporaryCachePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fd-ip-\(UUID().uuidString)/ip-location.json").path
    }

    @Test("services are tried in order past an HTML page, a rate limit sent with HTTP 200 and a timeout; the next one answers")
    func failsOverToTheNextService() async throws {
        try await withServer { server in
            server.setRoute(path: "/ipinfo", .html("<html><body><h1>502 Bad Gateway</h1></body></html>"))
            server.setRoute(path: "/ipapi", try .fixture("ip-geolocation/ipapi-200-rate-limited.json"))
            server.setRoute(path: "/ip-api", try ReplayResponse.fixture("ip-geolocation/ip-api-montreal.json").delayed(by: .seconds(300)))
            server.setRoute(path: "/ifconfig", try .fixture("ip-geolocation/ifconfig-oslo.json"))
            let cachePath = temporaryCachePath()
            defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: cachePath).deletingLastPathComponent().path) }

            // Each service's deadline is the one that ends the slow ip-api (300 s late) and the one ifconfig must
            // answer within: 10 s, not 1, so that a test process starved by its neighbours (CI once measured no
            // request at all reaching ifconfig within 1 s) still gives it the time an answer needs.
            try await withLookups(server, cachePath: cachePath, timeout: .seconds(10), services: [.ipinfo, .ipapi, .ipAPI, .ifconfig]) { provider in
                let events = await run(provider, events: 1, within: 120)
                #expect(events.count == 1)
                guard case .fix(let fix)? = events.first else {
                    Issue.record("expected a position, got \(events)")
                    return
                }
                #expect(fix.source == .ip)
                #expect(fix.coordinate == Coordinate(latitude: 59.9127, longitude: 10.7461))
                #expect(fix.accuracyMeters == 15_000)
            }
            #expect(server.requestCount(path: "/ipinfo") == 1)
            #expect(server.requestCount(path: "/ipapi") == 1)
            #expect(server.requestCount(path: "/ip-api") == 1)
            #expect(server.requestCount(path: "/ifconfig") == 1)
            let agents = Set(server.requests().compactMap { $0.header("User-Agent") })
            #expect(agents == [Self.userAgent])
        }
    }

    @Test("one lookup an hour at most, restarts included: a second run serves the saved answer without a request")
    func cachedAcrossRestarts() async throws {
        try await withServer { server in
            server.setRoute(path: "/ipinfo", try .fixture("ip-geolocation/ipinfo-mountain-view.json"))
            let cachePath = temporaryCachePath()
            defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: cachePath).deletingLastPathComponent().path) }

            try await withLookups(server, cachePath: cachePath) { provider in
                let first = await run(provider, events: 1)
                #expect(first.count == 1)
                #expect(server.requestCount(path: "/ipinfo") == 1)
                let second = await run(provider, events: 1)
                guard case .fix(let fix)? = second.first else {
                    Issue.record("expected the saved position, got \(second)")
                    return
                }
                #expect(fix.coordinate == Coordinate(latitude: 37.4056, longitude: -122.0775))
                #expect(second.count == 1)
            }
            #expect(server.requestCount(path: "/ipinfo") == 1)
            let saved = try String(contentsOfFile: cachePath, encoding: .utf8)
            #expect(saved.contains("\"service\" : \"ipinfo\""))
            var info = stat()
            #expect(stat(cachePath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        }
    }

    @Test(
        "a saved lookup of another version, or one that is not JSON, is set aside and logged once; a lookup is made",
        arguments: [
            #"{"version":2,"lookedUpAt":"2026-11-28T08:00:00Z","lastAttempt":"2026-11-28T08:00:00Z"}"#,
            #"{"version":1,"lastAttempt":"#,
        ])
    func unusableCacheSetAside(saved: String) async throws {
        try await withServer { server in
            server.setRoute(path: "/ipinfo", try .fixture("ip-geolocation/ipinfo-mountain-view.json"))
            let cachePath = temporaryCachePath()
            let directory = URL(fileURLWithPath: cachePath).deletingLastPathComponent().path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(saved.utf8).write(to: URL(fileURLWithPath: cachePath))
            let (logger, log) = RecordingLogHandler.logger()

            try await withLookups(server, cachePath: cachePath, logger: logger) { provider in
                let events = await run(provider, events: 1)
                #expect(events.count == 1)
            }
            #expect(server.requestCount(path: "/ipinfo") == 1)
            let warnings = log.all.filter { $0.message == "The saved IP lookup cannot be read; it will be done again." }
            #expect(warnings.count == 1)
            let aside = try #require(warnings.first?.metadata["set_aside_as"].map { "\($0)" })
            #expect(aside.hasPrefix(cachePath + ".corrupt-"))
            // The bad file is kept where someone can look at it; the new lookup took its place.
            #expect(try String(contentsOfFile: aside, encoding: .utf8) == saved)
            #expect(try String(contentsOfFile: cachePath, encoding: .utf8).contains("\"service\" : \"ipinfo\""))
        }
    }

    @Test("a rate-limited service is not asked again before its Retry-After, and every failure is named")
    func rateLimitHonoured() async throws {
        try await withServer { server in
            server.setRoute(
                path: "/ipinfo",
                try .fixture("ip-geolocation/ipinfo-429-rate-limited.json", status: 429, headers: [("Retry-After", "86400")]))
            server.setRoute(path: "/ipapi", try .fixture("ip-geolocation/ipapi-reserved.json"))
            server.setRoute(path: "/ip-api", try .fixture("ip-geolocation/ip-api-fail-reserved.json"))
            let cachePath = temporaryCachePath()
            defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: cachePath).deletingLastPathComponent().path) }

            try await withLookups(server, cachePath: cachePath) { provider in
                let events = await run(provider, events: 1)
                guard case .unavailable(.ip, let reason)? = events.first else {
                    Issue.record("expected a failure, got \(events)")
                    return
                }
                #expect(
                    reason == "no IP geolocation service gave a position: ipinfo: rate limited (HTTP 429); "
                        + "ipapi: Reserved IP Address; ip-api: status \"fail\": reserved range")
            }
            // The saved state says when ipinfo may be asked again: a day later, as it asked.
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cachePath))) as? [String: Any]
            let blocked = (saved?["blockedUntil"] as? [String: String])?["ipinfo"]
            let until = blocked.flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(until.map { $0.timeIntervalSinceNow > 86_000 } == true)
            #expect(server.requestCount(path: "/ipinfo") == 1)
        }
    }
}
