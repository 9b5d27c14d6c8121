import CSDBus

/// Writes values into and reads them out of sd-bus messages through sd-bus's non-variadic calls
/// (`sd_bus_message_append_basic`, `open_container`/`close_container`, `peek_type`, `enter_container`,
/// `read_basic`). Runs only on the descriptor waiter's thread, like everything else that touches sd-bus.
enum MessageCoding {
    // MARK: Writing

    /// Appends `value` to `message`; the value was validated beforehand.
    static func append(_ value: DBusValue, to message: OpaquePointer) throws(DBusError) {
        switch value {
        case .byte(let number): try appendBasic(number, "y", to: message)
        // sd-bus takes booleans as a C int.
        case .boolean(let flag): try appendBasic(Int32(flag ? 1 : 0), "b", to: message)
        case .int16(let number): try appendBasic(number, "n", to: message)
        case .uint16(let number): try appendBasic(number, "q", to: message)
        case .int32(let number): try appendBasic(number, "i", to: message)
        case .uint32(let number): try appendBasic(number, "u", to: message)
        case .int64(let number): try appendBasic(number, "x", to: message)
        case .uint64(let number): try appendBasic(number, "t", to: message)
        case .double(let number): try appendBasic(number, "d", to: message)
        case .string(let text):
            try appendText(text, type: "s", to: message)
        case .objectPath(let text):
            try appendText(text, type: "o", to: message)
        case .signature(let text):
            try appendText(text, type: "g", to: message)
        case .variant(let inner):
            try container("v", inner.type.signature, message) { () throws(DBusError) in
                try append(inner, to: message)
            }
        case .array(let element, let elements):
            try container("a", element.signature, message) { () throws(DBusError) in
                for element in elements { try append(element, to: message) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = key.signature + valueType.signature
            try container("a", "{" + entrySignature + "}", message) { () throws(DBusError) in
                for entry in entries {
                    try container("e", entrySignature, message) { () throws(DBusError) in
                        try append(entry.key, to: message)
                        try append(entry.value, to: message)
                    }
                }
            }
        case .structure(let fields):
            try container("r", fields.map(\.type.signature).joined(), message) { () throws(DBusError) in
                for field in fields { try append(field, to: message) }
            }
        }
    }

    /// For fixed-size types sd-bus takes a pointer to the value.
    private static func appendBasic<Number: BitwiseCopyable>(
        _ value: Number, _ type: Character, to message: OpaquePointer
    ) throws(DBusError) {
        var value = value
        try check(sd_bus_message_append_basic(message, code(type), &value), "appending a value of type \(type)")
    }

    /// For string types sd-bus takes the string itself, not a pointer to it.
    private static func appendText(_ text: String, type: Character, to message: OpaquePointer) throws(DBusError) {
        let result = text.withCString { sd_bus_message_append_basic(message, code(type), $0) }
        if result == -EINVAL {
            // sd-bus refuses object paths and signatures it finds malformed with EINVAL.
            throw .invalidArgument("sd-bus refused \"\(text)\" as a value of type \(type)")
        }
        try check(result, "appending a value of type \(type)")
    }

    private static func container(
        _ type: Character, _ contents: String, _ message: OpaquePointer, _ body: () throws(DBusError) -> Void
    ) throws(DBusError) {
        try check(
            contents.withCString { sd_bus_message_open_container(message, code(type), $0) },
            "opening a container \(type) of \(contents)")
        try body()
        try check(sd_bus_message_close_container(message), "closing a container \(type) of \(contents)")
    }

    // MARK: Reading

    /// Reads the whole body of `message` (or the rest of the container it is in) into values.
    static func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readNext(message) { values.append(value) }
        return values
    }

    /// Reads the next value, or nil at the end of the current container.
    private static func readNext(_ message: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        try check(peeked, "reading a value's type")
        if peeked == 0 { return nil }
        let inner = contents.map { String(cString: $0) } ?? ""

        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try readBasic(message, type, UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try readBasic(message, type, Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try readBasic(message, type, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try readBasic(message, type, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try readBasic(message, type, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try readBasic(message, type, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try readBasic(message, type, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try readBasic(message, type, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try readBasic(message, type, Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            // The string stays owned by the message; copy it out at once.
            let text = try readBasic(message, type, UnsafePointer<CChar>?.none)
            let string = text.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "s"): return .string(string)
            case UInt8(ascii: "o"): return .objectPath(string)
            default: return .signature(string)
            }
        case UInt8(ascii: "v"):
            let values = try readContainer(message, type, inner)
            guard values.count == 1 else {
                throw .unexpectedReply("a variant of \(inner) held \(values.count) values")
            }
            return .variant(values[0])
        case UInt8(ascii: "r"):
            return .structure(try readContainer(message, type, inner))
        case UInt8(ascii: "a"):
            if inner.hasPrefix("{") {
                let entryType = try DBusType(signature: "a" + inner)
                guard case .dictionary(let keyType, let valueType) = entryType else {
                    throw .unexpectedReply("\"a\(inner)\" is not a dictionary")
                }
                let entrySignature = String(inner.dropFirst().dropLast())
                var entries: [DBusDictionaryEntry] = []
                try enter(message, type, inner)
                while true {
                    var entryCode: CChar = 0
                    var entryContents: UnsafePointer<CChar>?
                    let more = sd_bus_message_peek_type(message, &entryCode, &entryContents)
                    try check(more, "reading a dictionary entry")
                    if more == 0 { break }
                    let pair = try readContainer(message, code("e"), entrySignature)
                    guard pair.count == 2 else {
                        throw .unexpectedReply("a dictionary entry of \(entrySignature) held \(pair.count) values")
                    }
                    entries.append(DBusDictionaryEntry(key: pair[0], value: pair[1]))
                }
                try check(sd_bus_message_exit_container(message), "leaving a dictionary")
                return .dictionary(key: keyType, value: valueType, entries)
            }
            let elementType = try DBusType(signature: inner)
            return .array(elementType, try readContainer(message, type, inner))
        default:
            throw .unexpectedReply(
                "values of type \"\(Character(Unicode.Scalar(UInt8(bitPattern: type))))\" are not supported")
        }
    }

    private static func readContainer(_ message: OpaquePointer, _ type: CChar, _ contents: String) throws(DBusError)
        -> [DBusValue]
    {
        try enter(message, type, contents)
        let values = try readAll(message)
        try check(sd_bus_message_exit_container(message), "leaving a container of \(contents)")
        return values
    }

    private static func enter(_ message: OpaquePointer, _ type: CChar, _ contents: String) throws(DBusError) {
        try check(
            contents.withCString { sd_bus_message_enter_container(message, type, $0) },
            "entering a container of \(contents)")
    }

    /// Reads a fixed-size value, or for string types the pointer to the message's own copy of the string.
    private static func readBasic<T: BitwiseCopyable>(_ message: OpaquePointer, _ type: CChar, _ initial: T)
        throws(DBusError) -> T
    {
        var value = initial
        try check(sd_bus_message_read_basic(message, type, &value), "reading a value")
        return value
    }

    // MARK: Helpers

    static func code(_ type: Character) -> CChar {
        CChar(bitPattern: type.asciiValue ?? 0)
    }

    /// Turns an sd-bus return value (a negative errno on failure) into a thrown error.
    static func check(_ result: Int32, _ operation: String) throws(DBusError) {
        guard result < 0 else { return }
        throw .system(operation: operation, code: -result)
    }
}

