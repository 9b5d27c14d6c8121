import ForecastModel
import Foundation

/// What every Open-Meteo body (forecast, air quality) starts with: the grid cell it is for and the
/// UTC offset of its local times.
struct OpenMeteoBodyHeader {
    var coordinate: Coordinate
    /// Open-Meteo answers in GMT unless asked for a time zone, so a missing offset means 0; an offset
    /// beyond ±18 h is not trusted.
    var utcOffsetSeconds: Int

    /// Reads the header of a JSON object, refusing a body that reports an error (`"error": true`).
    ///
    /// - Parameter requested: the point asked for, used only when the body has no valid coordinates.
    init(_ json: JSONValue, requested: Coordinate?, provider: String) throws(ProviderError) {
        func failure(_ detail: String) -> ProviderError {
            ProviderError(provider: provider, kind: .badResponse, detail: detail)
        }
        if json["error"]?.bool == true {
            throw failure("the response reports an error: \(json["reason"]?.string ?? "no reason given")")
        }
        if let latitude = json["latitude"]?.double, let longitude = json["longitude"]?.double,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            coordinate = Coordinate(latitude: latitude, longitude: longitude)
        } else if let requested {
            coordinate = requested
        } else {
            throw failure("the response has no valid latitude and longitude")
        }
        utcOffsetSeconds = json["utc_offset_seconds"]?.integer.flatMap { abs($0) <= 18 * 3600 ? $0 : nil } ?? 0
    }
}
