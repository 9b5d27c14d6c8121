import ForecastModel
import Foundation
import Location
import Logging
import ServiceLifecycle
import WeatherProviders

/// Feeds gpsd's events to the state owner, in order, and restarts the gpsd client when its
/// settings change (or stops it when gpsd is switched off or the mode is "pinned").
public struct LocationService: Service, CustomStringConvertible {
    let state: ForecastState
    let makeProvider: @Sendable (DaemonConfiguration.GPSD) -> any LocationProvider

    public init(state: ForecastState, makeProvider: @escaping @Sendable (DaemonConfiguration.GPSD) -> any LocationProvider) {
        self.state = state
        self.makeProvider = makeProvider
    }

    public var description: String { "LocationService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // The provider calls back from its own thread; the stream hands events over to this task
            // so the state sees them in the order they happened.
            let (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self, bufferingPolicy: .bufferingNewest(64))
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await event in events { await state.handle(event) }
                }
                var running: DaemonConfiguration.GPSD?
                var started = false
                var stopCurrent: AsyncStream<Void>.Continuation?
                for await configuration in await state.configurationUpdates() {
                    let wanted = configuration.mode == .auto ? configuration.gpsd : nil
                    if started, wanted == running { continue }
                    started = true
                    stopCurrent?.finish()
                    stopCurrent = nil
                    running = wanted
                    guard let wanted else { continue }
                    let (stop, stopContinuation) = AsyncStream.makeStream(of: Void.self)
                    stopCurrent = stopContinuation
                    let provider = makeProvider(wanted)
                    group.addTask {
                        // Runs the client until its settings change (`stop` finishes) or the daemon stops.
                        await withDiscardingTaskGroup { inner in
                            inner.addTask { await provider.run { continuation.yield($0) } }
                            for await _ in stop {}
                            inner.cancelAll()
                        }
                    }
                }
                stopCurrent?.finish()
                continuation.finish()
            }
        }
    }
}

/// Keeps the forecast fresh: fetches when the state says one is due, and ticks the state so
/// time-dependent judgements (fix age, staleness) are redone.
public struct ForecastService: Service, CustomStringConvertible {
    let state: ForecastState
    let makeProvider: @Sendable (DaemonConfiguration) -> any WeatherProvider
    let tickInterval: Duration

    /// `makeProvider` builds the provider for the settings in force; it is called again only when
    /// they change, so a provider's own caches and backoff last.
    public init(
        state: ForecastState, tickInterval: Duration = .seconds(5),
        makeProvider: @escaping @Sendable (DaemonConfiguration) -> any WeatherProvider
    ) {
        self.state = state
        self.makeProvider = makeProvider
        self.tickInterval = tickInterval
    }

    public var description: String { "ForecastService" }

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
                var provider: (configuration: DaemonConfiguration, provider: any WeatherProvider)?
                for await _ in state.refreshRequests {
                    while let target = await state.dueFetch(), !Task.isCancelled {
                        let configuration = await state.currentConfiguration
                        if provider?.configuration.providers != configuration.providers {
                            provider = (configuration, makeProvider(configuration))
                        }
                        let provider = provider!.provider
                        do throws(ProviderError) {
                            let forecast = try await provider.forecast(for: target)
                            await state.forecastSucceeded(forecast, for: target)
                        } catch {
                            await state.forecastFailed(error, for: target)
                        }
                        // A fetch pulls in HTTP, TLS and JSON code that then sits idle for the refresh
                        // interval: let it leave memory until the next fetch needs it.
                        ResidentText.trim()
                    }
                }
                group.cancelAll()
            }
        }
    }
}
