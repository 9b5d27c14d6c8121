import Foundation

/// The public endpoint of every service forecastd asks, written once: the settings' defaults take them
/// from here, and each can be replaced in the settings (tests point them at a local server).
public enum ServiceURL {
    // Forecasts.
    public static let openMeteo = URL(string: "https://api.open-meteo.com/v1/forecast")!
    public static let metNorway = URL(string: "https://api.met.no/weatherapi/locationforecast/2.0/compact")!
    public static let openWeatherMap = URL(string: "https://api.openweathermap.org")!
    public static let openMeteoAirQuality = URL(string: "https://air-quality-api.open-meteo.com/v1/air-quality")!

    // Official warnings.
    public static let nws = URL(string: "https://api.weather.gov/alerts/active")!
    public static let metNorwayAlerts = URL(string: "https://api.met.no/weatherapi/metalerts/2.0/current.json")!
    public static let brightSky = URL(string: "https://api.brightsky.dev/alerts")!
    public static let eccc = URL(string: "https://api.weather.gc.ca/collections/weather-alerts/items")!
    public static let meteoAlarm = URL(string: "https://feeds.meteoalarm.org/api/v1/warnings/")!

    // IP geolocation.
    public static let ipinfo = URL(string: "https://ipinfo.io/json")!
    public static let ipapi = URL(string: "https://ipapi.co/json/")!
    public static let ifconfig = URL(string: "https://ifconfig.co/json")!
    public static let ipAPI = URL(string: "http://ip-api.com/json/")!

    // Wi-Fi geolocation (Ichnaea's interface).
    public static let beaconDB = URL(string: "https://api.beacondb.net/v1/geolocate")!
}
