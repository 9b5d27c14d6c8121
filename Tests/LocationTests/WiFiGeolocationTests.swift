import ForecastModel
import Foundation
import Location
import TestSupport
import Testing

@Suite("Wi-Fi geolocation: the request, the answer, when to ask")
struct WiFiGeolocationTests {
    static let boot: Int64 = 100_000

    static func observation(
        _ address: String, ssid: String = "Net", strength: UInt8 = 60, frequency: UInt32 = 2412, age: Int64 = 2
    ) -> WiFiObservation {
        WiFiObservation(
            hardwareAddress: address, ssid: Array(ssid.utf8), strengthPercent: strength, frequencyMHz: frequency,
            lastSeen: Int32(boot - age))
    }

    // MARK: The request

    @Test("The body is exactly what the service documents, strongest first, with no SSID in it")
    func exactBody() {
        let request = WiFiGeolocationRequest(
            observations: [
                Self.observation("00:25:9C:CF:1C:AC", ssid: "Home", strength: 100, frequency: 2437, age: 0),
                Self.observation("00:25:9c:cf:1c:ad", ssid: "Neighbour", strength: 0, frequency: 5180, age: 7),
                Self.observation("84:1B:5E:00:00:01", ssid: "Cafe", strength: 50, frequency: 0, age: 61),
            ], bootTime: Self.boot)
        let body = String(decoding: request.body, as: UTF8.self)
        #expect(
            body
                == #"{"considerIp":false,"wifiAccessPoints":["#
                + #"{"macAddress":"00:25:9c:cf:1c:ac","signalStrength":-40,"frequency":2437,"age":0},"#
                + #"{"macAddress":"84:1b:5e:00:00:01","signalStrength":-70,"age":61000},"#
                + #"{"macAddress":"00:25:9c:cf:1c:ad","signalStrength":-100,"frequency":5180,"age":7000}]}"#)
        #expect(!body.contains("Home") && !body.contains("Cafe") && !body.contains("Neighbour"))
        #expect(request.canAsk)
        #expect(request.leftOut.total == 0)
        // It is JSON the service can read.
        #expect((try? JSONSerialization.jsonObject(with: Data(request.body))) != nil)
    }

    @Test("Left out: _nomap in any case, hidden, randomised, group, zero, unreadable, never or long ago seen")
    func leftOut() {
        let request = WiFiGeolocationRequest(
            observations: [
                Self.observation("00:25:9C:CF:1C:AC"),
                Self.observation("00:25:9C:CF:1C:AD", ssid: "Flat_nomap"),
                Self.observation("00:25:9C:CF:1C:AE", ssid: "Flat_NOMAP"),
                Self.observation("00:25:9C:CF:1C:AF", ssid: ""),
                WiFiObservation(
                    hardwareAddress: "00:25:9C:CF:1C:B0", ssid: [0, 0, 0], strengthPercent: 50, frequencyMHz: 2412,
                    lastSeen: Int32(Self.boot)),
                Self.observation("DA:A1:19:00:00:01", ssid: "Pixel hotspot"),
                Self.observation("02:00:00:00:00:01", ssid: "Random"),
                Self.observation("01:00:5E:00:00:01", ssid: "Group"),
                Self.observation("00:00:00:00:00:00", ssid: "Zero"),
                Self.observation("garbage", ssid: "Junk"),
                Self.observation("00:25:9C:CF:1C:B1", ssid: "Old", age: 16 * 60),
                WiFiObservation(
                    hardwareAddress: "00:25:9C:CF:1C:B2", ssid: Array("Never".utf8), strengthPercent: 50,
                    frequencyMHz: 2412, lastSeen: -1),
                Self.observation("00:25:9C:CF:1C:B3", ssid: "Second"),
            ], bootTime: Self.boot)
        #expect(request.accessPoints.map(\.bssid.description) == ["00:25:9c:cf:1c:ac", "00:25:9c:cf:1c:b3"])
        #expect(
            request.leftOut
                == .init(hidden: 2, optedOut: 2, randomised: 2, unreadable: 3, stale: 2, beyondLimit: 0))
        #expect(request.leftOut.summary == "2 hidden, 2 _nomap, 2 randomised, 3 unreadable, 2 not seen lately")
        #expect(request.canAsk)
    }

    @Test("Fewer than two access points is no request; more than twenty sends the strongest twenty")
    func counts() {
        let one = WiFiGeolocationRequest(observations: [Self.observation("00:25:9C:CF:1C:AC")], bootTime: Self.boot)
        #expect(!one.canAsk)
        // The same address twice (two adapters) counts once.
        let twice = WiFiGeolocationRequest(
            observations: [Self.observation("00:25:9C:CF:1C:AC"), Self.observation("00:25:9c:cf:1c:ac", strength: 90)],
            bootTime: Self.boot)
        #expect(!twice.canAsk)
        #expect(twice.accessPoints.first?.signalStrength == WiFiGeolocationRequest.signalStrength(percent: 90))
        let many = WiFiGeolocationRequest(
            observations: (0..<30).map { Self.observation(String(format: "00:25:9C:00:00:%02X", $0), strength: UInt8($0 * 3)) },
            bootTime: Self.boot)
        #expect(many.accessPoints.count == 20)
        #expect(many.leftOut.beyondLimit == 10)
        #expect(many.accessPoints.first?.bssid.description == "00:25:9c:00:00:1d")
    }

    @Test("NetworkManager's percentage goes back to dBm along its own line, -100 to -40")
    func strength() {
        #expect(WiFiGeolocationRequest.signalStrength(percent: 0) == -100)
        #expect(WiFiGeolocationRequest.signalStrength(percent: 100) == -40)
        #expect(WiFiGeolocationRequest.signalStrength(percent: 50) == -70)
        #expect(WiFiGeolocationRequest.signalStrength(percent: 255) == -40)
        // NetworkManager's own rounding: quality = 100 - (|dBm + 40| * 100 / 60) truncated.
        for dBm in -100 ... -40 {
            let percent = 100 - Int(Double(abs(dBm + 40)) * 100 / 60)
            let back = WiFiGeolocationRequest.signalStrength(percent: UInt8(percent))
            #expect(abs(back - dBm) <= 1, "dBm \(dBm) → \(percent) % → \(back)")
        }
    }

    // MARK: The answer

    @Test("Answers as beaconDB and Ichnaea write them")
    func recordedAnswers() throws {
        let position = WiFiGeolocationAnswer.decode(
            status: 200, body: Array(try Fixtures.data("geolocation/beacondb-200-position.json")))
        #expect(
            position
                == .position(WiFiPosition(coordinate: Coordinate(latitude: 52.516275, longitude: 13.377704), accuracyMeters: 50)))
        let ichnaea = WiFiGeolocationAnswer.decode(
            status: 200, body: Array(try Fixtures.data("geolocation/ichnaea-docs-200-position.json")))
        #expect(
            ichnaea
                == .position(
                    WiFiPosition(coordinate: Coordinate(latitude: -22.7539192, longitude: -43.4371081), accuracyMeters: 100)))
        #expect(
            WiFiGeolocationAnswer.decode(
                status: 404, body: Array(try Fixtures.data("geolocation/beacondb-404-not-found.json"))) == .notFound)
        #expect(
            WiFiGeolocationAnswer.decode(
                status: 200, body: Array(try Fixtures.data("geolocation/beacondb-200-fallback-ipf.json")))
                == .refused("the answer comes from the service's fallback (ipf), not from the access points"))
    }

    @Test("Refused: (0, 0), out of range, accuracy 0 or 10,000 km, wrong types, not JSON, too large")
    func refusals() {
        func decode(_ text: String, status: Int = 200) -> WiFiGeolocationAnswer {
            WiFiGeolocationAnswer.decode(status: status, body: Array(text.utf8))
        }
        #expect(
            decode(#"{"location":{"lat":0,"lng":0},"accuracy":50}"#)
                == .refused("the answer's position (0.0, 0.0) is not a real place"))
        #expect(decode(#"{"location":{"lat":91,"lng":10},"accuracy":50}"#) == .refused("the answer's position (91.0, 10.0) is not a real place"))
        #expect(decode(#"{"location":{"lat":50,"lng":-181},"accuracy":50}"#) == .refused("the answer's position (50.0, -181.0) is not a real place"))
        #expect(
            decode(#"{"location":{"lat":50,"lng":10},"accuracy":0}"#)
                == .refused("the answer's accuracy, 0.0 m, is not that of a Wi-Fi position (over 0, at most 100 km)"))
        #expect(
            decode(#"{"location":{"lat":50,"lng":10},"accuracy":10000000}"#)
                == .refused(
                    "the answer's accuracy, 10000000.0 m, is not that of a Wi-Fi position (over 0, at most 100 km)"))
        #expect(decode(#"{"location":{"lat":"50","lng":10},"accuracy":50}"#) == .refused("the answer has no location with lat and lng"))
        #expect(decode(#"{"location":{"lat":true,"lng":10},"accuracy":50}"#) == .refused("the answer has no location with lat and lng"))
        #expect(decode(#"{"location":{"lat":50,"lng":10}}"#) == .refused("the answer has no accuracy"))
        #expect(decode("<html><body>502 Bad Gateway</body></html>") == .refused("the answer is not a JSON object"))
        #expect(decode(#"{"location":{"lat":50,"#) == .refused("the answer is not a JSON object"))
        #expect(decode(#"[1,2]"#) == .refused("the answer is not a JSON object"))
        #expect(decode(String(repeating: "[", count: 10_000)) == .refused("the answer is not a JSON object"))
        let large = WiFiGeolocationAnswer.decode(status: 200, body: Array(repeating: 0x20, count: 70_000))
        #expect(large == .refused("the answer is 70000 bytes, more than the 65536 an answer can be"))
    }

    @Test("Statuses: 404 not found, 429 and daily limits slow down, others are the service's error with its words")
    func statuses() {
        #expect(WiFiGeolocationAnswer.decode(status: 404, body: Array("<html>".utf8)) == .notFound)
        #expect(WiFiGeolocationAnswer.decode(status: 429, body: []) == .rateLimited)
        let daily = #"{"error":{"errors":[{"domain":"usageLimits","reason":"dailyLimitExceeded","message":"x"}],"code":403,"message":"You have exceeded your daily limit."}}"#
        #expect(WiFiGeolocationAnswer.decode(status: 403, body: Array(daily.utf8)) == .rateLimited)
        let parse = #"{"error":{"errors":[{"domain":"global","reason":"parseError","message":"Parse Error"}],"code":400,"message":"Parse Error"}}"#
        #expect(
            WiFiGeolocationAnswer.decode(status: 400, body: Array(parse.utf8))
                == .serviceError("HTTP 400 (parseError): Parse Error"))
        #expect(WiFiGeolocationAnswer.decode(status: 502, body: Array("<html>".utf8)) == .serviceError("HTTP 502"))
    }
}
