import DBus
import Testing

@Suite("D-Bus types and values")
struct ValueTests {
    @Test(
        "Signatures parse into types and print back the same",
        arguments: ["s", "as", "a{sv}", "(ssv)", "a(tsav)", "aay", "a{sa{sv}}", "(y(bn)q)", "v", "ybnqiuxtdsog"])
    func signatureRoundTrip(signature: String) throws {
        let types = try DBusType.list(signature: signature)
        #expect(types.map(\.signature).joined() == signature)
    }

    @Test(
        "Malformed signatures are refused with the reason",
        arguments: [
            ("a{vs}", "basic"), ("(", "not closed"), ("()", "no fields"), ("a", "missing"), ("h", "file descriptors"),
            ("z", "not a type code"), ("a{sss}", "exactly one key and one value"),
        ])
    func malformedSignatures(signature: String, reason: String) {
        #expect {
            try DBusType.list(signature: signature)
        } throws: { error in
            guard case .invalidArgument(let text) = error as? DBusError else { return false }
            return text.contains(signature) && text.contains(reason)
        }
    }

    @Test("A signature longer than 255 bytes or nested deeper than 64 levels is refused")
    func signatureLimits() {
        #expect(throws: DBusError.self) { try DBusType.list(signature: String(repeating: "s", count: 256)) }
        #expect(throws: DBusError.self) { try DBusType(signature: String(repeating: "a", count: 70) + "s") }
        #expect((try? DBusType(signature: String(repeating: "a", count: 30) + "s")) != nil)
    }

    @Test("DBusType(signature:) takes exactly one complete type")
    func singleType() throws {
        #expect(try DBusType(signature: "a{sv}") == .dictionary(key: .string, value: .variant))
        #expect(throws: DBusError.self) { try DBusType(signature: "ss") }
        #expect(throws: DBusError.self) { try DBusType(signature: "") }
    }

    @Test("Values know their type, empty containers included")
    func valueTypes() {
        #expect(DBusValue.strings([]).type.signature == "as")
        #expect(DBusValue.variantDictionary([:]).type.signature == "a{sv}")
        #expect(DBusValue.variantDictionary(["urgency": .byte(2)]).type.signature == "a{sv}")
        #expect(DBusValue.structure([.string("a"), .variant(.uint32(1))]).type.signature == "(sv)")
        #expect(DBusValue.array(.array(.byte), []).type.signature == "aay")
    }

    @Test("validate() refuses what the wire cannot carry")
    func validation() throws {
        let refused: [DBusValue] = [
            .string("nul\u{0}inside"),
            .objectPath("relative/path"),
            .objectPath("/trailing/"),
            .objectPath("/double//slash"),
            .objectPath("/bad-character"),
            .signature("a{vs}"),
            .array(.string, [.string("fine"), .uint32(1)]),
            .dictionary(key: .string, value: .variant, [DBusDictionaryEntry(key: .string("k"), value: .string("v"))]),
            .dictionary(key: .variant, value: .string, []),
            .structure([]),
            .variant(.array(.string, [.int32(1)])),
        ]
        for value in refused {
            #expect(throws: DBusError.self, "\(value) should be refused") { try value.validate() }
        }
        let accepted: [DBusValue] = [
            .string("é ☂ 🌧"), .objectPath("/"), .objectPath("/org/freedesktop/Notifications"),
            .signature("a{sv}"), .strings(["a", "b"]), .variantDictionary(["category": .string("x-forecastd.warning")]),
        ]
        for value in accepted { try value.validate() }
    }

    @Test("Readers give the contents of values of the right kind only")
    func readers() {
        let hints = DBusValue.variantDictionary(["urgency": .byte(2), "category": .string("weather")])
        #expect(hints["urgency"] == .variant(.byte(2)))
        #expect(hints["urgency"]?.variant?.byte == 2)
        #expect(hints["missing"] == nil)
        #expect(DBusValue.strings(["a"]).strings == ["a"])
        #expect(DBusValue.uint32(3).int32 == nil)
        #expect(DBusValue.objectPath("/a").string == "/a")
    }
}

@Suite("Session bus address")
struct AddressTests {
    @Test("DBUS_SESSION_BUS_ADDRESS comes first")
    func environmentAddress() throws {
        let address = try DBusAddress.session(environment: [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/somewhere/bus", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(address == "unix:path=/somewhere/bus")
    }

    @Test("Without either variable there is no session bus, and the error says which were looked at")
    func nothingSet() {
        #expect {
            try DBusAddress.session(environment: [:])
        } throws: { error in
            guard case .noSessionBus(let reason) = error as? DBusError else { return false }
            return reason.contains("DBUS_SESSION_BUS_ADDRESS") && reason.contains("XDG_RUNTIME_DIR")
        }
    }

    @Test("XDG_RUNTIME_DIR without a bus socket in it is no session bus either")
    func runtimeDirectoryWithoutSocket() {
        #expect {
            try DBusAddress.session(environment: ["XDG_RUNTIME_DIR": "/nonexistent-runtime-dir"])
        } throws: { error in
            guard case .noSessionBus(let reason) = error as? DBusError else { return false }
            return reason.contains("/nonexistent-runtime-dir/bus")
        }
    }

    @Test("Address values escape what D-Bus addresses reserve")
    func escaping() {
        #expect(DBusAddress.escape("/run/user/1000") == "/run/user/1000")
        #expect(DBusAddress.escape("/tmp/a b,c=d;é") == "/tmp/a%20b%2cc%3dd%3b%c3%a9")
    }
}
