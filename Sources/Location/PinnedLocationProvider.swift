import ForecastModel
import Foundation
import Synchronization

/// The position the user pinned in the settings, as a provider.
///
/// Delivers one ``LocationEvent/fix(_:)`` (source `pinned`, labelled with the pin's name) and then waits until
/// cancelled. Without a pin, or with one that is not a plausible position, it delivers
/// ``LocationEvent/unavailable(source:reason:)`` instead.
public struct PinnedLocationProvider: LocationProvider {
    /// The pinned point, nil when none is configured.
    public var coordinate: Coordinate?
    /// The pin's display name, when the user gave one.
    public var name: String?

    public init(coordinate: Coordinate?, name: String? = nil) {
        self.coordinate = coordinate
        self.name = name
    }

    /// The pin as a fix received `now`, or nil when there is no usable pin.
    public func fix(now: Date = Date()) -> LocationFix? {
        guard let coordinate, coordinate.isPlausible else { return nil }
        return LocationFix(coordinate: coordinate, source: .pinned, receivedAt: now, label: name)
    }

    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        if let fix = fix() {
            deliver(.fix(fix))
        } else if let coordinate {
            deliver(
                .unavailable(
                    source: .pinned,
                    reason:
                        "The pin (\(coordinate.latitude), \(coordinate.longitude)) is not a plausible position: "
                        + "latitude must be within -90...90, longitude within -180...180, and not both 0."))
        } else {
            deliver(.unavailable(source: .pinned, reason: "No pin is set."))
        }
        // The pin does not change while this runs: a new pin means a new provider. No timer: a pending
        // `Task.sleep` keeps libdispatch's timer thread waking every second.
        await Self.untilCancelled()
    }

    /// Returns when the task is cancelled, without a timer.
    static func untilCancelled() async {
        final class Waiting: Sendable {
            let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, cancelled: Bool)>((nil, false))
        }
        let waiting = Waiting()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let cancelled = waiting.state.withLock { waiting in
                    if !waiting.cancelled { waiting.continuation = continuation }
                    return waiting.cancelled
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            waiting.state.withLock { waiting in
                waiting.cancelled = true
                defer { waiting.continuation = nil }
                return waiting.continuation
            }?.resume()
        }
    }
}
