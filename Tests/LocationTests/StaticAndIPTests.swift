import Fetching
import ForecastModel
import Foundation
import Location
import NIOHTTP1
import TestSupport
import Testing

@Suite("The static location file (/etc/geolocation)")
struct StaticLocationFileTests {
    @Test("GeoClue's own example parses: four values with comments")
    func geoclueExample() throws {
        let text = """
            # Example /etc/geolocation file
            40.6893129   # latitude
            -74.0445531  # longitude
            96           # altitude
            1.83         # accuracy radius (the diameter of the torch is 12 feet)
            """
        let file = try StaticLocationFile.parse(text, path: "/etc/geolocation")
        #expect(file.coordinate == Coordinate(latitude: 40.6893129, longitude: -74.0445531))
        #expect(file.altitudeMeters == 96)
        #expect(file.accuracyMeters == 1.83)
    }

    @Test("latitude and longitude alone are enough; blank lines and comment lines are skipped")
    func twoValues() throws {
        let file = try StaticLocationFile.parse("\n# home\n\n59.9127\n\n10.7461\n", path: "f")
        #expect(file.coordinate == Coordinate(latitude: 59.9127, longitude: 10.7461))
        #expect(file.altitudeMeters == nil)
        #expect(file.accuracyMeters == nil)
    }

    @Test(
        "bad files are refused with the path, the line and what is allowed",
        arguments: [
            ("40.7\nwest\n", "/etc/geolocation:2: longitude \"west\" is not a number"),
            ("40.7\n", "/etc/geolocation: expected a latitude and a longitude, one per line (found 1 values)"),
            ("# nothing\n", "/etc/geolocation: expected a latitude and a longitude, one per line (found 0 values)"),
            ("91\n10\n", "/etc/geolocation:1: latitude 91.0 is out of range (allowed: -90 to 90)"),
            ("45\n\n-190\n", "/etc/geolocation:3: longitude -190.0 is out of range (allowed: -180 to 180)"),
            ("0\n0\n", "/etc/geolocation:1: (0, 0) is not a real position"),
            ("45\n10\n100\n-5\n", "/etc/geolocation:4: accuracy -5.0 is negative"),
            ("45\n10\n100\n5\n7\n", "/etc/geolocation:5: unexpected \"7\": the file holds at most four values"),
        ])
    func badFiles(text: String, expected: String) {
        #expect {
            _ = try StaticLocationFile.parse(text, path: "/etc/geolocation")
        } throws: { error in
            (error as? StaticLocationFile.ParseError)?.description.hasPrefix(expected) == true
        }
    }

    @Test("the provider reports a missing file as no position, then follows edits of the file")
    func providerFollowsEdits() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fd-static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("geolocation").path
        let provider = StaticFileLocationProvider(path: path, pollInterval: .milliseconds(20))
        let recorder = EventRecorder()
        let task = Task { await provider.run { recorder.append($0) } }
        defer { task.cancel() }

        #expect(await recorder.first(within: 5) { $0 == .noFix(source: .staticFile) } != nil)
        try "48.8566\n2.3522\n35\n10\n".write(toFile: path, atomically: true, encoding: .utf8)
        let fix = await recorder.first(within: 5) {
            if case .fix(let fix) = $0 { return fix.coordinate == Coordinate(latitude: 48.8566, longitude: 2.3522) }
            return false
        }
        #expect(fix != nil)
        if case .fix(let fix)? = fix?.event {
            #expect(fix.source == .staticFile)
            #expect(fix.accuracyMeters == 10)
        }
        let afterFix = recorder.all.count
        try "48.8566\nparis\n".write(toFile: path, atomically: true, encoding: .utf8)
        let problem = await recorder.first(from: afterFix, within: 5) {
            if case .unavailable(.staticFile, let reason) = $0 { return reason == "\(path):2: longitude \"paris\" is not a number (expected decimal degrees for latitude and longitude, metres for altitude and accuracy)" }
            return false
        }
        #expect(problem != nil)
    }
}

@Suite("IP geolocation answers")
struct IPGeolocationDecodingTests {
    func answer(_ fixture: String, status: Int = 200, headers: [(String, String)] = []) throws -> HTTPAnswer {
        HTTPAnswer(
            status: status, headers: HTTPHeaders(headers), body: try Array(Fixtures.data("ip-geolocation/\(fixture)")))
    }

    @Test(
        "every service's answer gives its position, city and country",
        arguments: [
            (IPGeolocationService.ipinfo, "ipinfo-mountain-view.json", 37.4056, -122.0775, "Mountain View", "US"),
            (.ipapi, "ipapi-mountain-view.json", 37.42301, -122.083352, "Mountain View", "US"),
            (.ipAPI, "ip-api-montreal.json", 45.6085, -73.5493, "Montreal", "CA"),
            (.ifconfig, "ifconfig-oslo.json", 59.9127, 10.7461, "Oslo", "NO"),
        ])
    func decodes(service: IPGeolocationService, fixture: String, latitude: Double, longitude: Double, city: String, country: String) throws {
        let result = try service.decode(answer(fixture)).get()
        #expect(result.coordinate == Coordinate(latitude: latitude, longitude: longitude))
        #expect(result.city == city)
        #expect(result.countryCode == country)
        let fix = result.fix(receivedAt: Date(timeIntervalSince1970: 0))
        #expect(fix.source == .ip)
        #expect(fix.accuracyMeters == 15_000)
    }

    @Test(
        "errors sent with HTTP 200 are errors, not positions",
        arguments: [
            (IPGeolocationService.ipapi, "ipapi-200-rate-limited.json", IPGeolocationFailure.Kind.rateLimited, "rate limited (RateLimited)"),
            (.ipapi, "ipapi-reserved.json", .serviceError, "Reserved IP Address"),
            (.ipAPI, "ip-api-fail-reserved.json", .serviceError, "status \"fail\": reserved range"),
            (.ipinfo, "ipinfo-bogon.json", .serviceError, "the address is private (bogon), so it has no position"),
        ])
    func errorsWithStatus200(service: IPGeolocationService, fixture: String, kind: IPGeolocationFailure.Kind, detail: String) throws {
        let result = service.decode(try answer(fixture))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.kind == kind)
        #expect(failure.detail == detail)
    }

    @Test("a 429 is a rate limit that honours Retry-After; ip-api's X-Rl/X-Ttl count too")
    func rateLimits() throws {
        let limited = IPGeolocationService.ipinfo.decode(try answer("ipinfo-429-rate-limited.json", status: 429, headers: [("Retry-After", "7200")]))
        guard case .failure(let failure) = limited else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.kind == .rateLimited)
        #expect(failure.retryAfter == .seconds(7200))

        let ipAPI = IPGeolocationService.ipAPI.decode(
            HTTPAnswer(status: 429, headers: HTTPHeaders([("X-Rl", "0"), ("X-Ttl", "42")]), body: []))
        guard case .failure(let ttl) = ipAPI else {
            Issue.record("expected a failure")
            return
        }
        #expect(ttl.kind == .rateLimited)
        #expect(ttl.retryAfter == .seconds(42))
    }

    @Test("HTML, truncated JSON, missing or null-island coordinates are bad answers")
    func badAnswers() {
        func decode(_ service: IPGeolocationService, _ body: String, status: Int = 200) -> IPGeolocationFailure? {
            if case .failure(let failure) = service.decode(HTTPAnswer(status: status, headers: [:], body: Array(body.utf8))) {
                return failure
            }
            return nil
        }
        #expect(decode(.ipinfo, "<html><body>Bad gateway</body></html>")?.detail == "an HTML page instead of JSON")
        #expect(decode(.ipinfo, "<html>502</html>", status: 502)?.detail == "HTTP 502 with an HTML page")
        #expect(decode(.ipapi, "{\"latitude\": 37.4, \"longit")?.kind == .badResponse)
        #expect(decode(.ipapi, "{\"city\": \"Nowhere\"}")?.detail == "the answer has no coordinates")
        #expect(decode(.ipapi, "{\"latitude\": null, \"longitude\": null}")?.detail == "the answer has no coordinates")
        #expect(decode(.ipAPI, "{\"status\":\"success\",\"lat\":0,\"lon\":0}")?.detail == "the answer's position (0.0, 0.0) is not a real one")
        #expect(decode(.ipinfo, "{\"loc\": \"37.4\"}")?.detail == "the answer has no coordinates")
        #expect(decode(.ifconfig, "{\"latitude\": \"59.9\", \"longitude\": \"10.7\"}") == nil)
    }
}

@Suite("JumpFilter holds back impossible jumps of gpsd positions")
struct JumpFilterTests {
    let start = Date(timeIntervalSince1970: 1_750_000_000)
    let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
    let sydney = Coordinate(latitude: -33.8688, longitude: 151.2093)

    func fix(_ coordinate: Coordinate, after seconds: Double, accuracy: Double? = 10) -> LocationFix {
        LocationFix(
            coordinate: coordinate, source: .gpsd, accuracyMeters: accuracy, fixTime: start.addingTimeInterval(seconds),
            receivedAt: start.addingTimeInterval(seconds))
    }

    @Test("driving is accepted; one glitch to the other side of the world is held and then forgotten")
    func glitchHeld() {
        var filter = JumpFilter(maxSpeedKmh: 1200)
        #expect(filter.consider(fix(paris, after: 0)) == .accepted)
        let driven = Coordinate(latitude: 48.8566, longitude: 2.3522 + 0.03)  // about 2.2 km in 60 s: 130 km/h
        #expect(filter.consider(fix(driven, after: 60)) == .accepted)
        guard case .held(let speed) = filter.consider(fix(sydney, after: 61)) else {
            Issue.record("the jump was not held")
            return
        }
        #expect(speed > 1_000_000)
        #expect(filter.consider(fix(driven, after: 62)) == .accepted)
        #expect(filter.accepted?.coordinate == driven)
    }

    @Test("a real move (the receiver switched on after a flight) is confirmed by the fixes that follow")
    func confirmedByFollowingFixes() {
        var filter = JumpFilter(maxSpeedKmh: 1200, confirmations: 2)
        _ = filter.consider(fix(paris, after: 0))
        #expect(filter.consider(fix(sydney, after: 1)) != .accepted)
        let near = Coordinate(latitude: -33.8690, longitude: 151.2095)
        #expect(filter.consider(fix(near, after: 2)) != .accepted)
        #expect(filter.consider(fix(sydney, after: 3)) == .confirmed)
        #expect(filter.accepted?.coordinate == sydney)
    }

    @Test("after a long gap a far position is plausible: speed is distance over the time between fixes")
    func longGapIsPlausible() {
        var filter = JumpFilter(maxSpeedKmh: 1200)
        _ = filter.consider(fix(paris, after: 0))
        // Paris to Sydney is about 16,960 km; 20 hours later that is 850 km/h, an airliner.
        #expect(filter.consider(fix(sydney, after: 20 * 3600)) == .accepted)
    }

    @Test("noise within the fixes' accuracy and within a kilometre never counts as a jump")
    func noiseIsNotAJump() {
        var filter = JumpFilter(maxSpeedKmh: 10)
        _ = filter.consider(fix(paris, after: 0, accuracy: 300))
        let jitter = Coordinate(latitude: 48.8566 + 0.005, longitude: 2.3522)  // 560 m in one second
        #expect(filter.consider(fix(jitter, after: 1, accuracy: 300)) == .accepted)
    }
}

/// IP lookups' row of the one mapping (the substrate plan's section 2b), every kind once.
@Suite("Transport failures as IPGeolocationFailure")
struct IPGeolocationFailureMappingTests {
    @Test(
        "Each FetchFailure kind maps to one IPGeolocationFailure kind, the sentence kept",
        arguments: [
            (FetchFailure.Kind.offline, IPGeolocationFailure.Kind.offline), (.timeout, .timeout),
            (.closed, .serviceError), (.truncated, .badResponse), (.tooLarge(limit: 1024), .badResponse),
            (.malformed, .badResponse), (.invalidURL, .serviceError), (.unexpectedNotModified, .badResponse),
        ])
    func failure(kind: FetchFailure.Kind, expected: IPGeolocationFailure.Kind) {
        let failure = IPGeolocationFailure(FetchFailure(service: "x", kind: kind, detail: "what happened"), service: .ipinfo)
        #expect(failure.kind == expected)
        #expect(failure.description == "ipinfo: what happened")
        #expect(failure.retryAfter == nil)
    }
}
