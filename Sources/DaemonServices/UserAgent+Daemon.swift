import Control
import WeatherProviders

extension UserAgent {
    /// The User-Agent forecastd sends to every service.
    public static let daemon = "forecastd/\(ForecastdVersion.current) (weather daemon for status bars)"
}
