@testable import DaemonState
import ForecastModel
import Foundation
import Location
import Logging
import NetworkPath
import Settings
import Testing
import TestSupport
import WeatherProviders

/// The values ForecastState is made of, each tested alone with the time set by the test.
@Suite("The state's parts", .onEventLoops)
struct StatePartsTests {
    let start = Date(timeIntervalSince1970: 1_795_343_400)

    func configuration(pin: Coordinate? = nil, gpsd: Bool = true, ip: Bool = false) -> Settings.Location {
        var settings = Settings.testing(pin: pin, gpsd: gpsd).location
        settings.ip.enabled = ip
        return settings
    }

    func tracker(_ settings: Settings.Location) -> PositionTracker {
        PositionTracker(
            settings: settings, places: FixedPlaces(), logger: Logger(label: "test"), startedAt: start,
            locatingGrace: 10)
    }

    func fix(_ latitude: Double, _ longitude: Double, source: LocationSource = .gpsd, at time: Date) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), source: source, accuracyMeters: 5,
            receivedAt: time)
    }

    // MARK: PositionTracker

    @Test("the tracker says locating within gpsd's grace, then no location with the reason, at the moment it names")
    func trackerLocatingThenNoLocation() {
        var position = tracker(configuration())
        position.judge(now: start)
        #expect(position.locating)
        #expect(position.noLocationError == nil)
        #expect(position.judgementMoments == [start.addingTimeInterval(10)])
        position.judge(now: start.addingTimeInterval(10.001))
        #expect(!position.locating)
        #expect(position.noLocationError?.message.hasPrefix("No position: gpsd has no fix and no pin is set") == true)
    }

    @Test("a fresh gpsd fix wins over the pin, names its place, and goes when it is too old")
    func trackerFixAgesOut() {
        var position = tracker(configuration(pin: Coordinate(latitude: -34.9, longitude: -56.16)))
        position.handle(.fix(fix(48.9043, 2.3330, at: start)))
        let changed = position.judge(now: start)
        #expect(changed)
        #expect(position.chosen?.fix.source == .gpsd)
        #expect(position.chosen?.place?.name == "Testville")
        // Fresh for max_fix_age, then recent for recent_fix_minutes: both moments are set.
        #expect(position.judgementMoments.contains(start.addingTimeInterval(120)))
        let old = start.addingTimeInterval(120 + position.settings.gpsd.recentFixInterval + 1)
        let changedAgain = position.judge(now: old)
        #expect(changedAgain)
        #expect(position.chosen?.fix.source == .pinned)
        #expect(position.judge(now: old) == false)
    }

    @Test("a jump at an impossible speed is held back and shown by locate, until a following fix confirms it")
    func trackerHoldsJumps() {
        var position = tracker(configuration())
        position.handle(.fix(fix(48.9043, 2.3330, at: start)))
        position.judge(now: start)
        let later = start.addingTimeInterval(1)
        position.handle(.fix(fix(40.0, 2.3330, at: later)))
        position.judge(now: later)
        #expect(position.chosen?.fix.coordinate.latitude == 48.9043)
        let gpsd = position.locate(now: later).sources.first { $0.source == "gpsd" }
        #expect(gpsd?.detail.contains("is held back until following fixes confirm it") == true)
    }

    @Test("the saved position stands in when no source knows better, and is named \"saved\" by locate")
    func trackerSavedFix() {
        var position = tracker(configuration(gpsd: false))
        position.restore(savedFix: fix(48.9043, 2.3330, source: .ip, at: start.addingTimeInterval(-3600)))
        position.judge(now: start)
        #expect(position.chosen?.fix.coordinate.latitude == 48.9043)
        #expect(position.reason == "no source knows the position; using the last one saved")
        #expect(position.locate(now: start).chosen == "saved")
    }

    @Test("IP geolocation is wanted only while no better source knows the position")
    func trackerWantsIPOnlyWithoutABetterSource() {
        var position = tracker(configuration(ip: true))
        position.judge(now: start.addingTimeInterval(11))
        #expect(position.wantedSources.contains { if case .ip = $0 { true } else { false } })
        position.handle(.fix(fix(48.9043, 2.3330, at: start.addingTimeInterval(11))))
        position.judge(now: start.addingTimeInterval(11))
        #expect(!position.wantedSources.contains { if case .ip = $0 { true } else { false } })
    }

    @Test("Wi-Fi comes after a fresh gpsd fix and before the static file and IP; while it knows, IP is not asked")
    func trackerOrdersWiFi() {
        var settings = configuration(ip: true)
        settings.wifi.enabled = true
        var position = tracker(settings)
        let isWiFi: (LocationSourceSpec) -> Bool = { if case .wifi = $0 { true } else { false } }
        let isIP: (LocationSourceSpec) -> Bool = { if case .ip = $0 { true } else { false } }
        // Within gpsd's start-up grace neither runs, from the first moment; after it both do, until one knows.
        #expect(!position.wantedSources.contains(where: isWiFi))
        position.judge(now: start)
        #expect(!position.wantedSources.contains(where: isWiFi))
        let afterGrace = start.addingTimeInterval(11)
        position.judge(now: afterGrace)
        #expect(position.wantedSources.contains(where: isWiFi) && position.wantedSources.contains(where: isIP))

        position.handle(.fix(fix(-22.9, -43.2, source: .ip, at: afterGrace)))
        position.handle(.fix(fix(52.5163, 13.3777, source: .wifi, at: afterGrace)))
        position.judge(now: afterGrace)
        #expect(position.chosen?.fix.source == .wifi)
        #expect(position.reason == "gpsd has no fix; using Wi-Fi positioning, ±5 m")
        #expect(!position.wantedSources.contains(where: isIP))
        let locate = position.locate(now: afterGrace)
        #expect(locate.sources.map(\.source) == ["gpsd", "wifi", "static_file", "geoclue", "ip", "pinned"])
        #expect(locate.sources.first { $0.source == "wifi" }?.used == true)

        // A fresh gpsd fix wins, and Wi-Fi stops (its position goes with it).
        position.handle(.fix(fix(48.9043, 2.3330, at: afterGrace)))
        position.judge(now: afterGrace)
        #expect(position.chosen?.fix.source == .gpsd)
        #expect(!position.wantedSources.contains(where: isWiFi))

        // gpsd's fix too old: Wi-Fi runs again; until it answers, IP's older answer serves.
        let later = afterGrace.addingTimeInterval(121)
        position.judge(now: later)
        #expect(position.wantedSources.contains(where: isWiFi))
        #expect(position.chosen?.fix.source == .ip)
    }

    @Test("GeoClue waits for Wi-Fi's answer, comes after the static file and before IP, and stops when Wi-Fi knows")
    func trackerOrdersGeoClue() {
        var settings = configuration(gpsd: false, ip: true)
        settings.wifi.enabled = true
        settings.geoclue.enabled = true
        var position = tracker(settings)
        position.judge(now: start)
        // Wi-Fi has not answered yet: GeoClue, which may ask the user, is not started for nothing.
        #expect(position.wantedSources.contains { if case .wifi = $0 { true } else { false } })
        #expect(!position.wantedSources.contains(.geoclue))
        position.handle(.noFix(source: .wifi))
        position.judge(now: start)
        #expect(position.wantedSources.contains(.geoclue))

        position.handle(.fix(fix(40.7128, -74.006, source: .ip, at: start)))
        position.handle(.fix(fix(48.8584, 2.2945, source: .geoclue, at: start)))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .geoclue)
        #expect(position.reason == "gpsd has no fix and there is no static file; using GeoClue, ±5 m")
        #expect(!position.wantedSources.contains { if case .ip = $0 { true } else { false } })

        position.handle(.fix(fix(52.5163, 13.3777, source: .wifi, at: start)))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .wifi)
        #expect(!position.wantedSources.contains(.geoclue))
    }

    @Test("Wi-Fi saying 'no position here' or NetworkManager going away drops its position at once")
    func trackerDropsWiFiWhenItKnowsNothing() {
        var settings = configuration(pin: Coordinate(latitude: -34.9, longitude: -56.16), gpsd: false)
        settings.wifi.enabled = true
        var position = tracker(settings)
        position.handle(.fix(fix(52.5163, 13.3777, source: .wifi, at: start)))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .wifi)
        position.handle(.noFix(source: .wifi))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .pinned)
        position.handle(.fix(fix(52.5163, 13.3777, source: .wifi, at: start)))
        position.handle(.unavailable(source: .wifi, reason: "NetworkManager is not running on the system bus."))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .pinned)
        let wifi = position.locate(now: start).sources.first { $0.source == "wifi" }
        #expect(wifi?.state == .problem)
        #expect(wifi?.detail == "NetworkManager is not running on the system bus.")
    }

    @Test("Behind a VPN, IP geolocation is neither asked nor used, and locate and the reason say why; after, again")
    func trackerVPNRule() {
        var position = tracker(configuration(pin: Coordinate(latitude: -34.9, longitude: -56.16), gpsd: false, ip: true))
        let isIP: (LocationSourceSpec) -> Bool = { if case .ip = $0 { true } else { false } }
        position.handle(.fix(fix(40.7128, -74.006, source: .ip, at: start)))
        let first = position.apply(vpn: VPNVerdict(throughVPN: false, reason: "the default route goes through wlan0, no VPN"))
        #expect(first)
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .ip)

        let wireguard = VPNVerdict(throughVPN: true, reason: "the IPv4 default route goes through wg0 (WireGuard)")
        let up = position.apply(vpn: wireguard)
        let again = position.apply(vpn: wireguard)
        #expect(up && !again)
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .pinned)
        #expect(!position.wantedSources.contains(where: isIP))
        #expect(position.reason.hasSuffix("; IP geolocation is not used: the IPv4 default route goes through wg0 (WireGuard)"))
        let ip = position.locate(now: start).sources.first { $0.source == "ip" }
        #expect(ip?.state == .off)
        #expect(ip?.detail.hasPrefix("not used: the IPv4 default route goes through wg0 (WireGuard)") == true)
        #expect(
            position.vpnNotice?.message
                == "IP geolocation is not used: the IPv4 default route goes through wg0 (WireGuard), so a service "
                + "would place the VPN's exit, not this machine.")

        let down = position.apply(vpn: VPNVerdict(throughVPN: false, reason: "the default route goes through wlan0, no VPN"))
        #expect(down)
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .ip)
        #expect(position.wantedSources.contains(where: isIP))
        #expect(position.vpnNotice == nil)

        // The notice only while IP geolocation is what the VPN holds back: a Wi-Fi position makes it moot.
        var withWiFi = configuration(pin: Coordinate(latitude: -34.9, longitude: -56.16), gpsd: false, ip: true)
        withWiFi.wifi.enabled = true
        var located = tracker(withWiFi)
        _ = located.apply(vpn: wireguard)
        located.handle(.noFix(source: .wifi))
        located.judge(now: start)
        #expect(located.chosen?.fix.source == .pinned)
        #expect(located.vpnNotice?.kind == ErrorKind.vpn.rawValue)
        located.handle(.fix(fix(52.5163, 13.3777, source: .wifi, at: start)))
        located.judge(now: start)
        #expect(located.chosen?.fix.source == .wifi)
        #expect(located.vpnNotice == nil)
    }

    @Test("Behind a VPN a city-level GeoClue position (its IP fallback) is refused; a Wi-Fi-grade one stays")
    func trackerGeoClueBehindVPN() {
        var settings = configuration(pin: Coordinate(latitude: -34.9, longitude: -56.16), gpsd: false)
        settings.geoclue.enabled = true
        var position = tracker(settings)
        let wireguard = VPNVerdict(throughVPN: true, reason: "the IPv4 default route goes through wg0 (WireGuard)")
        _ = position.apply(vpn: wireguard)
        var cityLevel = fix(40.7128, -74.006, source: .geoclue, at: start)
        cityLevel.accuracyMeters = 25_000
        position.handle(.fix(cityLevel))
        position.judge(now: start)
        #expect(position.chosen?.fix.source == .pinned)
        let refused = position.locate(now: start).sources.first { $0.source == "geoclue" }
        #expect(refused?.used == false)
        #expect(refused?.detail.hasPrefix("not used: city-level or coarser") == true)

        var wifiGrade = fix(48.8584, 2.2945, source: .geoclue, at: start)
        wifiGrade.accuracyMeters = 35
        position.handle(.fix(wifiGrade))
        position.judge(now: start)
        #expect(position.chosen?.fix == wifiGrade)

        // The VPN down, the coarse position counts again: it is then this machine's own address.
        position.handle(.fix(cityLevel))
        _ = position.apply(vpn: VPNVerdict(throughVPN: false, reason: "the default route goes through wlan0, no VPN"))
        position.judge(now: start)
        #expect(position.chosen?.fix == cityLevel)
    }

    // MARK: FetchSchedule

    @Test("a failure streak waits for the moment it is given, keeps its start, and a success ends it")
    func scheduleStreak() {
        var schedule = FetchSchedule()
        let timeout = ProviderError(provider: "open-meteo", kind: .timeout, detail: "no answer within 5 s")
        let started = schedule.failed(timeout, at: start, retryAt: start.addingTimeInterval(30))
        #expect(started)
        #expect(schedule.isWaiting(at: start.addingTimeInterval(29.9)))
        #expect(!schedule.isWaiting(at: start.addingTimeInterval(30)))
        let second = start.addingTimeInterval(30)
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        let startedAgain = schedule.failed(offline, at: second, retryAt: second.addingTimeInterval(60))
        #expect(!startedAgain)
        #expect(schedule.failure?.since == start)
        #expect(schedule.failure?.attempts == 2)
        #expect(schedule.reportError?.kind == "offline")
        #expect(schedule.reportError?.since == Timestamps.rfc3339(start))
        #expect(schedule.succeeded()?.attempts == 2)
        #expect(schedule.failure == nil)
        #expect(schedule.reportError == nil)
        #expect(!schedule.isWaiting(at: second))
    }

    @Test("the network's return asks again only providers that failed for want of a connection")
    func networkReturnedReason() {
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        let timeout = ProviderError(provider: "open-meteo", kind: .timeout, detail: "no answer within 5 s")
        let serverError = ProviderError(provider: "open-meteo", kind: .providerError, detail: "HTTP 503")
        let limited = ProviderError(provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429", retryAfter: .seconds(600))
        #expect(FetchReason.networkReturned.asksAgain(after: offline))
        #expect(FetchReason.networkReturned.asksAgain(after: timeout))
        #expect(!FetchReason.networkReturned.asksAgain(after: serverError))
        #expect(!FetchReason.networkReturned.asksAgain(after: limited))
        #expect(FetchReason.userAsked.asksAgain(after: serverError))
        #expect(!FetchReason.userAsked.asksAgain(after: limited))
        #expect(!FetchReason.due.asksAgain(after: offline))
    }

    // MARK: HereSchedule

    func forecast(at time: Date) -> Forecast {
        Forecast(
            provider: "open-meteo", attribution: "test", coordinate: Coordinate(latitude: 48.9, longitude: 2.33),
            fetchedAt: time, utcOffsetSeconds: 3600, timezone: nil, current: CurrentConditions(time: time, temperature: 10),
            hourly: [], daily: [])
    }

    @Test("here is due at once, then after the refresh interval or a move beyond refresh_distance_km")
    func hereDueByTimeAndDistance() {
        var here = HereSchedule()
        let paris = Coordinate(latitude: 48.9043, longitude: 2.3330)
        func due(_ position: Coordinate, _ held: Forecast?, at now: Date) -> DueFetch? {
            here.due(position: position, forecast: held, now: now, refreshInterval: 900, refreshDistanceKm: 5)
        }
        #expect(due(paris, nil, at: start) == DueFetch(coordinate: paris, reason: .due))
        #expect(here.succeeded(for: paris) == nil)
        let held = forecast(at: start)
        #expect(due(paris, held, at: start.addingTimeInterval(899)) == nil)
        #expect(due(paris, held, at: start.addingTimeInterval(900)) != nil)
        // The answer must not be older than what is held for this place; for another place anything goes.
        #expect(due(paris, held, at: start.addingTimeInterval(900))?.held == start)
        let moved = Coordinate(latitude: 48.9943, longitude: 2.3330)  // 10 km north
        #expect(due(moved, held, at: start.addingTimeInterval(60)) == DueFetch(coordinate: moved, reason: .due))
        #expect(due(moved, held, at: start.addingTimeInterval(60))?.held == nil)
        #expect(here.judgementMoments(forecast: held, refreshInterval: 900) == [start.addingTimeInterval(900)])
    }

    @Test("a user may ask at once, but not within 10 s of a failure; the refusal names the next attempt")
    func hereUserRefresh() {
        var here = HereSchedule()
        let paris = Coordinate(latitude: 48.9043, longitude: 2.3330)
        _ = here.succeeded(for: paris)
        #expect(here.askedByUser(at: start) == nil)
        let taken = here.take(position: paris, forecast: forecast(at: start), now: start, refreshInterval: 900, refreshDistanceKm: 5)
        #expect(taken?.forced == true)
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        #expect(here.failed(offline, at: start, userAsked: true, retryAt: start.addingTimeInterval(30)) == .startedStreak)
        let refusal = here.askedByUser(at: start.addingTimeInterval(9))
        #expect(refusal?.message.contains("the next one is due at \(Timestamps.rfc3339(start.addingTimeInterval(30)))") == true)
        #expect(refusal?.kind == .tooSoon && refusal?.retryAt == start.addingTimeInterval(30))
        #expect(here.askedByUser(at: start.addingTimeInterval(10)) == nil)
        // A user's failure during the streak leaves the automatic retry where it was.
        #expect(here.failed(offline, at: start.addingTimeInterval(10), userAsked: true, retryAt: start.addingTimeInterval(99)) == .userAskedDuringStreak)
        #expect(here.failure?.retryAt == start.addingTimeInterval(30))
    }

    @Test("a shortened user interval (FORECASTD_TEST_INTERVALS) refuses a refresh for that long only")
    func hereShortenedUserRefresh() {
        var here = HereSchedule(userInterval: 2)
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        _ = here.failed(offline, at: start, userAsked: false, retryAt: start.addingTimeInterval(30))
        #expect(here.askedByUser(at: start.addingTimeInterval(1.9)) != nil)
        #expect(here.askedByUser(at: start.addingTimeInterval(2)) == nil)
    }

    @Test("the network's return makes an offline failure due at once, once; a provider's refusal keeps its wait")
    func hereNetworkReturn() {
        var here = HereSchedule()
        let paris = Coordinate(latitude: 48.9043, longitude: 2.3330)
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        _ = here.failed(offline, at: start, userAsked: false, retryAt: start.addingTimeInterval(60))
        #expect(here.due(position: paris, forecast: nil, now: start.addingTimeInterval(5), refreshInterval: 900, refreshDistanceKm: 5) == nil)
        here.networkOrClockChanged()
        let taken = here.take(position: paris, forecast: nil, now: start.addingTimeInterval(5), refreshInterval: 900, refreshDistanceKm: 5)
        #expect(taken == DueFetch(coordinate: paris, reason: .networkReturned))
        #expect(here.due(position: paris, forecast: nil, now: start.addingTimeInterval(5), refreshInterval: 900, refreshDistanceKm: 5) == nil)

        var limited = HereSchedule()
        let refusal = ProviderError(provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429", retryAfter: .seconds(600))
        _ = limited.failed(refusal, at: start, userAsked: false, retryAt: start.addingTimeInterval(600))
        limited.networkOrClockChanged()
        #expect(limited.due(position: paris, forecast: nil, now: start.addingTimeInterval(5), refreshInterval: 900, refreshDistanceKm: 5) == nil)
    }

    @Test("the network's return makes a listed city's offline failure due at once, until its next result; a refusal keeps its wait")
    func citiesNetworkReturn() {
        let paris = Settings.City(
            name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85, longitude: 2.35), favorite: false)
        let lisbon = Settings.City(
            name: "Lisbon", countryCode: "PT", coordinate: Coordinate(latitude: 38.72, longitude: -9.14), favorite: false)
        var cities = CityForecasts([paris, lisbon], places: nil)
        let offline = ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused")
        let refusal = ProviderError(provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429", retryAfter: .seconds(600))
        _ = cities.failed(offline, id: "paris-fr", at: start, retryAt: start.addingTimeInterval(60))
        _ = cities.failed(refusal, id: "lisbon-pt", at: start, retryAt: start.addingTimeInterval(600))
        let soon = start.addingTimeInterval(5)
        #expect(cities.due(at: soon, refreshInterval: 900) == nil)

        cities.networkOrClockChanged()
        let due = cities.due(at: soon, refreshInterval: 900)
        #expect(due?.city == paris)
        #expect(due?.reason == .networkReturned)
        // Failing again (still offline) ends it: the new retry holds. Lisbon's refusal held throughout.
        _ = cities.failed(offline, id: "paris-fr", at: soon, retryAt: soon.addingTimeInterval(120))
        #expect(cities.due(at: soon, refreshInterval: 900) == nil)
    }

    // MARK: ReportProblems

    @Test("a save's first failure message stays until it succeeds; errors come settings, saves, position and forecast, alerts")
    func reportProblems() {
        var problems = ReportProblems()
        let settings = ReportError(kind: .config, message: "forecastd.toml:3:1: bad")
        let air = ReportError(kind: .air, message: "air: HTTP 503")
        let forecast = ReportError(kind: .offline, message: "offline")
        let changes = [
            problems.setConfiguration([settings]), problems.setConfiguration([settings]),
            problems.setStorage("state", message: "disk full", at: start),
            problems.setStorage("state", message: "still full", at: start.addingTimeInterval(60)),
        ]
        #expect(changes == [true, false, true, false])
        problems.setAlerts([air])
        let errors = problems.errors(between: [forecast])
        #expect(errors.map(\.message) == ["forecastd.toml:3:1: bad", "disk full", "offline", "air: HTTP 503"])
        #expect(errors[1].since == Timestamps.rfc3339(start))
        let ends = [
            problems.setStorage("state", message: nil, at: start.addingTimeInterval(120)),
            problems.setStorage("state", message: nil, at: start.addingTimeInterval(120)),
        ]
        #expect(ends == [true, false])
        #expect(problems.errors(between: []).count == 2)
    }

    // MARK: Broadcast

    @Test("a follower gets the current value, then each new one; one that stops is forgotten")
    func broadcast() async {
        let broadcast = Broadcast(1)
        var first: AsyncStream<Int>.Iterator? = broadcast.updates().makeAsyncIterator()
        #expect(await first?.next() == 1)
        broadcast.send(2)
        #expect(broadcast.value == 2)
        #expect(await first?.next() == 2)
        var late = broadcast.updates().makeAsyncIterator()
        #expect(await late.next() == 2)
        #expect(broadcast.followerCount == 2)
        first = nil
        #expect(broadcast.followerCount == 1)
        broadcast.send(3)
        broadcast.send(4)
        // A slow follower skips to the newest value.
        #expect(await late.next() == 4)
    }
}
