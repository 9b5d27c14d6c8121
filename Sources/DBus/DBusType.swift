/// A D-Bus type, the parsed form of one complete type in a signature (`s`, `as`, `a{sv}`, `(ssv)`).
///
/// Unix file descriptors (`h`) are left out on purpose: nothing forecastd talks to passes them, and carrying one
/// safely needs ownership rules this module does not need yet.
public indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte
    case boolean
    case int16
    case uint16
    case int32
    case uint32
    case int64
    case uint64
    case double
    case string
    case objectPath
    case signature
    case variant
    /// `aT`: an array of `T`.
    case array(DBusType)
    /// `a{KV}`: a dictionary; `key` is a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(T…)`: a structure of at least one field.
    case structure([DBusType])

    /// The type as it is written in a signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    public var description: String { signature }

    /// Whether the type is basic (a number, boolean or string kind): only basic types may be dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// Parses a signature holding exactly one complete type.
    public init(signature: String) throws(DBusError) {
        let types = try DBusType.list(signature: signature)
        guard types.count == 1 else {
            throw .invalidArgument("the signature \"\(signature)\" holds \(types.count) types, expected exactly one")
        }
        self = types[0]
    }

    /// Parses a signature of zero or more complete types, as a message body's signature is.
    public static func list(signature: String) throws(DBusError) -> [DBusType] {
        var parser = SignatureParser(signature: signature)
        var types: [DBusType] = []
        while !parser.atEnd {
            types.append(try parser.completeType(depth: 0))
        }
        return types
    }
}

/// A recursive-descent reader of D-Bus signatures, with the specification's limits (255 bytes, 32 nested arrays
/// and 32 nested structures; one overall depth of 64 is checked here as the simpler bound).
private struct SignatureParser {
    let signature: String
    let characters: [UInt8]
    var position = 0

    init(signature: String) {
        self.signature = signature
        self.characters = Array(signature.utf8)
    }

    var atEnd: Bool { position >= characters.count }

    private func failure(_ problem: String) -> DBusError {
        .invalidArgument("the signature \"\(signature)\" is not valid: \(problem)")
    }

    mutating func completeType(depth: Int) throws(DBusError) -> DBusType {
        guard characters.count <= 255 else { throw failure("longer than 255 bytes") }
        guard depth < 64 else { throw failure("nested deeper than 64 levels") }
        guard !atEnd else { throw failure("a type is missing at the end") }
        let code = characters[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "h"):
            throw failure("unix file descriptors (h) are not supported")
        case UInt8(ascii: "a"):
            if !atEnd && characters[position] == UInt8(ascii: "{") {
                position += 1
                let key = try completeType(depth: depth + 1)
                guard key.isBasic else { throw failure("a dictionary key must be a basic type, not \(key)") }
                let value = try completeType(depth: depth + 1)
                guard !atEnd && characters[position] == UInt8(ascii: "}") else {
                    throw failure("a dictionary entry holds exactly one key and one value")
                }
                position += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try completeType(depth: depth + 1))
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while !atEnd && characters[position] != UInt8(ascii: ")") {
                fields.append(try completeType(depth: depth + 1))
            }
            guard !atEnd else { throw failure("a structure is not closed") }
            guard !fields.isEmpty else { throw failure("a structure has no fields") }
            position += 1
            return .structure(fields)
        default:
            throw failure("\"\(Character(Unicode.Scalar(code)))\" at offset \(position - 1) is not a type code")
        }
    }
}
