import ForecastModel
import Foundation

/// Query building shared by every service: coordinates as text, a base URL with a path and items added, and
/// URLs as logs may show them.
public enum QueryURL {
    /// Why a URL could not be built, without the service's name (each domain wraps it in its own error).
    public struct Invalid: Error, Sendable, Hashable {
        /// `the URL … is not a valid http(s) URL`.
        public var detail: String
    }

    /// `53.1875`, `-2.06`, `0`: at most `decimals` decimals (0...6; 4 by default, about 11 m), no trailing
    /// zeros, never exponent notation.
    public static func format(_ degrees: Double, decimals: Int = 4) -> String {
        var text = String(format: "%.\(max(0, min(decimals, 6)))f", degrees)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// `base` with `path` appended as one more segment (when given) and `items` added after the base's
    /// own query; the fragment is dropped.
    ///
    /// Values are used as given: callers pass values that need no percent-encoding (numbers, lists with
    /// commas, keys), or encode them first with ``encode(_:)``.
    public static func make(_ base: URL, appendingPath path: String? = nil, items: [(String, String)])
        throws(Invalid) -> URL
    {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw Invalid(detail: "the URL \(redacted(base)) cannot be parsed")
        }
        if let path {
            var basePath = components.percentEncodedPath
            while basePath.hasSuffix("/") { basePath.removeLast() }
            components.percentEncodedPath = basePath + "/" + path.drop { $0 == "/" }
        }
        if !items.isEmpty {
            let query = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
            components.percentEncodedQuery = [existing, query].compactMap { $0 }.joined(separator: "&")
        }
        components.fragment = nil
        guard let result = components.url, let scheme = result.scheme?.lowercased(), ["http", "https"].contains(scheme),
            result.host?.isEmpty == false
        else {
            throw Invalid(detail: "the URL \(redacted(base)) is not a valid http(s) URL")
        }
        return result
    }

    /// ``make(_:appendingPath:items:)`` with its failure turned into the caller's own error.
    public static func make<Failure: Error>(
        _ base: URL, appendingPath path: String? = nil, items: [(String, String)],
        failure: (Invalid) -> Failure
    ) throws(Failure) -> URL {
        do {
            return try make(base, appendingPath: path, items: items)
        } catch {
            throw failure(error)
        }
    }

    /// Percent-encodes a query value (an API key may hold any character).
    public static func encode(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// Whether a service can be asked about `coordinate`: finite, latitude within -90...90 and longitude
    /// within -180...180. Checked before any request is made.
    public static func isAnswerable(_ coordinate: Coordinate) -> Bool {
        coordinate.latitude.isFinite && coordinate.longitude.isFinite && (-90...90).contains(coordinate.latitude)
            && (-180...180).contains(coordinate.longitude)
    }

    /// Why a service cannot be asked for `what` at `coordinate` (`cannot ask for a forecast at (91.0, 0.0):
    /// latitude must be within -90...90 and longitude within -180...180`); nil when it can.
    public static func refusal(_ coordinate: Coordinate, asking what: String) -> String? {
        guard !isAnswerable(coordinate) else { return nil }
        return "cannot ask for \(what) at (\(coordinate.latitude), \(coordinate.longitude)): latitude must be within "
            + "-90...90 and longitude within -180...180"
    }

    /// The URL with secrets in the query (API keys) replaced, so it can be logged and shown.
    public static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems
        else { return url.absoluteString }
        let secret: Set<String> = ["appid", "apikey", "api_key", "key", "token", "access_token"]
        components.percentEncodedQueryItems = items.map { item in
            secret.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        return components.string ?? url.absoluteString
    }
}
