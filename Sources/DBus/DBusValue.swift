/// A D-Bus value: what a method call carries as an argument and what replies and signals carry back.
///
/// Containers say their element types, so that an empty array or dictionary still has a signature
/// (`DBusValue.array(.string, [])` is `as`). ``validate()`` checks that the elements agree with them; the
/// connection validates every argument before anything is sent.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A value that carries its own type (`v`).
    case variant(DBusValue)
    /// An array whose elements are all of type `element`.
    case array(DBusType, [DBusValue])
    /// A dictionary (`a{KV}`); entries keep their order, as on the wire.
    case dictionary(key: DBusType, value: DBusType, [DBusDictionaryEntry])
    /// A structure: its fields, in order.
    case structure([DBusValue])

    /// The value's type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// Checks what the wire format requires and Swift's types do not: containers' elements of the declared type,
    /// dictionary keys of a basic type, strings without NUL characters, valid object paths and signatures.
    public func validate() throws(DBusError) {
        switch self {
        case .string(let text):
            guard !text.utf8.contains(0) else {
                throw .invalidArgument("a string contains a NUL character, which D-Bus strings cannot carry")
            }
        case .objectPath(let path):
            guard Self.isValidObjectPath(path) else {
                throw .invalidArgument(
                    "\"\(path)\" is not an object path: expected \"/\" or \"/\"-separated elements of [A-Za-z0-9_]")
            }
        case .signature(let text):
            _ = try DBusType.list(signature: text)
        case .variant(let inner):
            try inner.validate()
        case .array(let element, let elements):
            for value in elements {
                guard value.type == element else {
                    throw .invalidArgument("an array of \(element) holds a value of type \(value.type)")
                }
                try value.validate()
            }
        case .dictionary(let key, let valueType, let entries):
            guard key.isBasic else { throw .invalidArgument("a dictionary key must be a basic type, not \(key)") }
            for entry in entries {
                guard entry.key.type == key, entry.value.type == valueType else {
                    throw .invalidArgument(
                        "a dictionary of {\(key)\(valueType)} holds an entry of {\(entry.key.type)\(entry.value.type)}")
                }
                try entry.key.validate()
                try entry.value.validate()
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgument("a structure must have at least one field") }
            for field in fields { try field.validate() }
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            break
        }
    }

    /// The rule of the D-Bus specification: "/" alone, or elements of [A-Za-z0-9_] each after one "/".
    static func isValidObjectPath(_ path: String) -> Bool {
        if path == "/" { return true }
        guard path.hasPrefix("/"), !path.hasSuffix("/") else { return false }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { element in
            !element.isEmpty
                && element.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                }
        }
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictionaryEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: Building values

extension DBusValue {
    /// An array of strings (`as`).
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(.string, strings.map { .string($0) })
    }

    /// A dictionary of strings to variants (`a{sv}`), the usual shape of options and hints; `value`s are wrapped in
    /// variants here.
    public static func variantDictionary(_ entries: KeyValuePairs<String, DBusValue>) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            entries.map { DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value)) })
    }
}

// MARK: Reading values

extension DBusValue {
    public var byte: UInt8? { if case .byte(let value) = self { value } else { nil } }
    public var boolean: Bool? { if case .boolean(let value) = self { value } else { nil } }
    public var int32: Int32? { if case .int32(let value) = self { value } else { nil } }
    public var uint32: UInt32? { if case .uint32(let value) = self { value } else { nil } }
    public var int64: Int64? { if case .int64(let value) = self { value } else { nil } }
    public var uint64: UInt64? { if case .uint64(let value) = self { value } else { nil } }
    public var double: Double? { if case .double(let value) = self { value } else { nil } }

    /// The text of a string, object path or signature.
    public var string: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// The value inside a variant.
    public var variant: DBusValue? { if case .variant(let inner) = self { inner } else { nil } }

    /// The elements of an array.
    public var array: [DBusValue]? { if case .array(_, let elements) = self { elements } else { nil } }

    /// The strings of an array of strings.
    public var strings: [String]? {
        guard case .array(.string, let elements) = self else { return nil }
        return elements.compactMap(\.string)
    }

    /// The entries of a dictionary.
    public var dictionary: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = self { entries } else { nil }
    }

    /// The fields of a structure.
    public var fields: [DBusValue]? { if case .structure(let fields) = self { fields } else { nil } }

    /// Looks a string key up in a dictionary whose keys are strings; the value is returned as it is, so an
    /// `a{sv}`'s values come back as variants.
    public subscript(key: String) -> DBusValue? {
        dictionary?.first { $0.key == .string(key) }?.value
    }
}
