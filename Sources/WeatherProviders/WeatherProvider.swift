import ForecastModel

/// A weather service that answers "what is the weather at this point" with a ``Forecast``.
///
/// This is the I/O seam between the daemon and the network: the daemon holds providers behind this
/// protocol so that it can fail over between them and so tests can replace the network.
public protocol WeatherProvider: Sendable {
    /// The stable provider identifier (`open-meteo`), used in reports, logs and error messages.
    var name: String { get }

    /// Fetches the forecast for a point, in canonical metric units.
    ///
    /// Every failure comes back as a ``ProviderError`` whose kind tells the caller whether to retry,
    /// back off or give up.
    func forecast(for coordinate: Coordinate) async throws(ProviderError) -> Forecast
}
