import ForecastModel
import Foundation
import Location
import Logging
import ServiceLifecycle
import WeatherProviders

/// Feeds a position source's events to the state owner, in order.
public struct LocationService: Service, CustomStringConvertible {
    let provider: any LocationProvider
    let state: ForecastState

    public init(provider: any LocationProvider, state: ForecastState) {
        self.provider = provider
        self.state = state
    }

    public var description: String { "LocationService(\(provider))" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // The provider calls back from its own thread; the stream hands events over to this task
            // so the state sees them in the order they happened.
            let (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(64))
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await provider.run { continuation.yield($0) }
                    continuation.finish()
                }
                for await event in events {
                    await state.handle(event)
                }
            }
        }
    }
}

/// Keeps the forecast fresh: fetches when the state says one is due, and ticks the state so
/// time-dependent judgements (fix age, staleness) are redone.
public struct ForecastService: Service, CustomStringConvertible {
    let state: ForecastState
    let provider: any WeatherProvider
    let tickInterval: Duration

    public init(state: ForecastState, provider: any WeatherProvider, tickInterval: Duration = .seconds(5)) {
        self.state = state
        self.provider = provider
        self.tickInterval = tickInterval
    }

    public var description: String { "ForecastService(\(provider.name))" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await state.tick()
                    while !Task.isCancelled {
                        try? await Task.sleep(for: tickInterval)
                        await state.tick()
                    }
                }
                for await _ in state.refreshRequests {
                    while let target = await state.dueFetch(), !Task.isCancelled {
                        do throws(ProviderError) {
                            let forecast = try await provider.forecast(for: target)
                            await state.forecastSucceeded(forecast, for: target)
                        } catch {
                            await state.forecastFailed(error, for: target)
                        }
                    }
                }
                group.cancelAll()
            }
        }
    }
}
