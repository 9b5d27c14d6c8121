import Foundation

/// Reads a feed body as JSON (``JSONReader``), telling apart the ways a body goes wrong: an HTML page, JSON cut
/// off, and anything else that is not JSON.
enum FeedBody {
    /// The parsed JSON object (or array).
    ///
    /// - Throws: ``WarningError`` with reason `html` for a web page, `truncated` for JSON that stops
    ///   while an object, array or string is still open, `malformed` for anything else that is not JSON.
    static func json(_ data: Data, source: String) throws(WarningError) -> Any {
        let body = try start(data, source: source)
        do {
            return try JSONReader.parse(body)
        } catch {
            throw failure(error, bytes: data.count, source: source)
        }
    }

    /// Reads the root object, handing each element of its list under `key` (`features`, `warnings`,
    /// `alerts`) to `each` as it is read, so a long feed never exists as one tree; `each` returns false to
    /// read no more of them.
    ///
    /// - Returns: the root object's other members.
    /// - Throws: as ``json(_:source:)``, and `malformed` when the JSON has no such list.
    static func stream(_ data: Data, key: String, source: String, each: (Int, Any) -> Bool) throws(WarningError)
        -> [String: Any]
    {
        let body = try start(data, source: source)
        let noList = WarningError(
            source: source, reason: .malformed, detail: "the response is JSON but has no \"\(key)\" list")
        guard body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else {
            _ = try json(data, source: source)
            throw noList
        }
        do {
            let (root, found) = try JSONReader.stream(body, key: key, each: each)
            guard found else { throw noList }
            return root
        } catch let error as JSONReader.Failure {
            throw failure(error, bytes: data.count, source: source)
        } catch {
            throw noList
        }
    }

    /// The body without a byte order mark, once it is known not to be empty, a web page or XML.
    private static func start(_ data: Data, source: String) throws(WarningError) -> Data {
        var body = data
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }  // UTF-8 byte order mark
        guard let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw WarningError(source: source, reason: .malformed, detail: "the response body is empty")
        }
        let head = body.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }).prefix(512)
        if isHTML(ArraySlice(head)) {
            throw WarningError(
                source: source, reason: .html,
                detail: "the response is an HTML page, not the feed (a proxy or the service's error page)")
        }
        if first == UInt8(ascii: "<") {
            throw WarningError(source: source, reason: .malformed, detail: "the response is XML, not the JSON feed")
        }
        return body
    }

    private static func failure(_ error: JSONReader.Failure, bytes: Int, source: String) -> WarningError {
        switch error.kind {
        case .truncated:
            WarningError(
                source: source, reason: .truncated,
                detail: "the JSON ends after \(bytes) bytes with an object, array or string still open")
        case .malformed:
            WarningError(source: source, reason: .malformed, detail: "the response is not valid JSON (\(error))")
        }
    }

    /// `text` without white space (newlines included) at either end; `text` itself, not a copy, when it has none
    /// (Foundation's trimming copies every string, a CAP polygon of megabytes too, through UTF-16).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        if start == scalars.startIndex && end == scalars.endIndex { return text }
        return String(scalars[start..<end])
    }

    /// A web page: `<!DOCTYPE html` or `<html` near the start.
    static func isHTML(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "<") else { return false }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.contains("<html")
    }
}

/// Typed reading of ``JSONReader`` (or `JSONSerialization`) output, where a wrong or missing field spoils only itself.
extension Dictionary where Key == String, Value == Any {
    /// A non-empty string with surrounding white space removed.
    func text(_ key: String) -> String? {
        guard let value = self[key] as? String else { return nil }
        let trimmed = FeedBody.trimmed(value)
        return trimmed.isEmpty ? nil : trimmed
    }

    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }

    func objects(_ key: String) -> [[String: Any]] { (self[key] as? [Any])?.compactMap { $0 as? [String: Any] } ?? [] }

    /// Strings from a field that holds one string or a list of them (CAP `polygon` in MeteoAlarm's JSON).
    func texts(_ key: String) -> [String] {
        if let one = text(key) { return [one] }
        return (self[key] as? [Any])?.compactMap { ($0 as? String).map(FeedBody.trimmed) }.filter { !$0.isEmpty } ?? []
    }
}
