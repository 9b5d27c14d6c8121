import Foundation

/// Reads a feed body as JSON, telling apart the ways a body goes wrong: an HTML page, JSON cut off,
/// and anything else that is not JSON.
enum FeedBody {
    /// The parsed JSON object (or array).
    ///
    /// - Throws: ``WarningError`` with reason `html` for a web page, `truncated` for JSON that stops
    ///   while an object, array or string is still open, `malformed` for anything else that is not JSON.
    static func json(_ data: Data, source: String) throws(WarningError) -> Any {
        let bytes = [UInt8](data)
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // UTF-8 byte order mark
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else {
            throw WarningError(source: source, reason: .malformed, detail: "the response body is empty")
        }
        if isHTML(bytes[start...]) {
            throw WarningError(
                source: source, reason: .html,
                detail: "the response is an HTML page, not the feed (a proxy or the service's error page)")
        }
        if bytes[start] == UInt8(ascii: "<") {
            throw WarningError(
                source: source, reason: .malformed, detail: "the response is XML, not the JSON feed")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes[start...]), options: [])
        } catch {
            if isCutOff(bytes[start...]) {
                throw WarningError(
                    source: source, reason: .truncated,
                    detail: "the JSON ends after \(bytes.count) bytes with an object, array or string still open")
            }
            throw WarningError(source: source, reason: .malformed, detail: "the response is not valid JSON")
        }
    }

    /// The JSON object and its list under `key` (`features`, `warnings`, `alerts`).
    ///
    /// - Throws: as ``json(_:source:)``, and `malformed` when the JSON has no such list.
    static func list(_ data: Data, key: String, source: String) throws(WarningError)
        -> (root: [String: Any], items: [Any])
    {
        guard let root = try json(data, source: source) as? [String: Any], let items = root[key] as? [Any] else {
            throw WarningError(
                source: source, reason: .malformed, detail: "the response is JSON but has no \"\(key)\" list")
        }
        return (root, items)
    }

    /// A web page: `<!DOCTYPE html` or `<html` near the start.
    static func isHTML(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "<") else { return false }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.contains("<html")
    }

    /// Whether JSON text stops inside a string or with brackets still open: the mark of a body cut short.
    static func isCutOff(_ bytes: ArraySlice<UInt8>) -> Bool {
        var open: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"): open.append(UInt8(ascii: "}"))
            case UInt8(ascii: "["): open.append(UInt8(ascii: "]"))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // A closer that does not match what is open is broken JSON, not a cut-off one.
                guard open.popLast() == byte else { return false }
            default: break
            }
        }
        return inString || !open.isEmpty
    }
}

/// Typed reading of `JSONSerialization` output, where a wrong or missing field spoils only itself.
extension Dictionary where Key == String, Value == Any {
    /// A non-empty string with surrounding white space removed.
    func text(_ key: String) -> String? {
        guard let value = self[key] as? String else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }

    func objects(_ key: String) -> [[String: Any]] { (self[key] as? [Any])?.compactMap { $0 as? [String: Any] } ?? [] }

    /// Strings from a field that holds one string or a list of them (CAP `polygon` in MeteoAlarm's JSON).
    func texts(_ key: String) -> [String] {
        if let one = text(key) { return [one] }
        return (self[key] as? [Any])?.compactMap { ($0 as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty } ?? []
    }
}
