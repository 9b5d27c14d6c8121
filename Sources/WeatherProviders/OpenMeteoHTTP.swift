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
