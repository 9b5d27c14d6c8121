import AsyncHTTPClient
import Fetching
import ForecastModel
import Foundation
import Logging
import TestSupport
import Testing

@testable import WeatherProviders

/// Open-Meteo's Air Quality API: the request (rounded position, pollen only where it exists, one time
/// format), the recorded answers decoded, absurd values refused or dropped, and the hourly cadence
/// counted by the replay server under a clock the test moves.
@Suite("Air quality", .timeLimit(.minutes(3)))
struct AirQualityTests {
    static let path = "/v1/air-quality"
    static let enschedeFixture = "air-quality/python-open-meteo-air-quality-current-hourly-2026-10-03.json"
    static let brnoFixture = "air-quality/reflbo-air-quality-brno-2026-10-01.json"
    static let userAgent = "forecastd/0.3.0 (+mailto:ops@example.org)"
    /// 2026-10-03T10:07Z: seven minutes into the hour of the Enschede recording (12:00 at UTC+2).
    static let enschedeNow = Timestamps.parseUTC("2026-10-03T10:07:00Z")!
    static let enschede = Coordinate(latitude: 52.2215, longitude: 6.8937)
    static let newYork = Coordinate(latitude: 40.712_776, longitude: -74.005_974)

    static func provider(_ server: ReplayServer, _ client: HTTPClient, clock: ManualClock) -> OpenMeteoAirQualityProvider {
        OpenMeteoAirQualityProvider(
            url: server.url(path), fetcher: .test(client: client, userAgent: userAgent), now: { clock.now })
    }

    static func service(
        _ server: ReplayServer, _ client: HTTPClient, clock: ManualClock, logger: Logger = Logger(label: "test")
    ) -> AirQualityService {
        AirQualityService(
            provider: provider(server, client, clock: clock), coordinatePrecision: 2, logger: logger,
            now: { clock.now })
    }

    /// Runs `body` with a replay server answering with the Enschede recording, a service asking it, and
    /// the service's clock at ``enschedeNow``.
    static func withService(
        _ body: (ReplayServer, AirQualityService, ManualClock) async throws -> Void
    ) async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.enschedeNow)
            server.setRoute(path: Self.path, try .fixture(Self.enschedeFixture))
            try await body(server, Self.service(server, client, clock: clock), clock)
        }
    }

    /// The Enschede recording with `field` of `current` replaced by the JSON text `value`.
    static func enschede(with field: String, _ value: String) throws -> String {
        try enschedeText(String(decoding: try Fixtures.data(enschedeFixture), as: UTF8.self), with: field, value)
    }

    static func decodeEnschede(_ body: String, scale: AQIScale = .european) throws(ProviderError) -> AirQuality {
        try OpenMeteoAirQualityDecoder.decode(
            Array(body.utf8), scale: scale, fetchedAt: enschedeNow, now: enschedeNow)
    }

    // MARK: The request

    @Test("In Europe: the European index, its sub-indices, pollutants, UV and pollen; Unix times; rounded")
    func requestInEurope() async throws {
        try await Self.withService { server, service, _ in
            let outcome = await service.air(at: Self.enschede, scale: .european)
            #expect(outcome.requested)
            #expect(outcome.error == nil)

            let request = try #require(server.requests().first)
            #expect(request.method == "GET")
            #expect(request.header("User-Agent") == Self.userAgent)
            #expect(
                request.query == [
                    // Rounded to 2 decimals, as the provider chain rounds for the weather providers.
                    "latitude": "52.22", "longitude": "6.89",
                    "current": "european_aqi,european_aqi_pm2_5,european_aqi_pm10,european_aqi_ozone,"
                        + "european_aqi_nitrogen_dioxide,european_aqi_sulphur_dioxide,pm2_5,pm10,ozone,"
                        + "nitrogen_dioxide,uv_index,alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,"
                        + "olive_pollen,ragweed_pollen",
                    "timeformat": "unixtime",
                ])
            // 17 variables: 1.7 calls by Open-Meteo's count.
            #expect(OpenMeteoAirQualityProvider.variables(scale: .european, at: Self.enschede).count == 17)
        }
    }

    @Test("Outside Open-Meteo's pollen area, or switched off, no pollen is asked for")
    func noPollenOutsideEurope() async throws {
        try await Self.withService { server, service, _ in
            _ = await service.air(at: Self.newYork, scale: .us)
            let query = try #require(server.requests().last).query
            #expect(query["latitude"] == "40.71" && query["longitude"] == "-74.01")
            let current = try #require(query["current"])
            #expect(!current.contains("pollen"))
            #expect(
                current
                    == "us_aqi,us_aqi_pm2_5,us_aqi_pm10,us_aqi_ozone,us_aqi_nitrogen_dioxide,us_aqi_sulphur_dioxide,"
                    + "us_aqi_carbon_monoxide,pm2_5,pm10,ozone,nitrogen_dioxide,uv_index")
        }
        // Switched off in Europe: none asked either.
        try await Self.withService { server, service, _ in
            _ = await service.air(at: Self.enschede, scale: .european, pollen: false)
            let current = try #require(server.requests().last?.query["current"])
            #expect(!current.contains("pollen"))
            #expect(current.split(separator: ",").count == 11)
        }
        // The edges of the CAMS European grid, and places just beyond them.
        let inside = [(30.05, -24.95), (71.95, 44.95), (64.15, -21.94), (35.9, 14.5), (55.75, 37.62)]
        let outside = [(30.0, 10.0), (72.0, 20.0), (50.0, -25.0), (50.0, 45.0), (40.71, -74.01), (-33.9, 18.4)]
        for (latitude, longitude) in inside {
            #expect(OpenMeteoAirQualityProvider.hasPollen(at: Coordinate(latitude: latitude, longitude: longitude)))
        }
        for (latitude, longitude) in outside {
            #expect(!OpenMeteoAirQualityProvider.hasPollen(at: Coordinate(latitude: latitude, longitude: longitude)))
        }
    }

    // MARK: The recorded answers

    @Test("Enschede, ISO local times: European index 44 (moderate, mostly PM2.5), pollutants, UV, pollen")
    func decodeEnschede() throws {
        let text = String(decoding: try Fixtures.data(Self.enschedeFixture), as: UTF8.self)
        let air = try Self.decodeEnschede(text)
        #expect(air.provider == "open-meteo-air-quality")
        #expect(air.coordinate == Coordinate(latitude: 52.300003, longitude: 6.8999996))
        // 12:00 at UTC+2.
        #expect(air.time == Timestamps.parseUTC("2026-10-03T10:00:00Z"))
        #expect(air.fetchedAt == Self.enschedeNow)
        #expect(air.scale == .european)
        #expect(air.aqi == 44)
        #expect(air.category == .moderate)
        #expect(air.className == "aqi-moderate")
        #expect(air.dominant == .pm2_5)
        #expect(air.pm2_5 == 22.1)
        #expect(air.pm10 == 28.2)
        #expect(air.o3 == 42)
        #expect(air.no2 == 11.2)
        #expect(air.uvIndex == 2.1)
        #expect(air.pollen == Pollen(alder: 0, birch: 0, grass: 0, mugwort: 0, olive: 0, ragweed: 0))
        #expect(air.notes.isEmpty)

        let us = try Self.decodeEnschede(text, scale: .us)
        #expect(us.aqi == 65)
        #expect(us.category == .moderate)
        #expect(us.className == "aqi-fair")
        #expect(us.dominant == .pm2_5)
        #expect(us.text() == "Air quality moderate (US AQI 65, mostly PM2.5)")
    }

    @Test("Brno, Unix times, hourly only: the hour holding now, pollen in season")
    func decodeBrno() throws {
        // 2026-10-01T06:30Z: the hourly step of 06:00Z (1790834400), the ninth.
        let now = Timestamps.parseUTC("2026-10-01T06:30:00Z")!
        let body = try Fixtures.data(Self.brnoFixture)
        let air = try OpenMeteoAirQualityDecoder.decode(body, scale: .european, fetchedAt: now, now: now)
        #expect(air.time == Date(timeIntervalSince1970: 1_790_834_400))
        #expect(air.aqi == 30)
        #expect(air.category == .fair)
        #expect(air.pm2_5 == 10.0)
        #expect(air.pm10 == 13.6)
        #expect(air.dominant == nil)  // no sub-indices in this answer
        #expect(air.o3 == nil && air.no2 == nil && air.uvIndex == nil)
        #expect(air.pollen?.mugwort == 3.0)
        #expect(air.pollen?.ragweed == 0.8)
        #expect(air.pollen?.birch == 0)
        #expect(air.coordinate == Coordinate(latitude: 49.2, longitude: 16.600002))

        // The answer has no US index: refused, naming what is missing.
        let missing = #expect(throws: ProviderError.self) {
            try OpenMeteoAirQualityDecoder.decode(body, scale: .us, fetchedAt: now, now: now)
        }
        #expect(missing?.message == "open-meteo-air-quality: the response has no hourly[8].us_aqi")
        // Before its first hour or after its last there is nothing to show.
        let late = Timestamps.parseUTC("2026-10-05T00:00:00Z")!
        let outside = #expect(throws: ProviderError.self) {
            try OpenMeteoAirQualityDecoder.decode(body, scale: .european, fetchedAt: late, now: late)
        }
        #expect(
            outside?.message
                == "open-meteo-air-quality: the response has neither current values nor an hourly step for 2026-10-05T00:00:00Z")
    }

    // MARK: Absurd values

    @Test(
        "An absurd index refuses the whole answer, naming the field, the value and what is allowed",
        arguments: [
            ("-5", "current.european_aqi = -5 is outside the allowed 0…1000"),
            ("1e9", "current.european_aqi = 1000000000 is outside the allowed 0…1000"),
            ("\"high\"", "current.european_aqi = \"high\" is text, not a number"),
            ("\"NaN\"", "current.european_aqi = \"NaN\" is text, not a number"),
            ("true", "current.european_aqi is a boolean, not a number"),
            ("null", "the response has no current.european_aqi"),
        ])
    func absurdIndex(_ value: String, _ message: String) throws {
        let error = #expect(throws: ProviderError.self) {
            try Self.decodeEnschede(try Self.enschede(with: "european_aqi", value))
        }
        #expect(error?.kind == .badResponse)
        #expect(error?.message == "open-meteo-air-quality: \(message)")
    }

    @Test("Other absurd values are dropped one by one and named in the notes")
    func absurdFields() throws {
        var text = try Self.enschede(with: "pm10", "-3")
        text = try Self.enschedeText(text, with: "ozone", "1e9")
        text = try Self.enschedeText(text, with: "birch_pollen", "\"lots\"")
        text = try Self.enschedeText(text, with: "european_aqi_pm2_5", "5000")
        let air = try Self.decodeEnschede(text)
        #expect(air.aqi == 44)
        #expect(air.pm10 == nil)
        #expect(air.o3 == nil)
        #expect(air.pollen?.birch == nil)
        #expect(air.pollen?.grass == 0)
        #expect(air.pm2_5 == 22.1)
        // The absurd PM2.5 sub-index is dropped: PM10's (29) is the highest of the rest.
        #expect(air.dominant == .pm10)
        #expect(
            air.notes == [
                "open-meteo-air-quality: current.european_aqi_pm2_5 = 5000 is outside the allowed 0…1000; the value was dropped",
                "open-meteo-air-quality: current.pm10 = -3 is outside the allowed 0…10000; the value was dropped",
                "open-meteo-air-quality: current.ozone = 1000000000 is outside the allowed 0…10000; the value was dropped",
                "open-meteo-air-quality: current.birch_pollen = \"lots\" is text, not a number; the value was dropped",
            ])
    }

    @Test("Units that are not the scale's or µg/m³ are refused for the index and dropped elsewhere")
    func wrongUnits() throws {
        let text = String(decoding: try Fixtures.data(Self.enschedeFixture), as: UTF8.self)
        let index = text.replacingOccurrences(of: "\"european_aqi\": \"EAQI\"", with: "\"european_aqi\": \"USAQI\"")
        let error = #expect(throws: ProviderError.self) { try Self.decodeEnschede(index) }
        #expect(error?.message == "open-meteo-air-quality: current.european_aqi is in \"USAQI\", not EAQI")

        let ppm = text.replacingOccurrences(of: "\"ozone\": \"\\u03bcg/m\\u00b3\"", with: "\"ozone\": \"ppm\"")
        #expect(ppm != text)
        let air = try Self.decodeEnschede(ppm)
        #expect(air.o3 == nil)
        #expect(air.notes == ["open-meteo-air-quality: current.ozone is in \"ppm\", not μg/m³; the value was dropped"])
    }

    @Test("Bodies that are not a usable answer are refused as a whole")
    func unusableBodies() {
        let cases: [(String, String)] = [
            (#"{"current":{"time":1790834400,"european_aqi":NaN}}"#, "the response is not JSON"),
            ("<html><h1>502 Bad Gateway</h1></html>", "the response is not JSON"),
            (#"[{"latitude":1}]"#, "the response is JSON but not an object"),
            (#"{"error":true,"reason":"Cannot initialize CamsVariable"}"#, "the response reports an error: Cannot initialize CamsVariable"),
        ]
        for (body, message) in cases {
            let error = #expect(throws: ProviderError.self) {
                try OpenMeteoAirQualityDecoder.decode(
                    Array(body.utf8), scale: .european, fetchedAt: Self.enschedeNow, now: Self.enschedeNow,
                    requested: Self.enschede)
            }
            #expect(error?.message == "open-meteo-air-quality: \(message)")
        }
    }

    // MARK: The cadence

    @Test("At most one request per hour per rounded position, counted by the replay server")
    func hourlyCadence() async throws {
        try await Self.withService { server, service, clock in

            let first = await service.air(at: Self.enschede, scale: .european)
            #expect(first.requested && first.air?.aqi == 44)
            #expect(first.nextRequest == Self.enschedeNow.addingTimeInterval(3600))

            // Every 5 minutes for the rest of the hour, and from a few metres away (the same cell at 2
            // decimals): no request, the same reading.
            for step in 1...11 {
                clock.advance(by: 300)
                let again = await service.air(
                    at: Coordinate(latitude: 52.2249, longitude: 6.8901), scale: .european)
                #expect(!again.requested)
                #expect(again.air == first.air)
                #expect(again.nextRequest == first.nextRequest, "step \(step)")
            }
            #expect(server.requestCount(path: Self.path) == 1)

            clock.set(Self.enschedeNow.addingTimeInterval(3600))
            let next = await service.air(at: Self.enschede, scale: .european)
            #expect(next.requested)
            #expect(server.requestCount(path: Self.path) == 2)

            // An accelerated day, asked every 5 minutes: 24 requests for 24 hours.
            for _ in 0..<(23 * 12) {
                clock.advance(by: 300)
                _ = await service.air(at: Self.enschede, scale: .european)
            }
            #expect(server.requestCount(path: Self.path) == 25)
        }
    }

    @Test("On the move: another cell waits for the 15-minute spacing and meanwhile gets a reading nearby")
    func movingPositions() async throws {
        try await Self.withService { server, service, clock in
            _ = await service.air(at: Self.enschede, scale: .european)

            // 5 minutes and 8 km later: too soon for another request; the reading from 8 km away serves.
            clock.advance(by: 300)
            let nearby = await service.air(at: Coordinate(latitude: 52.29, longitude: 6.89), scale: .european)
            #expect(!nearby.requested)
            #expect(nearby.air?.aqi == 44)
            #expect(nearby.nextRequest == Self.enschedeNow.addingTimeInterval(900))
            // 300 km away: nothing to show until the spacing allows a request.
            let far = await service.air(at: Coordinate(latitude: 50.11, longitude: 8.68), scale: .european)
            #expect(!far.requested)
            #expect(far.air == nil)
            #expect(server.requestCount(path: Self.path) == 1)

            clock.set(Self.enschedeNow.addingTimeInterval(900))
            let later = await service.air(at: Coordinate(latitude: 50.11, longitude: 8.68), scale: .european)
            #expect(later.requested)
            #expect(server.requests().last?.query["latitude"] == "50.11")
            #expect(server.requestCount(path: Self.path) == 2)
        }
    }

    @Test("A failed request counts: the service is asked again an hour later, the last reading stays")
    func failures() async throws {
        try await withServer { server, client in
            let clock = ManualClock(Self.enschedeNow)
            let logs = LogCapture()
            server.setRoute(
                path: Self.path,
                sequence: [
                    try .fixture(Self.enschedeFixture),
                    .html("<html><h1>502 Bad Gateway</h1></html>"),
                    try .fixture("open-meteo/error-429-daily-limit.json", status: 429),
                    .json(try Self.enschede(with: "european_aqi", "-1")),
                ])
            let service = Self.service(server, client, clock: clock, logger: logs.logger())
            let good = await service.air(at: Self.enschede, scale: .european)

            clock.advance(by: 3600)
            let failed = await service.air(at: Self.enschede, scale: .european)
            #expect(failed.requested)
            #expect(failed.error?.kind == .badResponse)
            #expect(failed.error?.message == "open-meteo-air-quality: the response is not JSON (text/html, 502)")
            #expect(failed.air == good.air)
            #expect(failed.nextRequest == Self.enschedeNow.addingTimeInterval(7200))
            #expect(logs.all.contains { $0.level == .warning && $0.metadata.contains("text/html, 502") })

            clock.advance(by: 1800)
            let waiting = await service.air(at: Self.enschede, scale: .european)
            #expect(!waiting.requested && waiting.error == nil && waiting.air == good.air)
            #expect(server.requestCount(path: Self.path) == 2)

            clock.advance(by: 1800)
            let limited = await service.air(at: Self.enschede, scale: .european)
            #expect(limited.error?.kind == .rateLimited)

            clock.advance(by: 3600)
            let absurd = await service.air(at: Self.enschede, scale: .european)
            #expect(
                absurd.error?.message
                    == "open-meteo-air-quality: current.european_aqi = -1 is outside the allowed 0…1000")
            #expect(absurd.air == good.air)
            #expect(server.requestCount(path: Self.path) == 4)
        }
    }

    /// `text` with `field` of `current` replaced, for changing several fields in turn.
    static func enschedeText(_ text: String, with field: String, _ value: String) throws -> String {
        let pattern = try NSRegularExpression(pattern: "(\"current\": \\{[^}]*?\"\(field)\": )([^,\\n]+)")
        let replaced = pattern.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1\(value)")
        #expect(replaced != text, "the fixture has current.\(field)")
        return replaced
    }
}
