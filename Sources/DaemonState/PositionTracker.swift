import ForecastModel
import Foundation
import Control
import Location
import Logging
import NetworkPath
import Settings

/// A position source the daemon may run in the settings in force, with what it needs of them.
public enum LocationSourceSpec: Sendable, Hashable {
    /// gpsd's reader also follows `max_fix_age_seconds`: it hands fixes on often enough that none looks stale.
    case gpsd(GPSDAddress, maxFixAge: TimeInterval)
    case staticFile(path: String)
    /// `[location.wifi]`: the geolocation service to ask.
    case wifi(url: URL)
    /// `[location.geoclue]`.
    case geoclue
    /// `[location.ip]`: the services to ask, in order.
    case ip(endpoints: [IPLocationProvider.Endpoint])
}

/// Where the machine is: what each position source last said, the gpsd jumps held back, the
/// position saved before a restart, which position the policy chooses of them, and the place it is
/// named after.
///
/// A value with no clock of its own: every judgement takes `now`, so tests set the time.
struct PositionTracker {
    /// The position chosen at the last judgement, with the places it is named after.
    struct Chosen: Equatable {
        var fix: LocationFix
        var place: Place?
        var locality: Place?
        var isNear: Bool
    }

    /// `[location]`: the settings the sources and the policy follow.
    private(set) var settings: Settings.Location
    private let places: (any PlaceNaming)?
    private let logger: Logger
    /// When the daemon started: the locating grace counts from it, and the pin dates from it.
    let startedAt: Date
    /// How long "locating" may last before a missing position counts as "no location".
    let locatingGrace: TimeInterval

    private var gpsdFix: LocationFix?
    private var gpsdProblem: String?
    private var gpsdAnswered = false
    /// Holds back gpsd positions that would mean an impossible speed until following fixes confirm them.
    private var jumpFilter: JumpFilter
    /// The last jump held back, for `locate` and to log each jump once.
    private var heldJump: (fix: LocationFix, speedKmh: Double)?
    private var staticFix: LocationFix?
    private var staticProblem: String?
    /// Whether the static file has been read since it was configured: until then IP geolocation waits,
    /// since the file, when there is one, would make asking unnecessary.
    private var staticAnswered = false
    private var wifiFix: LocationFix?
    private var wifiProblem: String?
    /// Whether the Wi-Fi source has said anything since it started: until then GeoClue waits (it may ask the user).
    private var wifiAnswered = false
    private var geoclueFix: LocationFix?
    private var geoclueProblem: String?
    private var ipFix: LocationFix?
    private var ipProblem: String?
    /// Whether traffic to the internet leaves through a VPN (nil until first read): while it does, an IP
    /// geolocation service would place the VPN's exit, so IP geolocation is neither asked nor used.
    private(set) var vpn: VPNVerdict?
    /// The position saved before the last restart: the last resort when no source knows better.
    private(set) var savedFix: LocationFix?

    /// The position in use, nil when none is known.
    private(set) var chosen: Chosen?
    /// Why it was chosen (or why there is none), for logs, `status` and `locate`.
    private(set) var reason = ""
    /// Whether IP geolocation would be asked now (no better source knows the position) but is not, since traffic
    /// leaves through a VPN: the report then says why (``vpnNotice``).
    private(set) var ipWithheldByVPN = false
    /// Whether the daemon is still waiting for gpsd's first answer, within its grace.
    private(set) var locating: Bool
    /// The position sources that should run now.
    private(set) var wantedSources: Set<LocationSourceSpec>

    init(
        settings: Settings.Location, places: (any PlaceNaming)?, logger: Logger, startedAt: Date,
        locatingGrace: TimeInterval
    ) {
        self.settings = settings
        self.places = places
        self.logger = logger
        self.startedAt = startedAt
        self.locatingGrace = locatingGrace
        jumpFilter = JumpFilter(maxSpeedKmh: settings.maxSpeedKmh)
        locating = settings.mode == .auto && settings.activeGPSD != nil
        // gpsd gets its start-up grace before IP geolocation is considered.
        wantedSources = Self.wantedSources(
            settings, chosen: nil, gpsdLocating: locating,
            stillLocating: settings.activeGPSD != nil || settings.staticFile != nil,
            wifiUndecided: settings.activeWiFi != nil)
    }

    /// Follows new settings: a source whose settings changed starts afresh, one switched off forgets
    /// its position. Returns whether the position may now be another (a fetch is then due at once).
    mutating func apply(_ new: Settings.Location) -> Bool {
        let old = settings
        settings = new
        if old.activeGPSD != new.activeGPSD {
            gpsdFix = nil
            gpsdProblem = nil
            gpsdAnswered = false
            jumpFilter.reset()
            heldJump = nil
        }
        jumpFilter.maxSpeedKmh = new.maxSpeedKmh
        if old.staticFile != new.staticFile {
            staticFix = nil
            staticProblem = nil
            staticAnswered = false
        }
        if old.activeWiFi != new.activeWiFi {
            wifiFix = nil
            wifiProblem = nil
            wifiAnswered = false
        }
        if !new.activeGeoClue {
            geoclueFix = nil
            geoclueProblem = nil
        }
        if new.activeIP == nil {
            // Switched off for privacy: its position goes too.
            ipFix = nil
            ipProblem = nil
        }
        return old.pin != new.pin || old.mode != new.mode || old.activeGPSD != new.activeGPSD
            || old.staticFile != new.staticFile || (old.activeIP == nil) != (new.activeIP == nil)
            || old.gpsd.recentFixMinutes != new.gpsd.recentFixMinutes || old.activeWiFi != new.activeWiFi
            || old.activeGeoClue != new.activeGeoClue
    }

    /// Takes a new judgement of the way out; returns whether it changed anything.
    mutating func apply(vpn new: VPNVerdict) -> Bool {
        guard new != vpn else { return false }
        if new.throughVPN != (vpn?.throughVPN ?? false) {
            logger.notice(
                new.throughVPN
                    ? "Traffic leaves through a VPN; IP geolocation is not used while it does."
                    : "Traffic no longer leaves through a VPN; IP geolocation may be used again.",
                metadata: ["network.path": "\(new.reason)"])
        }
        vpn = new
        return true
    }

    /// The coarsest GeoClue position used while traffic leaves through a VPN. GeoClue falls back to IP geolocation
    /// (city-level, tens of kilometres), which behind a VPN places the VPN's exit; its Wi-Fi and GPS positions are
    /// within a few hundred metres, its cell-tower ones mostly within a few kilometres (docs/location.md).
    static let geoclueBehindVPNAccuracyMeters = 5_000.0

    /// Whether a GeoClue position is too coarse to trust behind a VPN (no accuracy counts as coarse).
    static func isCoarse(_ fix: LocationFix) -> Bool { (fix.accuracyMeters ?? .infinity) > geoclueBehindVPNAccuracyMeters }

    /// GeoClue's position as far as the way out lets it count.
    private var usableGeoClueFix: LocationFix? {
        guard let fix = geoclueFix, behindVPN == nil || !Self.isCoarse(fix) else { return nil }
        return fix
    }

    /// The VPN verdict while traffic leaves through one.
    private var behindVPN: VPNVerdict? { vpn?.throughVPN == true ? vpn : nil }

    /// Takes the position saved before a restart, used until a source knows better.
    mutating func restore(savedFix fix: LocationFix) {
        if fix.coordinate.isPlausible { savedFix = fix }
    }

    /// Takes an event from a position source.
    mutating func handle(_ event: LocationEvent) {
        switch (event.source, event) {
        case (.gpsd, .fix(let fix)):
            guard fix.coordinate.isPlausible else { return }
            gpsdProblem = nil
            gpsdAnswered = true
            switch jumpFilter.consider(fix) {
            case .accepted:
                gpsdFix = fix
                heldJump = nil
            case .confirmed:
                logger.info(
                    "Following gpsd fixes confirm the jump; using the new position.",
                    metadata: ["location.latitude": "\(fix.coordinate.latitude)", "location.longitude": "\(fix.coordinate.longitude)"])
                gpsdFix = fix
                heldJump = nil
            case .held(let speed):
                if heldJump == nil {
                    logger.warning(
                        "gpsd reported a position that implies an impossible speed; waiting for following fixes to confirm it.",
                        metadata: [
                            "location.latitude": "\(fix.coordinate.latitude)", "location.longitude": "\(fix.coordinate.longitude)",
                            "speed_kmh": "\(Int(speed))", "max_speed_kmh": "\(Int(jumpFilter.maxSpeedKmh))",
                        ])
                }
                heldJump = (fix, speed)
            }
        case (.gpsd, .noFix), (.gpsd, .connected):
            gpsdAnswered = true
            if case .connected = event { gpsdProblem = nil }
        case (.gpsd, .unavailable(_, let reason)):
            gpsdAnswered = true
            gpsdProblem = reason
        case (.staticFile, _) where !staticAnswered:
            staticAnswered = true
            handleStaticFile(event)
        case (.staticFile, _):
            handleStaticFile(event)
        case (.wifi, _) where !wifiAnswered:
            wifiAnswered = true
            handleWiFi(event)
        case (.wifi, _):
            handleWiFi(event)
        case (.geoclue, .fix(let fix)):
            geoclueFix = fix.coordinate.isPlausible ? fix : nil
            geoclueProblem = nil
            if let vpn = behindVPN, let fix = geoclueFix, Self.isCoarse(fix) {
                logger.warning(
                    "GeoClue's position is not used: it is city-level or coarser, likely GeoClue's own IP lookup, and traffic leaves through a VPN.",
                    metadata: [
                        "location.accuracy_m": "\(fix.accuracyMeters.map { String(Int($0.rounded())) } ?? "unknown")",
                        "max_accuracy_m": "\(Int(Self.geoclueBehindVPNAccuracyMeters))", "network.path": "\(vpn.reason)",
                    ])
            }
        case (.geoclue, .unavailable(_, let reason)):
            // Its last fix stays, as IP's does: GeoClue not answering now says nothing of where the machine is.
            geoclueProblem = reason
        case (.geoclue, _):
            break
        case (.ip, .fix(let fix)):
            ipFix = fix.coordinate.isPlausible ? fix : nil
            ipProblem = nil
        case (.ip, .unavailable(_, let reason)):
            // A failed lookup keeps the last IP position: the address has rarely moved.
            ipProblem = reason
        case (.ip, _), (.pinned, _), (.city, _):
            break
        }
    }

    private mutating func handleWiFi(_ event: LocationEvent) {
        switch event {
        case .fix(let fix):
            wifiFix = fix.coordinate.isPlausible ? fix : nil
            wifiProblem = nil
        case .noFix:
            // The access points around locate nothing (too few, unknown to the service): the machine has moved
            // on from where the last answer put it.
            wifiFix = nil
            wifiProblem = nil
        case .unavailable(_, let reason):
            // NetworkManager or the bus is gone: nothing says the machine is still where the access points were.
            wifiFix = nil
            wifiProblem = reason
        case .connected:
            wifiProblem = nil
        }
    }

    private mutating func handleStaticFile(_ event: LocationEvent) {
        switch event {
        case .fix(let fix):
            staticFix = fix.coordinate.isPlausible ? fix : nil
            staticProblem = nil
        case .noFix, .connected:
            staticFix = nil
            staticProblem = nil
        case .unavailable(_, let reason):
            // The file is there but wrong: its old position goes, since the user meant to change it.
            logger.warning("The static location file cannot be used.", metadata: ["error": "\(reason)"])
            staticFix = nil
            staticProblem = reason
        }
    }

    /// Chooses the position at `now` and names its place; works out which sources should run.
    /// Returns whether the chosen position, its naming or the locating state changed.
    @discardableResult
    mutating func judge(now: Date) -> Bool {
        let before = (chosen, locating)
        var choice = policy.choose(candidates, now: now)
        // The saved position stands in for a source, but must not stop IP geolocation from being asked.
        let sourceChosen = choice.fix
        if choice.fix == nil, settings.mode == .auto, let savedFix {
            choice = LocationPolicy.Choice(fix: savedFix, reason: "no source knows the position; using the last one saved")
        }
        if settings.mode == .auto, settings.activeIP != nil, let vpn = behindVPN {
            choice.reason += "; IP geolocation is not used: \(vpn.reason)"
        }
        if let fix = choice.fix {
            if isSignificantChange(from: chosen?.fix, to: fix) {
                if chosen?.fix.source != fix.source {
                    logger.info(
                        "Using the position from \(fix.source.rawValue).",
                        metadata: [
                            "location.source": "\(fix.source.rawValue)", "location.reason": "\(choice.reason)",
                            "location.latitude": "\(fix.coordinate.latitude)",
                            "location.longitude": "\(fix.coordinate.longitude)",
                        ])
                }
                let named = places?.namedPlace(at: fix.coordinate, preferCity: settings.namesCities)
                chosen = Chosen(fix: fix, place: named?.place, locality: named?.locality, isNear: named?.isNear ?? false)
            }
        } else if chosen != nil {
            logger.warning("No source knows the position any more.", metadata: ["location.reason": "\(choice.reason)"])
            chosen = nil
        }
        reason = choice.reason
        locating =
            chosen == nil && settings.mode == .auto && settings.activeGPSD != nil
            && gpsdProblem == nil && now.timeIntervalSince(startedAt) < locatingGrace
        // IP geolocation runs only when nothing better knows the position: a machine with a working
        // receiver or a static file never tells a service its address.
        wantedSources = Self.wantedSources(
            settings, chosen: sourceChosen, gpsdLocating: locating,
            stillLocating: locating || (settings.staticFile != nil && !staticAnswered), behindVPN: behindVPN != nil,
            wifiUndecided: settings.activeWiFi != nil && !wifiAnswered)
        ipWithheldByVPN =
            behindVPN != nil
            && Self.wantedSources(
                settings, chosen: sourceChosen, gpsdLocating: locating,
                stillLocating: locating || (settings.staticFile != nil && !staticAnswered), behindVPN: false,
                wifiUndecided: settings.activeWiFi != nil && !wifiAnswered
            ).contains { if case .ip = $0 { true } else { false } }
        if !wantedSources.contains(where: { if case .wifi = $0 { true } else { false } }) {
            // Stopped (gpsd knows better): its last answer would be stale by the time it counts again.
            wifiFix = nil
            wifiAnswered = false
        }
        if !wantedSources.contains(.geoclue) { geoclueFix = nil }
        return before.0 != chosen || before.1 != locating
    }

    /// The moments after which a judgement of the position changes by itself: the locating grace
    /// ending, gpsd's fix no longer fresh, then no longer recent.
    var judgementMoments: [Date] {
        var moments: [Date] = []
        if locating { moments.append(startedAt.addingTimeInterval(locatingGrace)) }
        if let fix = gpsdFix, settings.activeGPSD != nil, settings.mode == .auto {
            moments.append(fix.receivedAt.addingTimeInterval(settings.gpsd.maxFixAgeInterval))
            moments.append(fix.receivedAt.addingTimeInterval(settings.gpsd.maxFixAgeInterval + settings.gpsd.recentFixInterval))
        }
        return moments
    }

    /// The report's `no_location` error, when no position is known and the daemon is not still locating.
    var noLocationError: ReportError? {
        guard chosen == nil, !locating else { return nil }
        var reasons: [String] = []
        if settings.mode == .auto {
            if settings.activeGPSD == nil {
                reasons.append("gpsd is switched off")
            } else if let problem = gpsdProblem {
                reasons.append("gpsd is not available (\(problem))")
            } else {
                reasons.append("gpsd has no fix")
            }
        }
        reasons.append("no pin is set")
        return ReportError(
            kind: .noLocation,
            message: "No position: " + reasons.joined(separator: " and ")
                + ". Set one with `forecastctl pin LAT,LON` or [location.pin] in the config.")
    }

    /// The report's `vpn` notice, while IP geolocation would be asked were traffic not leaving through a VPN: a
    /// pinned, saved or missing position then says why the IP service's is not used. Absent when a better source
    /// knows the position (the VPN changes nothing then).
    var vpnNotice: ReportError? {
        guard ipWithheldByVPN, let vpn = behindVPN else { return nil }
        return ReportError(
            kind: .vpn,
            message: "IP geolocation is not used: \(vpn.reason), so a service would place the VPN's exit, not this machine.")
    }

    static func wantedSources(
        _ settings: Settings.Location, chosen: LocationFix?, gpsdLocating: Bool = false, stillLocating: Bool,
        behindVPN: Bool = false, wifiUndecided: Bool = false
    ) -> Set<LocationSourceSpec> {
        var wanted: Set<LocationSourceSpec> = []
        guard settings.mode == .auto else { return wanted }
        if let gpsd = settings.activeGPSD { wanted.insert(.gpsd(gpsd, maxFixAge: settings.gpsd.maxFixAgeInterval)) }
        if let path = settings.staticFile { wanted.insert(.staticFile(path: path)) }
        // Wi-Fi runs unless gpsd knows the position (or may yet, within its start-up grace): it asks the service
        // only when the access points mean a new place, so running costs nothing while the machine stays put.
        if let url = settings.activeWiFi, chosen?.source != .gpsd, !gpsdLocating { wanted.insert(.wifi(url: url)) }
        // GeoClue only once Wi-Fi has had its say: its agent may ask the user, which a Wi-Fi answer a second later
        // would have made needless.
        let betterThanGeoClue = chosen.map { [.gpsd, .wifi, .staticFile].contains($0.source) } ?? false
        if settings.activeGeoClue, !betterThanGeoClue, !stillLocating, !wifiUndecided { wanted.insert(.geoclue) }
        let betterSourceKnows = chosen.map { [.gpsd, .wifi, .staticFile, .geoclue].contains($0.source) } ?? false
        // Behind a VPN the service would see the VPN's exit: not asked at all.
        if let ip = settings.activeIP, !betterSourceKnows, !stillLocating, !behindVPN {
            wanted.insert(.ip(endpoints: ip.services.map { IPLocationProvider.Endpoint(service: $0, url: ip.url(for: $0)) }))
        }
        return wanted
    }

    private var policy: LocationPolicy {
        LocationPolicy(
            mode: settings.mode, maxFixAge: settings.gpsd.maxFixAge,
            recentFixWindow: settings.gpsd.recentFixWindow)
    }

    /// What each source knows now, as far as the settings let it count.
    private var candidates: LocationPolicy.Candidates {
        LocationPolicy.Candidates(
            gpsd: settings.activeGPSD == nil ? nil : gpsdFix,
            wifi: settings.activeWiFi == nil ? nil : wifiFix,
            staticFile: settings.staticFile == nil ? nil : staticFix,
            geoclue: settings.activeGeoClue ? usableGeoClueFix : nil,
            ip: settings.activeIP == nil || behindVPN != nil ? nil : ipFix,
            pin: settings.pin.map {
                LocationFix(coordinate: $0.coordinate, source: .pinned, receivedAt: startedAt, label: $0.name)
            })
    }

    /// Small moves of a gpsd position (noise, walking) do not republish the report: every
    /// republication is a status-file write, and an SD card on a Pi should not get one a second.
    private func isSignificantChange(from old: LocationFix?, to new: LocationFix) -> Bool {
        guard let old else { return true }
        return old.source != new.source || old.label != new.label
            || old.coordinate.distanceKm(to: new.coordinate) > LocationPolicy.significantMoveKm
    }

    /// What every position source says and which one is used, for `forecastctl locate`.
    func locate(now: Date) -> LocateAnswer {
        let auto = settings.mode == .auto
        let sources = [
            auto ? locateGPSD(now: now) : off(.gpsd, "not used: the mode is pinned"),
            auto ? locateWiFi(now: now) : off(.wifi, "not used: the mode is pinned"),
            auto ? locateStaticFile(now: now) : off(.staticFile, "not used: the mode is pinned"),
            auto ? locateGeoClue(now: now) : off(.geoclue, "not used: the mode is pinned"),
            auto ? locateIP(now: now) : off(.ip, "not used: the mode is pinned"),
            locatePin(now: now),
        ]
        let chosen = self.chosen?.fix
        var chosenName = chosen?.source.rawValue
        if let chosen, chosen == savedFix, !sources.contains(where: \.used) { chosenName = "saved" }
        return LocateAnswer(mode: settings.mode.rawValue, chosen: chosenName, reason: reason, sources: sources)
    }

    private func locateGPSD(now: Date) -> LocateSource {
        guard let gpsd = settings.activeGPSD else {
            return off(.gpsd, "switched off ([location.gpsd] enabled = false)")
        }
        var held = ""
        if let heldJump {
            held =
                "; a jump to \(heldJump.fix.coordinate.latitude), \(heldJump.fix.coordinate.longitude) implying "
                + "\(Int(heldJump.speedKmh)) km/h is held back until following fixes confirm it"
        }
        if let fix = gpsdFix {
            let freshness: String
            switch policy.freshness(ofGPSD: fix, now: now) {
            case .fresh: freshness = "fresh (max_fix_age_seconds = \(settings.gpsd.maxFixAgeSeconds))"
            case .recent: freshness = "no longer fresh but recent (recent_fix_minutes = \(settings.gpsd.recentFixMinutes))"
            case .old, .none: freshness = "too old to use"
            }
            let problem = gpsdProblem.map { "; now: \($0)" } ?? ""
            return entry(.gpsd, fix, "last fix \(age(fix, now: now)) s old, \(freshness)\(problem)\(held)", now: now)
        } else if let problem = gpsdProblem {
            return LocateSource(
                source: "gpsd", state: .problem, used: false, detail: "gpsd at \(gpsd.host):\(gpsd.port): \(problem)")
        } else {
            return LocateSource(
                source: "gpsd", state: .none, used: false,
                detail: (gpsdAnswered ? "connected to \(gpsd.host):\(gpsd.port); the receiver has no fix" : "waiting for gpsd at \(gpsd.host):\(gpsd.port)") + held)
        }
    }

    private func locateWiFi(now: Date) -> LocateSource {
        guard let url = settings.activeWiFi else { return off(.wifi, "switched off ([location.wifi] enabled = false)") }
        let running = wantedSources.contains { if case .wifi = $0 { true } else { false } }
        if let fix = wifiFix {
            return entry(.wifi, fix, "the access points around, located by \(url.host ?? url.absoluteString)", now: now)
        } else if let problem = wifiProblem {
            return LocateSource(source: LocationSource.wifi.rawValue, state: .problem, used: false, detail: problem)
        } else {
            return LocateSource(
                source: LocationSource.wifi.rawValue, state: .none, used: false,
                detail: running
                    ? "the access points NetworkManager knows locate nothing (too few, or unknown to the service)"
                    : "not asked: gpsd knows the position")
        }
    }

    private func locateGeoClue(now: Date) -> LocateSource {
        guard settings.activeGeoClue else { return off(.geoclue, "switched off ([location.geoclue] enabled = false)") }
        let name = LocationSource.geoclue.rawValue
        if let fix = geoclueFix, let vpn = behindVPN, Self.isCoarse(fix) {
            return entry(
                .geoclue, fix,
                "not used: city-level or coarser (likely GeoClue's own IP lookup) while \(vpn.reason), so it may be "
                    + "the VPN's exit", now: now)
        } else if let fix = geoclueFix {
            return entry(.geoclue, fix, "the desktop's location service", now: now)
        } else if let problem = geoclueProblem {
            return LocateSource(source: name, state: .problem, used: false, detail: problem)
        } else {
            let running = wantedSources.contains(.geoclue)
            return LocateSource(
                source: name, state: .none, used: false,
                detail: running ? "asking GeoClue" : "not asked: a better source knows the position, or Wi-Fi has not answered yet")
        }
    }

    private func locateStaticFile(now: Date) -> LocateSource {
        guard let path = settings.staticFile else { return off(.staticFile, "switched off (static_file = \"\")") }
        if let fix = staticFix {
            return entry(.staticFile, fix, "from \(path)", now: now)
        } else if let problem = staticProblem {
            return LocateSource(source: LocationSource.staticFile.rawValue, state: .problem, used: false, detail: problem)
        } else {
            return LocateSource(source: LocationSource.staticFile.rawValue, state: .none, used: false, detail: "there is no \(path)")
        }
    }

    private func locateIP(now: Date) -> LocateSource {
        guard settings.activeIP != nil else { return off(.ip, "switched off ([location.ip] enabled = false)") }
        if let vpn = behindVPN {
            return off(.ip, "not used: \(vpn.reason), so a service would place the VPN's exit, not this machine")
        }
        let ipRunning = wantedSources.contains { if case .ip = $0 { true } else { false } }
        let asked = ipRunning ? "" : "; not being asked now: a better source knows the position"
        if let fix = ipFix {
            let problem = ipProblem.map { "; the last lookup failed: \($0)" } ?? ""
            return entry(
                .ip, fix,
                "city-level, looked up \(LocationPolicy.describe(TimeInterval(age(fix, now: now)))) ago\(problem)\(asked)",
                now: now)
        } else if let problem = ipProblem {
            return LocateSource(source: "ip", state: .problem, used: false, detail: problem + asked)
        } else {
            return LocateSource(
                source: "ip", state: .none, used: false,
                detail: ipRunning ? "looking up the network's public address" : "not asked: a better source knows the position")
        }
    }

    private func locatePin(now: Date) -> LocateSource {
        guard let pin = candidates.pin else {
            return LocateSource(source: "pinned", state: .none, used: false, detail: "no pin is set")
        }
        return entry(.pinned, pin, "[location.pin]" + (pin.label.map { " \"\($0)\"" } ?? ""), now: now)
    }

    private func age(_ fix: LocationFix, now: Date) -> Int { max(0, Int(now.timeIntervalSince(fix.receivedAt))) }

    /// A source that has a position: `used` when it is the one chosen.
    private func entry(_ source: LocationSource, _ fix: LocationFix, _ detail: String, now: Date) -> LocateSource {
        LocateSource(
            source: source.rawValue, state: .position, used: chosen?.fix == fix, latitude: fix.coordinate.latitude,
            longitude: fix.coordinate.longitude, accuracyM: fix.accuracyMeters, ageSeconds: age(fix, now: now),
            detail: detail)
    }

    private func off(_ source: LocationSource, _ detail: String) -> LocateSource {
        LocateSource(source: source.rawValue, state: .off, used: false, detail: detail)
    }
}
