import ForecastModel
import Foundation

/// The rule that picks the position to forecast for, from gpsd's last fix and the pin. Pure: no I/O, no clock.
///
/// In `auto` mode a fresh gpsd fix wins, else the pin, else nothing. In `pinned` mode only the pin counts.
/// A fix that is not a plausible position (NaN, out of range, (0, 0)) is never chosen.
public struct LocationPolicy: Sendable, Hashable {
    /// Which sources may supply the position. The settings file has its own enum; the daemon maps it onto this
    /// one so that Location does not depend on Settings.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// gpsd when it has a fresh fix, else the pin.
        case auto
        /// The pin only, whatever gpsd says.
        case pinned
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

    public var mode: Mode
    /// How old a gpsd fix may be, by this machine's clock, and still be used: fresh means
    /// `now - receivedAt <= maxFixAge`.
    public var maxFixAge: Duration

    public init(mode: Mode = .auto, maxFixAge: Duration = .seconds(300)) {
        self.mode = mode
        self.maxFixAge = maxFixAge
    }

    /// Picks the position to use at `now` from gpsd's last fix and the pin (either may be nil).
    public func choose(gpsd gpsdFix: LocationFix?, pin pinFix: LocationFix?, now: Date) -> Choice {
        let pin = pinFix.flatMap { $0.coordinate.isPlausible ? $0 : nil }
        switch mode {
        case .pinned:
            if let pin { return Choice(fix: pin, reason: "pinned mode: using the pin") }
            return Choice(fix: nil, reason: "no position: the mode is pinned and no pin is set")
        case .auto:
            guard let gpsd = gpsdFix.flatMap({ $0.coordinate.isPlausible ? $0 : nil }) else {
                if let pin { return Choice(fix: pin, reason: "gpsd has no fix; using the pin") }
                return Choice(fix: nil, reason: "no position: gpsd has no fix and no pin is set")
            }
            // A receivedAt in the future (the clock was set back) counts as brand new rather than as an error.
            let age = max(0, now.timeIntervalSince(gpsd.receivedAt))
            if age <= maxFixAge.seconds {
                return Choice(fix: gpsd, reason: "gpsd fix \(Int(age)) s old")
            }
            let staleness = "gpsd's last fix is \(Int(age)) s old (limit \(Int(maxFixAge.seconds)) s)"
            if let pin { return Choice(fix: pin, reason: "gpsd has no fresh fix: \(staleness); using the pin") }
            return Choice(fix: nil, reason: "no position: \(staleness) and no pin is set")
        }
    }
}
