import ForecastModel
import Foundation

/// Query building shared by the providers.
enum ProviderURL {
    /// `53.1875`, `-2.06`, `0`: at most `decimals` decimals (4 by default, about 11 m), no trailing
    /// zeros, never exponent notation.
    static func format(_ degrees: Double, decimals: Int = 4) -> String {
        var text = String(format: "%.\(max(0, min(decimals, 6)))f", degrees)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// `base` with `path` appended (when given) and `items` added after the base's own query.
    ///
    /// Values are used as given: callers pass values that need no percent-encoding (numbers, lists
    /// with commas, keys), or encode them first with ``encode(_:)``.
    static func make(
        _ base: URL, appendingPath path: String? = nil, items: [(String, String)], provider: String
    ) throws(ProviderError) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw ProviderError(
                provider: provider, kind: .providerError, detail: "the URL \(base.absoluteString) cannot be parsed")
        }
        if let path {
            var basePath = components.percentEncodedPath
            while basePath.hasSuffix("/") { basePath.removeLast() }
            components.percentEncodedPath = basePath + path
        }
        let query = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = [existing, query].compactMap { $0 }.joined(separator: "&")
        components.fragment = nil
        guard let result = components.url, result.scheme != nil, result.host != nil else {
            throw ProviderError(
                provider: provider, kind: .providerError,
                detail: "the URL \(ProviderHTTP.redacted(base)) is not a valid http(s) URL")
        }
        return result
    }

    /// Percent-encodes a query value (an API key may hold any character).
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// Refuses coordinates no provider can answer for, before any request is made.
    static func check(_ coordinate: Coordinate, provider: String) throws(ProviderError) {
        guard coordinate.latitude.isFinite, coordinate.longitude.isFinite,
            (-90...90).contains(coordinate.latitude), (-180...180).contains(coordinate.longitude)
        else {
            throw ProviderError(
                provider: provider, kind: .providerError,
                detail: "cannot ask for a forecast at (\(coordinate.latitude), \(coordinate.longitude)): "
                    + "latitude must be within -90...90 and longitude within -180...180")
        }
    }
}
