import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

extension Fetcher {
    /// A weather service's fetcher on `client`, as the daemon makes them (the 2 MiB cap).
    static func test(
        _ service: String = "test", client: HTTPClient, userAgent: String = "forecastd/test",
        timeout: Duration = .seconds(60), logger: Logger = Logger(label: "test")
    ) -> Fetcher {
        .weather(service, client: client, userAgent: userAgent, timeout: timeout, logger: logger)
    }
}

/// A clock a test moves by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}

/// Every log record, with its metadata, kept in memory so a test can read what was logged.
final class LogCapture: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: String
    }

    private let records = Mutex<[Record]>([])

    /// A logger at trace level that writes here.
    func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in CaptureHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [Record] { records.withLock { $0 } }

    /// Every record as one text, to search for a secret.
    var text: String { all.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n") }

    fileprivate func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }

    private struct CaptureHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let text = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append(Record(level: event.level, message: event.message.description, metadata: text))
        }
    }
}

/// Runs `body` with a fresh replay server and HTTP client, and tears both down whatever happens.
func withServer(_ body: (ReplayServer, HTTPClient) async throws -> Void) async throws {
    try await ReplayServer.withClient(body)
}

/// Whether two values differ by at most `tolerance`.
func approx(_ value: Double?, _ expected: Double, tolerance: Double = 0.01) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}
