import AsyncHTTPClient
import DaemonState
import Fetching
import ForecastModel
import Foundation
import Logging
import Settings
import Warnings
import WeatherProviders

// The warnings, the air and the nowcast as the daemon's services build them from the settings
// (`[warnings]`, `[air]`, `[nowcast]`): the settings turned into the Warnings and WeatherProviders types,
// so that wiring them is a matter of calling these.
extension Settings {
    /// `[warnings]` as the switches ``WarningSourceSelection`` reads.
    public var warningSwitches: WarningSourceSwitches {
        WarningSourceSwitches(
            enabled: warnings.enabled, nws: warnings.nws.enabled, metNorway: warnings.metNorway.enabled,
            brightSky: warnings.brightSky.enabled, meteoalarm: warnings.meteoalarm.enabled,
            eccc: warnings.eccc.enabled)
    }

    /// The warning service for a position in the country `countryCode` (the gazetteer's ISO code), at the
    /// settings' URL; nil when none serves that country or the ones that would are switched off (the report
    /// then has no `warnings`).
    ///
    /// - Parameters:
    ///   - context: the HTTP client, User-Agent (with `[providers.met_norway] contact`), coordinate
    ///     precision (`[providers] coordinate_precision`), logger and clock the sources share.
    ///   - meteoAlarmAreas: the shipped region files (``MeteoAlarmAreas``: `meteoalarm-areas.jsonl`, then
    ///     `nuts-regions.jsonl`), found as the gazetteer is; none places only MeteoAlarm warnings that carry
    ///     shapes of their own.
    ///   - language: the language of `[display] language` (`fr`, `en`, …), for sources with texts in several.
    public func warningSource(
        forCountry countryCode: String?, context: WarningSourceContext, meteoAlarmAreas: [URL], language: String = "en"
    ) -> (any WarningSource)? {
        guard let choice = WarningSourceSelection.source(forCountry: countryCode, switches: warningSwitches) else {
            return nil
        }
        switch choice.kind {
        case .nws: return PointFeedSource(.nws, url: warnings.nws.url, context: context)
        case .metNorway: return PointFeedSource(.metNorwayAlerts, url: warnings.metNorway.url, context: context)
        case .brightSky: return PointFeedSource(.brightSky, url: warnings.brightSky.url, context: context)
        case .meteoalarm:
            guard let countryCode else { return nil }
            return MeteoAlarmSource(
                country: countryCode, url: warnings.meteoalarm.url, areasFiles: meteoAlarmAreas, context: context)
        case .eccc: return ECCCSource(url: warnings.eccc.url, language: language, context: context)
        }
    }

    /// The air quality index to ask for at a position in `countryCode` (`[air] scale`); nil when `[air]
    /// enabled` is false.
    public func airScale(countryCode: String?) -> AQIScale? {
        activeAir.map { $0.scale.scale(countryCode: countryCode) }
    }

    /// The Air Quality API provider `[air]` describes; nil when `[air] enabled` is false. Its
    /// `AirQualityService` takes `[providers] coordinate_precision` and asks with `pollen: air.pollen`.
    public func airQualityProvider(
        httpClient: HTTPClient, userAgent: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) -> OpenMeteoAirQualityProvider? {
        activeAir.map { air in
            OpenMeteoAirQualityProvider(
                url: air.url,
                fetcher: .weather(
                    OpenMeteoAirQualityDecoder.providerName, client: httpClient, userAgent: userAgent,
                    timeout: air.timeout, logger: logger),
                now: now)
        }
    }
}
