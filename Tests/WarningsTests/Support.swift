import AsyncHTTPClient
import ForecastModel
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Warnings

/// A clock a test moves by hand, so intervals are checked without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(minutes: Double) { current.withLock { $0 = $0.addingTimeInterval(minutes * 60) } }
}

enum Alerts {
    static let userAgent = "forecastd/0.3.0 (+https://example.org/forecastd)"

    static func data(_ path: String) throws -> Data { try Fixtures.data("alerts/" + path) }

    /// A fixture parsed as JSON, for tests that derive a variant of a recorded answer.
    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data(path)) as? [String: Any])
    }

    static func encode(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func at(_ latitude: Double, _ longitude: Double) -> Coordinate {
        Coordinate(latitude: latitude, longitude: longitude)
    }

    static func time(_ text: String) -> Date { Timestamps.parseUTC(text)! }

    static let iowaFile = "nws/weathergov-alerts-active-area-IA-cedar-rapids-tornado-flood-2024-05-polygons-templated-dates.json"

    /// The Iowa answer with its recorder's placeholders (`"date:now -252 seconds"`) turned into real
    /// RFC 3339 times relative to `now`, as SOURCES.md asks: geometry, ids and texts are the recording's.
    static func iowa(now: Date) throws -> Data {
        let text = String(decoding: try data(iowaFile), as: UTF8.self)
        let pattern = try NSRegularExpression(pattern: #""date:now ([+-]?\d+) seconds""#)
        var result = ""
        var last = text.startIndex
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let whole = Range(match.range, in: text)!, offset = Range(match.range(at: 1), in: text)!
            result += text[last..<whole.lowerBound]
            result += "\"\(Timestamps.rfc3339(now.addingTimeInterval(Double(text[offset])!)))\""
            last = whole.upperBound
        }
        result += text[last...]
        return Data(result.utf8)
    }

    /// The shipped region shapes of these countries, as the daemon reads them: MeteoAlarm's, then NUTS.
    static func areas(_ countries: Set<String>) throws -> MeteoAlarmAreas {
        try MeteoAlarmAreas.load(
            from: [MeteoAlarmAreas.sourceTreeURL, MeteoAlarmAreas.nutsSourceTreeURL], countries: countries)
    }

    /// Runs `body` with a replay server and a source context pointed at nothing yet, then tears down.
    static func withServer(
        clock: TestClock = TestClock(Date(timeIntervalSince1970: 1_772_870_400)), coordinatePrecision: Int = 2,
        timeout: Duration = .seconds(60),
        _ body: (ReplayServer, WarningSourceContext) async throws -> Void
    ) async throws {
        try await ReplayServer.withClient { server, client in
            let context = WarningSourceContext(
                httpClient: client, userAgent: userAgent, timeout: timeout, coordinatePrecision: coordinatePrecision,
                logger: Logger(label: "test"), now: { clock.now })
            try await body(server, context)
        }
    }

    /// The error a call threw; records an issue when it returned instead.
    static func failure(_ call: () async throws(WarningError) -> SourceAnswer) async -> WarningError? {
        do {
            let answer = try await call()
            Issue.record("expected an error, got \(answer.feed.covering.count) covering warnings")
            return nil
        } catch {
            return error
        }
    }
}
