import ForecastModel
import Foundation

/// The rule that picks the position to forecast for from what each source knows. Pure: no I/O, no clock.
///
/// In `auto` mode, in this order: a fresh gpsd fix; the last gpsd fix while it is recent; Wi-Fi positioning;
/// the static file; GeoClue; IP geolocation; the pin. In `pinned` mode only the pin counts. A position that is not plausible
/// (NaN, out of range, (0, 0)) is never chosen, whatever its source.
public struct LocationPolicy: Sendable, Hashable {
    /// What each source knows now (nil: nothing).
    public struct Candidates: Sendable, Hashable {
        public var gpsd: LocationFix?
        public var wifi: LocationFix?
        public var staticFile: LocationFix?
        public var geoclue: LocationFix?
        public var ip: LocationFix?
        public var pin: LocationFix?

        public init(
            gpsd: LocationFix? = nil, wifi: LocationFix? = nil, staticFile: LocationFix? = nil,
            geoclue: LocationFix? = nil, ip: LocationFix? = nil, pin: LocationFix? = nil
        ) {
            self.gpsd = gpsd
            self.wifi = wifi
            self.staticFile = staticFile
            self.geoclue = geoclue
            self.ip = ip
            self.pin = pin
        }
    }

    /// The outcome: the position to use, if any, and why, in a few words for people.
    public struct Choice: Sendable, Hashable {
        public var fix: LocationFix?
        /// For example `"gpsd fix 3 s old"` or `"gpsd has no fix; using the pin"`.
        public var reason: String

        public init(fix: LocationFix?, reason: String) {
            self.fix = fix
            self.reason = reason
        }
    }

    /// How fresh gpsd's last fix is, as the policy sees it.
    public enum GPSDFreshness: Sendable, Hashable {
        case none
        /// Within ``maxFixAge``: wins over everything.
        case fresh(age: TimeInterval)
        /// Older than ``maxFixAge`` but within ``recentFixWindow`` after it: still preferred over the
        /// static file, IP and the pin, because a receiver that lost the sky (a tunnel, a garage) has
        /// usually not gone far.
        case recent(age: TimeInterval)
        case old(age: TimeInterval)
    }

    /// How far gpsd's position must move before the daemon takes it as a new position (renames the place,
    /// republishes the report): smaller moves are receiver noise or walking about. The gpsd reader hands fixes
    /// on by the same measure (``GPSDHandOn``).
    public static let significantMoveKm = 0.025

    public var mode: LocationMode
    /// How old a gpsd fix may be, by this machine's clock, and still be fresh: `now - receivedAt <= maxFixAge`.
    public var maxFixAge: Duration
    /// How long after that the last fix is still used before the other sources (zero: not at all).
    public var recentFixWindow: Duration

    public init(mode: LocationMode = .auto, maxFixAge: Duration = .seconds(300), recentFixWindow: Duration = .zero) {
        self.mode = mode
        self.maxFixAge = maxFixAge
        self.recentFixWindow = recentFixWindow
    }

    /// How fresh `fix` (gpsd's last) is at `now`.
    public func freshness(ofGPSD fix: LocationFix?, now: Date) -> GPSDFreshness {
        guard let fix, fix.coordinate.isPlausible else { return .none }
        // A receivedAt in the future (the clock was set back) counts as brand new rather than as an error.
        let age = max(0, now.timeIntervalSince(fix.receivedAt))
        if age <= maxFixAge.seconds { return .fresh(age: age) }
        if age <= maxFixAge.seconds + recentFixWindow.seconds { return .recent(age: age) }
        return .old(age: age)
    }

    /// Picks the position to use at `now`.
    public func choose(_ candidates: Candidates, now: Date) -> Choice {
        func usable(_ fix: LocationFix?) -> LocationFix? { fix.flatMap { $0.coordinate.isPlausible ? $0 : nil } }
        let pin = usable(candidates.pin)
        if mode == .pinned {
            if let pin { return Choice(fix: pin, reason: "pinned mode: using the pin") }
            return Choice(fix: nil, reason: "no position: the mode is pinned and no pin is set")
        }
        let gpsdState: String
        switch freshness(ofGPSD: candidates.gpsd, now: now) {
        case .fresh(let age):
            return Choice(fix: candidates.gpsd, reason: "gpsd fix \(Int(age)) s old")
        case .recent(let age):
            return Choice(
                fix: candidates.gpsd,
                reason: "gpsd has no fresh fix; its last one, \(Self.describe(age)) old, is recent enough")
        case .old(let age):
            gpsdState = "gpsd's last fix is \(Self.describe(age)) old (limit \(Self.describe(maxFixAge.seconds + recentFixWindow.seconds)))"
        case .none:
            gpsdState = "gpsd has no fix"
        }
        if let fix = usable(candidates.wifi) {
            let accuracy = fix.accuracyMeters.map { ", ±\(Int($0.rounded())) m" } ?? ""
            return Choice(fix: fix, reason: "\(gpsdState); using Wi-Fi positioning\(accuracy)")
        }
        if let fix = usable(candidates.staticFile) {
            return Choice(fix: fix, reason: "\(gpsdState); using the static file")
        }
        if let fix = usable(candidates.geoclue) {
            let accuracy = fix.accuracyMeters.map { ", ±\(Int($0.rounded())) m" } ?? ""
            return Choice(fix: fix, reason: "\(gpsdState) and there is no static file; using GeoClue\(accuracy)")
        }
        if let fix = usable(candidates.ip) {
            return Choice(fix: fix, reason: "\(gpsdState) and there is no static file; using IP geolocation (approximate)")
        }
        if let pin { return Choice(fix: pin, reason: "\(gpsdState), no static file and no IP position; using the pin") }
        return Choice(fix: nil, reason: "no position: \(gpsdState), no static file, no IP position and no pin")
    }

    /// An age as the policy's reasons write it: `42 s`, `12 min`, `3 h`.
    public static func describe(_ seconds: TimeInterval) -> String {
        if seconds < 120 { return "\(Int(seconds)) s" }
        if seconds < 7200 { return "\(Int(seconds / 60)) min" }
        return "\(Int(seconds / 3600)) h"
    }
}

/// Holds back a gpsd position that would mean moving faster than anything the user could be in,
/// until following fixes confirm it.
///
/// Receivers do emit such jumps: a multipath glitch, a cold start reporting last week's almanac
/// position, a replayed log. One bad fix must not rename the place and fetch a forecast for another
/// country; a real move (a flight, the receiver carried elsewhere while off) is confirmed by the fixes
/// that follow it and is then accepted.
public struct JumpFilter: Sendable, Hashable {
    public enum Verdict: Sendable, Hashable {
        /// Consistent with the last accepted fix (or the first one).
        case accepted
        /// A jump, held back until confirmed; `speedKmh` is the speed it implied.
        case held(speedKmh: Double)
        /// A held-back jump that following fixes confirmed.
        case confirmed
    }

    /// Moves within this distance never count as jumps: that is receiver noise, not travel.
    public static let noiseFloorKm = 1.0
    /// How many following fixes confirm a jump unless told otherwise.
    public static let defaultConfirmations = 2

    public var maxSpeedKmh: Double
    /// How many following fixes, each consistent with the one before, confirm a jump.
    public var confirmations: Int
    public private(set) var accepted: LocationFix?
    private var pending: [LocationFix] = []

    public init(maxSpeedKmh: Double, confirmations: Int = defaultConfirmations) {
        self.maxSpeedKmh = maxSpeedKmh
        self.confirmations = max(1, confirmations)
    }

    /// Judges a new fix; the caller uses it only when the verdict is not ``Verdict/held(speedKmh:)``.
    public mutating func consider(_ fix: LocationFix) -> Verdict {
        guard let last = accepted else {
            accepted = fix
            return .accepted
        }
        let speed = impliedSpeedKmh(from: last, to: fix)
        if speed <= maxSpeedKmh {
            accepted = fix
            pending = []
            return .accepted
        }
        if let previous = pending.last, impliedSpeedKmh(from: previous, to: fix) <= maxSpeedKmh {
            pending.append(fix)
            if pending.count > confirmations {
                accepted = fix
                pending = []
                return .confirmed
            }
        } else {
            pending = [fix]
        }
        return .held(speedKmh: speed)
    }

    /// Forgets everything (gpsd restarted with other settings).
    public mutating func reset() {
        accepted = nil
        pending = []
    }

    /// The speed a move from `a` to `b` implies, after allowing for both fixes' stated accuracy.
    ///
    /// Times come from the receiver when both fixes carry one (consistent between fixes even when the
    /// receiver's clock is off), else from this machine's clock. Moves within ``noiseFloorKm`` never count
    /// as jumps.
    func impliedSpeedKmh(from a: LocationFix, to b: LocationFix) -> Double {
        let slack = ((a.accuracyMeters ?? 0) + (b.accuracyMeters ?? 0)) / 1000
        let distance = a.coordinate.distanceKm(to: b.coordinate) - slack
        guard distance > Self.noiseFloorKm else { return 0 }
        var seconds = b.receivedAt.timeIntervalSince(a.receivedAt)
        if let from = a.fixTime, let to = b.fixTime, to > from { seconds = to.timeIntervalSince(from) }
        let hours = max(seconds, 1) / 3600
        return distance / hours
    }
}
