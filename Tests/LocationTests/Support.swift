import ForecastModel
import Foundation
import Location
import Logging

/// Collects a provider's events as they arrive, from whatever thread delivers them.
final class EventRecorder: @unchecked Sendable {
    // `lock` guards `events`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var events: [LocationEvent] = []

    func append(_ event: LocationEvent) {
        lock.withLock { events.append(event) }
    }

    var all: [LocationEvent] {
        lock.withLock { events }
    }

    /// Waits up to `seconds` for an event at or after position `start` that matches; returns its position
    /// and the event, or nil when none came in time.
    func first(
        from start: Int = 0, within seconds: Double, where matches: (LocationEvent) -> Bool
    ) async -> (index: Int, event: LocationEvent)? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let snapshot = all
            if start < snapshot.count,
                let index = snapshot[start...].firstIndex(where: matches)
            {
                return (index, snapshot[index])
            }
            if Date() > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits for the first fix at or after position `start`.
    func firstFix(from start: Int = 0, within seconds: Double) async -> (index: Int, fix: LocationFix)? {
        guard let (index, event) = await first(from: start, within: seconds, where: { $0.isFix }),
            case .fix(let fix) = event
        else { return nil }
        return (index, fix)
    }
}

extension LocationEvent {
    var isFix: Bool {
        if case .fix = self { return true }
        return false
    }

    var isNoFix: Bool {
        if case .noFix = self { return true }
        return false
    }

    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}

/// Runs `provider` in a child task while `body` watches its events, then cancels it and waits until `run`
/// has returned, so no reader thread outlives the test.
func running<T>(
    _ provider: some LocationProvider, _ body: (EventRecorder) async throws -> T
) async rethrows -> T {
    let recorder = EventRecorder()
    let task = Task { await provider.run { recorder.append($0) } }
    do {
        let result = try await body(recorder)
        task.cancel()
        await task.value
        return result
    } catch {
        task.cancel()
        await task.value
        throw error
    }
}

/// A log handler that keeps every message, so tests can check what an operator would read.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    final class Store: @unchecked Sendable {
        // `lock` guards `entries`.
        private let lock = NSLock()
        private var entries: [Entry] = []

        func append(_ entry: Entry) { lock.withLock { entries.append(entry) } }
        var all: [Entry] { lock.withLock { entries } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        store.append(Entry(level: event.level, message: "\(event.message)", metadata: merged))
    }

    /// A logger writing into a fresh store.
    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "forecastd.test") { _ in RecordingLogHandler(store: store) }, store)
    }
}

/// A short backoff, so reconnection tests take a second rather than half a minute.
let quickBackoff = GPSDLocationProvider.Backoff(initial: .milliseconds(100), maximum: .milliseconds(400))
