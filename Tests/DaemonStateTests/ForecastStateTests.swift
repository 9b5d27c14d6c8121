import DaemonState
import ForecastModel
import Foundation
import Location
import Logging
import Settings
import Synchronization
import Testing
import TestSupport
import WeatherProviders

@Suite("Forecast state", .onEventLoops)
struct ForecastStateTests: OnTestClock {
    let clock = TestClock()

    func configuration(pin: Coordinate? = nil, gpsd: Bool = true, mode: LocationMode = .auto) -> Settings {
        .testing(pin: pin, gpsd: gpsd, mode: mode)
    }

    func gpsdFix(_ latitude: Double, _ longitude: Double) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), source: .gpsd, accuracyMeters: 5,
            receivedAt: clock.now)
    }

    @Test("a pin is used at once when gpsd is off, and a forecast is due for it")
    func pinAtStart() async {
        let pin = Coordinate(latitude: -34.9011, longitude: -56.1645)
        let state = makeState(configuration(pin: pin, gpsd: false))
        await state.tick()
        #expect(await state.report.location?.source == "pinned")
        #expect(await state.takeDueFetch()?.coordinate == pin)
    }

    @Test("with no further tick, the judgement alarm asks for the refresh when it falls due and turns the report stale on time")
    func timerDrivenJudgements() async throws {
        let pin = Coordinate(latitude: -34.9011, longitude: -56.1645)
        var settings = configuration(pin: pin, gpsd: false)
        settings.refreshMinutes = 1  // refreshed after 60 s, stale after 120 s
        let state = ForecastState(settings: settings, places: FixedPlaces(), logger: Logger(label: "test"))
        await state.tick()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await state.keepTime() }
            var requests = state.refreshRequests.makeAsyncIterator()
            _ = await requests.next()
            let target = try #require(await state.takeDueFetch())
            // A forecast fetched 59.6 s ago: the next refresh is due in 0.4 s.
            let fetched = Date()
            var forecast = forecast()
            forecast.fetchedAt = fetched.addingTimeInterval(-59.6)
            await state.forecastSucceeded(forecast, for: target.coordinate)
            #expect(await state.takeDueFetch() == nil)

            // Nothing else happens: only the state's own timer can ask for the next refresh.
            _ = await requests.next()
            #expect(Date().timeIntervalSince(fetched) >= 0.4, "asked before the refresh was due")
            #expect(await state.takeDueFetch()?.coordinate == pin)
            // A forecast fetched 119.2 s ago: it turns stale in 0.8 s.
            let refetched = Date()
            forecast.fetchedAt = refetched.addingTimeInterval(-119.2)
            await state.forecastSucceeded(forecast, for: target.coordinate)
            var reports = await state.subscribe().makeAsyncIterator()
            while let report = await reports.next(), !report.stale {}
            #expect(Date().timeIntervalSince(refetched) >= 0.8, "stale before its time")
            group.cancelAll()
        }
    }

    @Test("a user's refresh during a provider's Retry-After never moves the automatic retry later")
    func refreshDuringRetryAfter() async throws {
        let pin = Coordinate(latitude: -34.9011, longitude: -56.1645)
        let state = makeState(configuration(pin: pin, gpsd: false))
        await state.tick()
        let first = try #require(await state.takeDueFetch())
        #expect(first.forced == false)
        let limited = ProviderError(
            provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429: Too Many Requests", retryAfter: .seconds(3600))
        // The chain backs the provider off for its Retry-After and says so.
        await state.forecastFailed(limited, for: pin, retryAt: clock.now.addingTimeInterval(3600))
        #expect(await state.takeDueFetch() == nil)

        // A minute later the user asks; the chain does not ask the provider (its Retry-After holds).
        clock.advance(60)
        async let asked = state.refreshNow()
        while await state.refreshRequestsPending == false { await Task.yield() }
        let forced = try #require(await state.takeDueFetch())
        #expect(forced.forced)
        let skipped = ProviderError(
            provider: "open-meteo", kind: .rateLimited, detail: "not asked again before …", retryAfter: .seconds(3540))
        await state.forecastFailed(skipped, for: pin, forced: true, retryAt: clock.now.addingTimeInterval(3540))
        let answer = await asked
        #expect(answer.ok == false && answer.message == skipped.message)
        #expect(await state.report.errors.map(\.message) == [limited.message])

        // The automatic retry stays an hour after the first failure, not an hour after the user's try.
        clock.advance(3600 - 60 - 1)
        #expect(await state.takeDueFetch() == nil)
        clock.advance(2)
        #expect(await state.takeDueFetch()?.forced == false)
    }

    @Test("fresh gpsd wins; an aged gpsd fix hands over to the pin")
    func gpsdThenPin() async {
        let pin = Coordinate(latitude: -34.9011, longitude: -56.1645)
        let state = makeState(configuration(pin: pin))
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        #expect(await state.report.location?.source == "gpsd")
        clock.advance(121)
        await state.tick()
        #expect(await state.report.location?.source == "pinned")
    }

    @Test("no gpsd and no pin: no_location with the reason; never a fetch")
    func noLocation() async {
        let state = makeState(configuration())
        await state.handle(.unavailable(source: .gpsd, reason: "connection refused"))
        let report = await state.report
        #expect(report.status == .noLocation)
        #expect(report.errors.first?.message.contains("gpsd is not available (connection refused)") == true)
        #expect(await state.takeDueFetch()?.coordinate == nil)
    }

    @Test("gpsd still starting: locating, then no_location after the grace period")
    func locating() async {
        let state = makeState(configuration())
        await state.tick()
        #expect(await state.report.status == .locating)
        clock.advance(11)
        await state.tick()
        #expect(await state.report.status == .noLocation)
    }

    @Test("refresh when due or moved far, not on small moves")
    func refreshRules() async {
        let state = makeState(configuration())
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        let target = await state.takeDueFetch()?.coordinate
        #expect(target != nil)
        await state.forecastSucceeded(forecast(), for: target!)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        #expect(await state.report.status == .ok)

        // 1 km away a minute later: same forecast.
        clock.advance(60)
        await state.handle(.fix(gpsdFix(48.9133, 2.3330)))
        #expect(await state.takeDueFetch()?.coordinate == nil)
        // 10 km away ten minutes later: a new forecast is due at once.
        clock.advance(600)
        await state.handle(.fix(gpsdFix(48.9943, 2.3330)))
        #expect(await state.takeDueFetch()?.coordinate != nil)
        await state.forecastSucceeded(forecast(), for: Coordinate(latitude: 48.9943, longitude: 2.3330))
        // The refresh interval passes.
        clock.advance(899)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        clock.advance(1)
        #expect(await state.takeDueFetch()?.coordinate != nil)
    }

    @Test("a failure keeps the last forecast, marks it stale, and is retried when the provider chain says, not before")
    func failureBackoff() async {
        let state = makeState(configuration())
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        let target = Coordinate(latitude: 48.9043, longitude: 2.3330)
        await state.forecastSucceeded(forecast(), for: target)
        clock.advance(900)
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .timeout, detail: "no answer within 5 s"), for: target,
            retryAt: clock.now.addingTimeInterval(30))
        var report = await state.report
        #expect(report.status == .ok)
        #expect(report.current?.temperature == 10)
        #expect(report.stale)
        #expect(report.errors.map(\.kind) == ["timeout"])

        // The chain's backoff is the one retry policy (its numbers: ProviderChainTests).
        clock.advance(29)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        clock.advance(1)
        #expect(await state.takeDueFetch()?.coordinate != nil)
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused"), for: target,
            retryAt: clock.now.addingTimeInterval(60))
        clock.advance(59)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        clock.advance(1)
        #expect(await state.takeDueFetch()?.coordinate != nil)
        // The report shows the latest failure.
        #expect(await state.report.errors.map(\.kind) == ["offline"])

        // Recovery clears the error and the staleness.
        var fresh = forecast()
        fresh.current?.temperature = 12
        await state.forecastSucceeded(fresh, for: target)
        report = await state.report
        #expect(!report.stale)
        #expect(report.errors.isEmpty)
        #expect(report.current?.temperature == 12)
    }

    @Test("a user's refresh reaches the forecast service as forced, whatever ticks come first")
    func forcedRefreshSurvivesTicks() async throws {
        let pin = Coordinate(latitude: -34.9011, longitude: -56.1645)
        let state = makeState(configuration(pin: pin, gpsd: false))
        var requests = state.refreshRequests.makeAsyncIterator()
        await state.tick()
        #expect(await state.takeDueFetch()?.forced == false)
        await state.forecastSucceeded(forecast(), for: pin)
        await requests.next()  // the first fetch's request
        #expect(await state.takeDueFetch() == nil)

        let refresh = Task { await state.refreshNow() }
        await requests.next()  // the refresh's request
        // Ticks (and any other re-evaluation) only look; they used to take the user's request.
        await state.tick()
        await state.tick()
        let due = try #require(await state.takeDueFetch())
        #expect(due.coordinate == pin)
        #expect(due.forced)
        #expect(await state.takeDueFetch() == nil)
        await state.forecastSucceeded(forecast(), for: pin)
        #expect(await refresh.value.ok)
    }

    @Test("Retry-After is honoured")
    func retryAfter() async {
        let state = makeState(configuration())
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        let target = Coordinate(latitude: 48.9043, longitude: 2.3330)
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429", retryAfter: .seconds(600)), for: target,
            retryAt: clock.now.addingTimeInterval(600))
        clock.advance(599)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        clock.advance(1)
        #expect(await state.takeDueFetch()?.coordinate != nil)
    }

    @Test("readers get a new report only when something visible changed")
    func publishOnChange() async {
        let state = makeState(configuration())
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        let reports = await state.subscribe()
        var iterator = reports.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.location?.source == "gpsd")

        // gpsd noise of a few metres, repeated fixes, ticks: nothing new.
        for i in 0..<10 {
            clock.advance(1)
            await state.handle(.fix(gpsdFix(48.9043 + Double(i) * 0.00001, 2.3330)))
            await state.tick()
        }
        #expect(await state.report.updatedAt == first?.updatedAt)
        // A real change: the forecast arrives.
        await state.forecastSucceeded(forecast(), for: Coordinate(latitude: 48.9043, longitude: 2.3330))
        let second = await iterator.next()
        #expect(second?.status == .ok)
        #expect(second?.location?.latitude == 48.9043)
    }

    // MARK: Choosing among sources

    func staticFix(_ latitude: Double, _ longitude: Double) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: latitude, longitude: longitude), source: .staticFile, receivedAt: clock.now)
    }

    func ipFix(_ latitude: Double, _ longitude: Double) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), source: .ip, accuracyMeters: 15_000,
            receivedAt: clock.now)
    }

    func withSources(_ settings: Settings) -> Settings {
        var settings = settings
        settings.location.staticFile = "/etc/geolocation"
        settings.location.ip.enabled = true
        settings.location.gpsd.recentFixMinutes = 30
        return settings
    }

    func runsIP(_ state: ForecastState) async -> Bool {
        var iterator = await state.locationSourceUpdates().makeAsyncIterator()
        let wanted = await iterator.next() ?? []
        return wanted.contains { if case .ip = $0 { true } else { false } }
    }

    @Test("IP geolocation runs only when nothing better knows the position, and not before the static file was read")
    func ipOnlyWhenNeeded() async {
        let state = makeState(withSources(configuration(gpsd: false)))
        #expect(await runsIP(state) == false)  // the static file has not been read yet
        await state.handle(.noFix(source: .staticFile))
        #expect(await runsIP(state) == true)
        await state.handle(.fix(ipFix(37.42, -122.08)))
        #expect(await state.report.location?.source == "ip")
        #expect(await runsIP(state) == true)  // kept running for the hourly re-lookup
        await state.handle(.fix(staticFix(60.39, 5.32)))
        #expect(await state.report.location?.source == "static_file")
        #expect(await runsIP(state) == false)
    }

    @Test("gpsd's last fix stays in use while recent, then the static file takes over; a fresh fix wins again")
    func recentThenStatic() async {
        let state = makeState(withSources(configuration()))
        await state.handle(.fix(staticFix(60.39, 5.32)))
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        #expect(await state.report.location?.source == "gpsd")
        clock.advance(120 + 1799)
        await state.tick()
        #expect(await state.report.location?.source == "gpsd")
        #expect(await state.locate().reason.hasPrefix("gpsd has no fresh fix; its last one, 31 min old, is recent enough"))
        clock.advance(2)
        await state.tick()
        #expect(await state.report.location?.source == "static_file")
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        #expect(await state.report.location?.source == "gpsd")
    }

    @Test("an impossible gpsd jump is held back: the report keeps the old place until following fixes confirm it")
    func jumpHeldBack() async {
        let state = makeState(configuration())
        await state.handle(.fix(gpsdFix(48.9043, 2.3330)))
        clock.advance(1)
        await state.handle(.fix(gpsdFix(-33.8688, 151.2093)))  // Sydney, one second later
        #expect(await state.report.location?.latitude == 48.9043)
        let gpsd = await state.locate().sources.first
        #expect(gpsd?.detail.contains("a jump to -33.8688, 151.2093 implying") == true)
        clock.advance(1)
        await state.handle(.fix(gpsdFix(-33.8689, 151.2093)))
        clock.advance(1)
        await state.handle(.fix(gpsdFix(-33.8688, 151.2094)))
        #expect(await state.report.location?.latitude == -33.8688)
    }

    @Test("a broken static file withdraws its position and says why in locate")
    func brokenStaticFile() async {
        let state = makeState(withSources(configuration(gpsd: false)))
        await state.handle(.fix(staticFix(60.39, 5.32)))
        #expect(await state.report.location?.source == "static_file")
        await state.handle(.unavailable(source: .staticFile, reason: "/etc/geolocation:2: longitude \"x\" is not a number"))
        #expect(await state.report.location == nil)
        let entry = await state.locate().sources.first { $0.source == "static_file" }
        #expect(entry?.state == .problem)
        #expect(entry?.detail == "/etc/geolocation:2: longitude \"x\" is not a number")
    }
}

@Suite("Forecast state: listed cities", .timeLimit(.minutes(3)), .onEventLoops)
struct CityStateTests {
    let clock = TestClock()

    func configuration(cities: [Settings.City]) -> Settings {
        var settings = Settings.testing(pin: Coordinate(latitude: 48.9, longitude: 2.33), gpsd: false, mode: .pinned)
        settings.cities = cities
        return settings
    }

    let paris = Settings.City(name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85, longitude: 2.35), favorite: true)
    let lisbon = Settings.City(name: "Lisbon", countryCode: "PT", coordinate: Coordinate(latitude: 38.72, longitude: -9.14), favorite: false)

    func forecast(at coordinate: Coordinate) -> Forecast {
        Forecast(
            provider: "open-meteo", attribution: "test", coordinate: coordinate, fetchedAt: clock.now, utcOffsetSeconds: 0,
            timezone: nil, current: CurrentConditions(time: clock.now, temperature: 10), hourly: [], daily: [])
    }

    @Test("each city is due once per refresh interval, in the file's order; a failure backs off and keeps the last forecast")
    func oneFetchPerCityPerInterval() async {
        let clock = self.clock
        let state = ForecastState(
            settings: configuration(cities: [paris, lisbon]), places: nil, logger: Logger(label: "test"),
            clock: { clock.now })
        // Three refresh intervals: each city fetched exactly once in each.
        var fetched: [String] = []
        for _ in 0..<3 {
            // Bounded, so a city that never stops being due fails the test instead of hanging it.
            for _ in 0..<10 {
                guard let due = await state.dueCityFetch() else { break }
                fetched.append(due.id)
                await state.cityForecastSucceeded(forecast(at: due.coordinate), id: due.id)
            }
            clock.advance(899)
            #expect(await state.dueCityFetch() == nil)
            clock.advance(1)
        }
        #expect(fetched == ["paris-fr", "lisbon-pt", "paris-fr", "lisbon-pt", "paris-fr", "lisbon-pt"])

        // Paris fails: its last forecast stays (stale, with the error), and it is not asked again at once.
        let due = await state.dueCityFetch()
        #expect(due?.id == "paris-fr")
        await state.cityForecastFailed(
            ProviderError(provider: "open-meteo", kind: .timeout, detail: "no answer within 15 s"), id: "paris-fr",
            retryAt: clock.now.addingTimeInterval(30))
        #expect(await state.dueCityFetch()?.id == "lisbon-pt")
        let city = await state.report.city("Paris")
        #expect(city?.report.current?.temperature == 10)
        #expect(city?.report.stale == true)
        #expect(city?.report.errors.map(\.kind) == ["timeout"])
        clock.advance(31)
        await state.cityForecastSucceeded(forecast(at: lisbon.coordinate), id: "lisbon-pt")
        #expect(await state.dueCityFetch()?.id == "paris-fr")
    }

    @Test("only favourites' forecasts go to the history")
    func favouritesRecorded() async {
        let clock = self.clock
        let state = ForecastState(
            settings: configuration(cities: [paris, lisbon]), places: nil, logger: Logger(label: "test"),
            clock: { clock.now })
        await state.cityForecastSucceeded(forecast(at: lisbon.coordinate), id: "lisbon-pt")
        await state.cityForecastSucceeded(forecast(at: paris.coordinate), id: "paris-fr")
        var records = state.historyRecords.makeAsyncIterator()
        let first = await records.next()
        #expect(first?.cityID == "paris-fr")
    }
}
