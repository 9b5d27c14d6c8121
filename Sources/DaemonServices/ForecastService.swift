import DaemonState
import ForecastModel
import Foundation
import ServiceLifecycle
import Settings
import WeatherProviders

/// Keeps the forecast fresh: fetches when the state says one is due. The state's own timer redoes
/// each time-dependent judgement (fix age, staleness, refresh and retry due) when it falls due; this
/// service keeps time for it (``ForecastState/keepTime()``) while it runs.
public struct ForecastService: Service, CustomStringConvertible {
    let state: ForecastState
    let makeProvider: @Sendable (Settings) -> ProviderChain

    /// `makeProvider` builds the provider chain for the settings in force; it is called again only
    /// when they change, so the providers' own caches and backoff last.
    public init(state: ForecastState, makeProvider: @escaping @Sendable (Settings) -> ProviderChain) {
        self.state = state
        self.makeProvider = makeProvider
    }

    public var description: String { "ForecastService" }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // Judged once now, as the alarm may not have been armed yet; from then on when it rings.
            await state.tick()
            await withDiscardingTaskGroup { group in
                group.addTask { await state.keepTime() }
                var built: (providers: Settings.Providers, chain: ProviderChain)?
                /// The chain for the settings in force, rebuilt only when they change.
                func currentChain() async -> ProviderChain {
                    let settings = await state.currentSettings
                    if let built, built.providers == settings.providers { return built.chain }
                    let chain = makeProvider(settings)
                    built = (settings.providers, chain)
                    return chain
                }
                for await _ in state.refreshRequests {
                    while let due = await state.takeDueFetch(), !Task.isCancelled {
                        let provider = await currentChain()
                        // The reason lets a user's refresh, or the network's return, ask providers the
                        // chain's backoff would skip; a provider's own Retry-After still holds.
                        do throws(ProviderError) {
                            let forecast = try await provider.forecast(for: due.coordinate, reason: due.reason, held: due.held)
                            await state.forecastSucceeded(forecast, for: due.coordinate)
                        } catch {
                            await state.forecastFailed(
                                error, for: due.coordinate, forced: due.forced, retryAt: await provider.nextAttempt())
                        }
                    }
                    // Then the listed cities, one request each, only those whose forecast is due.
                    while let city = await state.dueCityFetch(), !Task.isCancelled {
                        let provider = await currentChain()
                        do throws(ProviderError) {
                            let forecast = try await provider.forecast(for: city.coordinate, reason: city.reason, held: city.held)
                            await state.cityForecastSucceeded(forecast, id: city.id)
                        } catch {
                            await state.cityForecastFailed(error, id: city.id, retryAt: await provider.nextAttempt())
                        }
                    }
                }
                group.cancelAll()
            }
        }
    }
}
