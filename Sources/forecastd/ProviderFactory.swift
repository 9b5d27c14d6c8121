import AsyncHTTPClient
import Control
import DaemonServices
import DaemonState
import DesktopNotifications
import Fetching
import ForecastModel
import FileStore
import Foundation
import Logging
import Notifications
import ServiceLifecycle
import Settings
import Warnings
import WeatherProviders

// The weather providers, the warnings, the air and the notifications as the daemon runs them: built here, so
// that the composition's service list only appends them.
extension DaemonComposition {
    /// How the daemon names itself to every service (made once, from its version).
    static let userAgent = UserAgent(version: ForecastdVersion.current)

    /// The weather services in the settings' order, behind one failover chain.
    static func providerChain(
        _ settings: Settings.Providers, httpClient: HTTPClient, places: (any PlaceNaming)?, logger: Logger
    ) -> ProviderChain {
        let providers: [any WeatherProvider] = settings.effectiveOrder.compactMap { name in
            switch name {
            case .openMeteo:
                return OpenMeteoProvider(
                    url: settings.openMeteo.url,
                    fetcher: .weather(
                        name.rawValue, client: httpClient, userAgent: userAgent.daemon,
                        timeout: settings.openMeteo.timeout, logger: logger))
            case .metNorway:
                return MetNorwayProvider(
                    url: settings.metNorway.url, contact: settings.metNorway.contact,
                    fetcher: .weather(
                        name.rawValue, client: httpClient,
                        userAgent: userAgent.identifying(contact: settings.metNorway.contact),
                        timeout: settings.metNorway.timeout, logger: logger),
                    logger: logger,
                    // MET Norway answers in UTC: its days are cut in the place's own time zone.
                    timeZone: { coordinate in
                        places?.nearestPlace(to: coordinate)?.timezone.flatMap { TimeZone(identifier: $0) }
                    })
            case .openWeatherMap:
                guard let key = settings.openWeatherMap.apiKey else { return nil }
                return OpenWeatherMapProvider(
                    url: settings.openWeatherMap.url, apiKey: key.revealed, oneCall: settings.openWeatherMap.oneCall,
                    fetcher: .weather(
                        name.rawValue, client: httpClient, userAgent: userAgent.daemon,
                        timeout: settings.openWeatherMap.timeout, logger: logger))
            }
        }
        return ProviderChain(
            providers: providers, coordinatePrecision: settings.coordinatePrecision,
            maximumAnswerOffset: AnswerCheck.maximumTimeOffset, logger: logger)
    }

    /// The alert service (warnings and air) and the notification service, on `httpClient`.
    func alertServices(state: ForecastState, httpClient: HTTPClient) -> [any Service] {
        let logger = self.logger
        let areas = [MeteoAlarmAreas.fileName, MeteoAlarmAreas.nutsFileName].compactMap { name in
            let file = Self.sharedFile(name)
            if file == nil {
                logger.notice(
                    "A file of region shapes was not found; warnings named only by its regions' codes are shown with their area not confirmed.",
                    metadata: ["file": "\(name)"])
            }
            return file
        }
        let environment = ProcessInfo.processInfo.environment
        let clock = AlertClock.fromEnvironment(environment) ?? .system
        if clock.speed != 1 {
            logger.notice(
                "The warning and air services run on a test clock faster than real time.",
                metadata: ["speed": "\(clock.speed)"])
        } else if let text = environment[AlertClock.speedVariable], text != "1" {
            logger.warning(
                "The test clock speed is not a number from 1 to 100000; the real clock is used.",
                metadata: ["variable": "\(AlertClock.speedVariable)", "value": "\(text)"])
        }
        return [
            AlertService(
                state: state, logger: logger, clock: clock,
                makeWarningSource: { settings, country in
                    let context = WarningSourceContext(
                        httpClient: httpClient,
                        userAgent: Self.userAgent.identifying(contact: settings.providers.metNorway.contact),
                        coordinatePrecision: settings.providers.coordinatePrecision, logger: logger,
                        now: { clock.now() })
                    return settings.warningSource(
                        forCountry: country, context: context, meteoAlarmAreas: areas,
                        language: settings.display.phrases(logger: nil).language)
                },
                makeAirService: { settings in
                    settings.airQualityProvider(
                        httpClient: httpClient, userAgent: Self.userAgent.daemon, logger: logger, now: { clock.now() }
                    )
                    .map { provider in
                        AirQualityService(
                            provider: provider, coordinatePrecision: settings.providers.coordinatePrecision,
                            logger: logger, now: { clock.now() })
                    }
                }),
            notificationService(state: state),
        ]
    }

    /// Desktop notifications from the published report: a follower's too, which fetches no warnings itself but
    /// shows the followed ones.
    func notificationService(state: ForecastState) -> NotificationService {
        let stateDirectory = settings.stateDirectory
        let logger = self.logger
        return NotificationService(state: state, isSystemService: isSystemService, logger: logger) { preferences in
            await Notifier(
                client: NotificationClient(applicationName: "forecastd"), stateDirectory: stateDirectory,
                preferences: preferences, opener: DesktopPortal(), logger: logger)
        }
    }

    /// A shipped file of region shapes (`meteoalarm-areas.jsonl`, `nuts-regions.jsonl`), found as the
    /// gazetteer is (``InstalledResource``): in the resource bundle beside the executable, under
    /// `../share/forecastd`, `/usr/local/share/forecastd`, `/usr/share/forecastd`, or the source tree of a
    /// development build. nil when none is there.
    static func sharedFile(_ name: String) -> URL? {
        let place = InstalledResource.Place(
            bundle: MeteoAlarmAreas.resourceBundleName, inBundle: name,
            sourceTree: MeteoAlarmAreas.sourceTreeURL.deletingLastPathComponent().appendingPathComponent(name).path)
        return try? InstalledResource.locate(place, accepts: { FileManager.default.isReadableFile(atPath: $0) })
    }
}
