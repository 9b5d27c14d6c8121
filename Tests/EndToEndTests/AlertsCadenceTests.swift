import ForecastModel
import Foundation
import TestSupport
import Testing

extension AlertsStaleAndCadenceTests {
    /// One daemon per warning source, each pinned in a country that source serves, with its own air path.
    struct Place {
        var name: String
        var pin: (Double, Double, String?)
        var warningPath: String
        var warningResponse: ReplayResponse
        /// The documented minimum interval of the warning source (docs/warnings.md).
        var interval: TimeInterval
        var airPath: String { "/air-" + name }
    }

    /// The speed of the daemons' alert clock: a day in 20 s.
    static let speed = 4320.0
    static let day: TimeInterval = 86_400

    @Test("In an accelerated day no source is asked more often than its documented cadence")
    func cadenceOverADay() async throws {
        let server = try await ReplayServer.start()
        server.setRoute(path: E2E.forecastPath, .json(try samaraResponse()))
        let places = [
            Place(
                name: "us", pin: (41.01173, -95.16172, nil), warningPath: "/nws", warningResponse: try E2E.iowa(),
                interval: 300),
            Place(
                name: "no", pin: (60.3913, 5.3221, nil), warningPath: "/metalerts",
                warningResponse: try .recorded("alerts/met-norway/linecast-metalerts-current-marine-gale-2026-03-07.json"),
                interval: 600),
            Place(
                name: "de", pin: E2E.berlin, warningPath: E2E.alertsPath,
                warningResponse: try E2E.brightSky(expires: Date().addingTimeInterval(30 * 86_400)), interval: 300),
            Place(
                name: "ba", pin: (44.7722, 17.191, nil), warningPath: "/meteoalarm/feeds-bosnia-herzegovina",
                warningResponse: try .recorded(
                    "alerts/meteoalarm/em-jov-api-v1-warnings-feeds-bosnia-herzegovina-2024-01-first5.json"
                ).withETag("\"ba-1\""),
                interval: 600),
        ]
        var daemons: [DaemonProcess] = []
        defer { for daemon in daemons { daemon.removeDirectory() } }
        for place in places {
            server.setRoute(path: place.warningPath, place.warningResponse)
            server.setRoute(path: place.airPath, try ReplayResponse.recorded(E2E.airFixture))
            let alerts = E2E.alertSettings(server).replacingOccurrences(
                of: server.url(E2E.airPath).absoluteString, with: server.url(place.airPath).absoluteString)
            let text = settingsText(
                gpsdPort: nil, openMeteoURL: server.url(E2E.forecastPath), pin: place.pin, mode: "pinned",
                alerts: alerts)
            daemons.append(
                try DaemonProcess.start(config: text, environment: ["FORECASTD_TEST_CLOCK_SPEED": "\(Self.speed)"]))
        }
        for daemon in daemons { try await daemon.waitForSocket() }
        let paths = places.flatMap { [$0.warningPath, $0.airPath] }
        try await daemons[0].wait(for: "every source's first request", timeout: .seconds(20)) {
            paths.allSatisfy { server.requestCount(path: $0) > 0 }
        }
        // A day on the daemons' clock after the last first request, and a little more.
        let firsts = paths.compactMap { server.requestTimes(path: $0).first }
        let realDay = Self.day / Self.speed
        try await Task.sleep(for: .seconds(firsts.max()!.addingTimeInterval(realDay + 0.5).timeIntervalSinceNow))
        for daemon in daemons {
            #expect(daemon.isRunning)
            #expect(await daemon.stop() == 0)
        }
        try await server.shutdown()

        /// The requests for `path` within one day (on the daemons' clock) from its first.
        func countInADay(_ path: String) -> Int {
            let times = server.requestTimes(path: path)
            guard let first = times.first else { return 0 }
            return times.filter { $0.timeIntervalSince(first) <= realDay }.count
        }
        var counts: [String] = []
        for place in places {
            let warnings = countInADay(place.warningPath)
            let air = countInADay(place.airPath)
            counts.append("\(place.warningPath): \(warnings), \(place.airPath): \(air)")
            // At most one request per interval (and the first); at least three, so the clock did run (on the real
            // clock there would be one). No more than that is asked: at this speed 5 min are 69 ms, and on a loaded
            // machine (the suite runs in parallel) a debug daemon's round trip can take longer than that, so it
            // falls behind the clock (130 NWS requests of 289 in one run under a load of 12, 43 under a load of 16
            // on two cores): never ahead of it.
            let allowed = Int(Self.day / place.interval) + 1
            #expect(warnings <= allowed, "\(place.warningPath): \(warnings) requests in a day, at most \(allowed)")
            #expect(warnings >= 3, "\(place.warningPath): \(warnings) requests in a day: did the clock run?")
            #expect(air <= 25, "\(place.airPath): \(air) requests in a day, at most 25")
            #expect(air >= 12, "\(place.airPath): \(air) requests in a day")
        }
        // The counts, for docs/warnings.md.
        print("Requests in an accelerated day: " + counts.joined(separator: "; "))
        // MeteoAlarm is asked with the validator of its last answer, and answered 304 without a body.
        let meteoalarm = server.requests().filter { $0.path == places[3].warningPath }
        #expect(meteoalarm.dropFirst().allSatisfy { $0.header("If-None-Match") == "\"ba-1\"" })
    }
}
