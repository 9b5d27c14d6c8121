import ForecastModel
import Foundation

extension ProviderHTTPResponse {
    /// The body of an Open-Meteo answer (forecast or air quality) as JSON, or the error it stands for.
    ///
    /// A non-2xx answer is classified by its status, with Open-Meteo's `reason` when the body has one;
    /// a body that is not JSON (a proxy's HTML page) is a bad response, except for 429, 401 and 403,
    /// whose status alone says what to do.
    func openMeteoJSON(provider: String) throws(ProviderError) -> JSONValue {
        let json = JSONValue.parse(Data(body))
        guard isSuccess else {
            switch status {
            case 429, 401, 403: break
            default: if json == nil { throw notJSON(provider: provider) }
            }
            throw ProviderError.httpStatus(
                provider: provider, status: status, reason: json?["reason"]?.string, retryAfter: retryAfter)
        }
        guard let json else { throw notJSON(provider: provider) }
        return json
    }

    private func notJSON(provider: String) -> ProviderError {
        ProviderError(
            provider: provider, kind: .badResponse,
            detail: "the response is not JSON (\(mediaType ?? "no content type"), \(status))")
    }
}

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
