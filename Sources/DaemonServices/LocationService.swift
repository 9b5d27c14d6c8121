import DaemonState
import ForecastModel
import Foundation
import Location
import Logging
import ServiceLifecycle

/// Runs the position sources the state asks for, feeding their events to it in order.
///
/// The state decides which sources should run (gpsd and the static file in auto mode, IP geolocation
/// only while nothing better knows the position); a source whose settings change is stopped and started
/// anew with the new ones.
public struct LocationService: Service, CustomStringConvertible {
    let state: ForecastState
    let makeProvider: @Sendable (LocationSourceSpec) -> any LocationProvider

    public init(
        state: ForecastState, makeProvider: @escaping @Sendable (LocationSourceSpec) -> any LocationProvider
    ) {
        self.state = state
        self.makeProvider = makeProvider
    }

    public var description: String { "LocationService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // Providers call back from their own threads; the stream hands events over to this task
            // so the state sees them in the order they happened.
            let (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(64))
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await event in events { await state.handle(event) }
                }
                var running: [LocationSourceSpec: AsyncStream<Void>.Continuation] = [:]
                for await wanted in await state.locationSourceUpdates() {
                    for (spec, stop) in running where !wanted.contains(spec) {
                        stop.finish()
                        running[spec] = nil
                    }
                    for spec in wanted where running[spec] == nil {
                        let (stop, stopContinuation) = AsyncStream.makeStream(of: Void.self)
                        running[spec] = stopContinuation
                        let provider = makeProvider(spec)
                        group.addTask {
                            // Runs the source until it is no longer wanted (`stop` finishes) or the daemon stops.
                            await withDiscardingTaskGroup { inner in
                                inner.addTask { await provider.run { continuation.yield($0) } }
                                for await _ in stop {}
                                inner.cancelAll()
                            }
                        }
                    }
                }
                for stop in running.values { stop.finish() }
                continuation.finish()
            }
        }
    }
}
