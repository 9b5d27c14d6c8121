import Foundation

/// A GeoJSON coordinate list read straight into numbers: `[[lon, lat], [lon, lat, alt], …]` as longitude and
/// latitude pairs (an altitude is dropped). ``JSONReader`` produces it instead of an array of arrays, so a
/// ring of 20,000 positions costs 320 kB rather than the 10 MB of boxed numbers a general JSON tree takes.
public struct GeoJSONPositions: Sendable, Hashable {
    /// Longitude, latitude, longitude, latitude, …
    public var values: [Double]

    public init(values: [Double]) {
        self.values = values
    }

    /// How many positions.
    public var count: Int { values.count / 2 }
}

/// Reads the JSON of warning feeds, bounded in depth, with the two shortcuts feeds need to stay small in memory:
///
/// - **Streaming a list.** ``stream(_:key:each:)`` hands each element of the root object's list (`features`,
///   `warnings`, `alerts`) to the decoder as soon as it is read and keeps none of them, so a feed of 10,000
///   warnings never exists as one tree: only the decoded warnings are kept.
/// - **Coordinates as numbers.** A list of 2- or 3-number arrays becomes one ``GeoJSONPositions``.
///
/// Everything else comes out as `JSONSerialization` gives it (`[String: Any]`, `[Any]`, `String`, `NSNumber`,
/// `NSNull`), so decoders read fields the same way. Strings may hold raw control characters (some services send
/// them); invalid UTF-8 is replaced, never fatal. HTTP-free, so it fuzzes alone.
public struct JSONReader {
    /// How deep arrays and objects may nest; GeoJSON needs 6 (a feature's multipolygon positions).
    public static let maxDepth = 64

    /// Why a body is not JSON: it stops while something is still open, or it breaks the grammar.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable {
            case truncated
            case malformed
        }

        public var kind: Kind
        /// The byte offset where reading stopped.
        public var offset: Int
        public var detail: String

        public var description: String { "\(detail) at byte \(offset)" }
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: Entry points

    /// The whole document as one value.
    public static func parse(_ data: Data) throws(Failure) -> Any {
        try withBytes(data) { (reader: inout JSONReader) throws(Failure) -> Any in
            let value = try reader.value()
            try reader.end()
            return value
        }
    }

    /// Reads a root object, handing each element of its list under `key` to `each` (its index and value)
    /// instead of keeping it; `each` returns false to skip the rest of the list (still checked as JSON).
    ///
    /// - Returns: the root object's other members, and whether the list was there.
    public static func stream(_ data: Data, key: String, each: (Int, Any) -> Bool) throws(Failure)
        -> (root: [String: Any], found: Bool)
    {
        try withBytes(data) { (reader: inout JSONReader) throws(Failure) -> ([String: Any], Bool) in
            let result = try reader.streamRoot(key: Array(key.utf8), each: each)
            try reader.end()
            return result
        }
    }

    private static func withBytes<T>(_ data: Data, _ body: (inout JSONReader) throws(Failure) -> T) throws(Failure)
        -> T
    {
        let result: Result<T, Failure> = data.withUnsafeBytes { raw in
            var reader = JSONReader(raw)
            do throws(Failure) {
                return .success(try body(&reader))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: The grammar

    private mutating func streamRoot(key: [UInt8], each: (Int, Any) -> Bool) throws(Failure) -> ([String: Any], Bool)
    {
        skipSpace()
        guard try peek() == UInt8(ascii: "{") else { throw fail(.malformed, "the document is not a JSON object") }
        index += 1
        try enter()
        var members: [String: Any] = [:]
        var found = false
        skipSpace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return (members, false)
        }
        while true {
            skipSpace()
            let (name, raw) = try keyBytes()
            skipSpace()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            if !found, raw == key, try peek() == UInt8(ascii: "[") {
                found = true
                try streamList(each)
            } else {
                members[name] = try value()
            }
            skipSpace()
            let byte = try next()
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { throw fail(.malformed, "expected , or } in an object", back: 1) }
        }
        depth -= 1
        return (members, found)
    }

    private mutating func streamList(_ each: (Int, Any) -> Bool) throws(Failure) {
        index += 1  // [
        try enter()
        defer { depth -= 1 }
        skipSpace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        var count = 0
        var wanted = true
        while true {
            skipSpace()
            let element = try value()
            if wanted { wanted = each(count, element) }
            count += 1
            skipSpace()
            let byte = try next()
            if byte == UInt8(ascii: "]") { return }
            guard byte == UInt8(ascii: ",") else { throw fail(.malformed, "expected , or ] in an array", back: 1) }
        }
    }

    private mutating func value() throws(Failure) -> Any {
        skipSpace()
        switch try peek() {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"):
            try literal("true")
            return NSNumber(value: true)
        case UInt8(ascii: "f"):
            try literal("false")
            return NSNumber(value: false)
        case UInt8(ascii: "n"):
            try literal("null")
            return NSNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fail(.malformed, "unexpected character")
        }
    }

    private mutating func object() throws(Failure) -> [String: Any] {
        index += 1
        try enter()
        defer { depth -= 1 }
        var members: [String: Any] = [:]
        skipSpace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipSpace()
            let (name, _) = try keyBytes()
            skipSpace()
            try expect(UInt8(ascii: ":"))
            members[name] = try value()
            skipSpace()
            let byte = try next()
            if byte == UInt8(ascii: "}") { return members }
            guard byte == UInt8(ascii: ",") else { throw fail(.malformed, "expected , or } in an object", back: 1) }
        }
    }

    private mutating func array() throws(Failure) -> Any {
        let start = index
        if let positions = try positions() { return positions }
        index = start + 1
        try enter()
        defer { depth -= 1 }
        var elements: [Any] = []
        skipSpace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            elements.append(try value())
            skipSpace()
            let byte = try next()
            if byte == UInt8(ascii: "]") { return elements }
            guard byte == UInt8(ascii: ",") else { throw fail(.malformed, "expected , or ] in an array", back: 1) }
        }
    }

    /// A list of 2- or 3-number arrays read as numbers; nil (with `index` anywhere) when the array is not one,
    /// and the caller reads it again as a general array.
    private mutating func positions() throws(Failure) -> GeoJSONPositions? {
        index += 1  // [
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        guard depth + 2 <= Self.maxDepth else { return nil }
        var values: [Double] = []
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
            index += 1
            var count = 0
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                let byte = bytes[index]
                guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    return nil
                }
                let number = try numberValue()
                if count < 2 { values.append(number) }
                count += 1
                skipSpace()
                guard index < bytes.count else { return nil }
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ","), count < 3 else { return nil }
            }
            guard count >= 2 else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            let separator = bytes[index]
            index += 1
            if separator == UInt8(ascii: "]") { return GeoJSONPositions(values: values) }
            guard separator == UInt8(ascii: ",") else { return nil }
        }
    }

    private mutating func keyBytes() throws(Failure) -> (String, [UInt8]) {
        guard try peek() == UInt8(ascii: "\"") else { throw fail(.malformed, "expected a string as an object's key") }
        let raw = try stringBytes()
        return (String(decoding: raw, as: UTF8.self), raw)
    }

    private mutating func string() throws(Failure) -> String {
        // Most strings have no escape: made straight from the body, without a copy of their bytes first (a
        // CAP polygon can be megabytes).
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
            index = end + 1
            return text
        }
        return String(decoding: try stringBytes(), as: UTF8.self)
    }

    /// The bytes of a string with its escapes resolved; `index` is at its opening quote.
    private mutating func stringBytes() throws(Failure) -> [UInt8] {
        index += 1
        let start = index
        // Most strings have no escape: one copy.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let result = [UInt8](bytes[start..<index])
                index += 1
                return result
            }
            if byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        guard index < bytes.count else { throw fail(.truncated, "the body ends inside a string") }
        var result = [UInt8](bytes[start..<index])
        while true {
            guard index < bytes.count else { throw fail(.truncated, "the body ends inside a string") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return result }
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                continue
            }
            let escaped = try next()
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escaped)
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        result += Array(String(Character(Unicode.Scalar(0xFFFD)!)).utf8)
                        scalar = low
                    }
                }
                let character = Unicode.Scalar(scalar) ?? Unicode.Scalar(0xFFFD)!
                result += Array(String(Character(character)).utf8)
            default:
                throw fail(.malformed, "an unknown escape in a string", back: 1)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try next()
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail(.malformed, "a \\u escape that is not 4 hexadecimal digits", back: 1)
            }
            value = value * 16 + digit
        }
        return value
    }

    private mutating func number() throws(Failure) -> NSNumber {
        let start = index
        let value = try numberValue()
        // Integral literals stay integers, as JSONSerialization gives them.
        let text = bytes[start..<index]
        if text.count <= 18, !text.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
            var integer = 0
            for byte in text where byte != UInt8(ascii: "-") { integer = integer * 10 + Int(byte - UInt8(ascii: "0")) }
            return NSNumber(value: text.first == UInt8(ascii: "-") ? -integer : integer)
        }
        return NSNumber(value: value)
    }

    /// A number by JSON's grammar (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`), as a Double.
    private mutating func numberValue() throws(Failure) -> Double {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.index
            while reader.index < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.index]) {
                reader.index += 1
            }
            return reader.index - from
        }
        let integer = digits(&self)
        guard integer > 0 else {
            throw index >= bytes.count ? fail(.truncated, "the body ends inside a number") : fail(.malformed, "a number without digits")
        }
        if integer > 1, bytes[index - integer] == UInt8(ascii: "0") { throw fail(.malformed, "a number with a leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else {
                throw index >= bytes.count ? fail(.truncated, "the body ends inside a number") : fail(.malformed, "a number with no digit after its point")
            }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else {
                throw index >= bytes.count ? fail(.truncated, "the body ends inside a number") : fail(.malformed, "a number with an empty exponent")
            }
        }
        guard index - start <= 400 else { throw fail(.malformed, "a number longer than 400 characters") }
        // strtod on a terminated copy: the grammar above already holds, so it reads all of it.
        var text = [CChar](repeating: 0, count: index - start + 1)
        for offset in 0..<(index - start) { text[offset] = CChar(bitPattern: bytes[start + offset]) }
        return strtod(text, nil)
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count else { throw fail(.truncated, "the body ends inside \(word)") }
            guard bytes[index] == byte else { throw fail(.malformed, "unexpected character") }
            index += 1
        }
    }

    // MARK: Helpers

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maxDepth else {
            throw fail(.malformed, "arrays and objects nested deeper than \(Self.maxDepth) levels")
        }
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(Failure) -> UInt8 {
        guard index < bytes.count else { throw fail(.truncated, "the body ends while a value is expected") }
        return bytes[index]
    }

    private mutating func next() throws(Failure) -> UInt8 {
        let byte = try peek()
        index += 1
        return byte
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard try next() == byte else {
            throw fail(.malformed, "expected \(String(UnicodeScalar(byte)))", back: 1)
        }
    }

    private mutating func end() throws(Failure) {
        skipSpace()
        guard index == bytes.count else { throw fail(.malformed, "more after the end of the document") }
    }

    private func fail(_ kind: Failure.Kind, _ detail: String, back: Int = 0) -> Failure {
        Failure(kind: kind, offset: max(0, index - back), detail: detail)
    }
}
