import ForecastModel
import Foundation

/// Which of gpsd's fixes the reader hands on to the daemon, and which it only keeps.
///
/// Every hand-on hops from the descriptor waiter's thread to the daemon's event loop, a wakeup of its own. A receiver that
/// sits still sends a fix a second that changes nothing the daemon judges, so the reader hands a fix on only when
/// it does change something, and otherwise at most every ``interval``:
/// - the first fix (after connecting, or after a spell without a fix);
/// - a move of more than half of ``LocationPolicy/significantMoveKm`` from the fix last handed on, so the daemon's
///   position is never further than that from the receiver's;
/// - a move beyond ``JumpFilter/noiseFloorKm`` (a jump, or a real move), and then each of the
///   ``JumpFilter/defaultConfirmations`` fixes that follow it: the jump filter needs them to confirm the move;
/// - a fix that gains or loses its time (the jump filter's clock), its altitude (2D against 3D), or its accuracy,
///   or whose accuracy changes by as much as the move threshold;
/// - any fix once ``interval`` has passed since the last hand-on (by this machine's clock), so the daemon's fix is
///   never more than that older than the receiver's while gpsd keeps reporting.
///
/// The fix not handed on is kept (``pending``): the reader hands it on before it says the fix is lost or the
/// connection is gone, and when gpsd falls silent it hands it on at ``flushDeadline``, so the daemon's fix ages
/// from the receiver's last fix, not from an earlier one. A value with no clock of its own: it reads the fixes'
/// `receivedAt`.
package struct GPSDHandOn {
    /// The longest the reader keeps new fixes to itself while gpsd keeps reporting.
    package let interval: Duration
    /// The fix last handed on since the last ``reset()``.
    package private(set) var handedOn: LocationFix?
    /// The newest fix read but not handed on.
    package private(set) var pending: LocationFix?
    /// How many of the next fixes to hand on whatever they say, after a jump.
    private var following = 0

    package init(interval: Duration) {
        self.interval = max(interval, .zero)
    }

    /// Judges a fix just read: true when it must be handed on now (it then counts as handed on), false when it
    /// is only kept as ``pending``.
    package mutating func consider(_ fix: LocationFix) -> Bool {
        if mustHandOn(fix) {
            handedOn = fix
            pending = nil
            return true
        }
        pending = fix
        return false
    }

    /// Takes the kept fix, to hand it on now (before "no fix", before a lost connection, or at
    /// ``flushDeadline``); nil when there is none.
    package mutating func takePending() -> LocationFix? {
        guard let fix = pending else { return nil }
        handedOn = fix
        pending = nil
        return fix
    }

    /// When a kept fix must be handed on though no newer one came: one and a half ``interval``s after the last
    /// hand-on. While gpsd reports every second or so a fix read after one ``interval`` is handed on first, so
    /// the reader waits on this only when gpsd has fallen silent. Nil when nothing is kept.
    package var flushDeadline: Date? {
        guard pending != nil, let handedOn else { return nil }
        return handedOn.receivedAt.addingTimeInterval(interval.seconds * 1.5)
    }

    /// Forgets everything: the next fix is a first one (a new connection, or gpsd lost its fix).
    package mutating func reset() {
        handedOn = nil
        pending = nil
        following = 0
    }

    private mutating func mustHandOn(_ fix: LocationFix) -> Bool {
        guard let last = handedOn else { return true }
        let moveKm = last.coordinate.distanceKm(to: fix.coordinate)
        if moveKm > JumpFilter.noiseFloorKm {
            following = JumpFilter.defaultConfirmations
            return true
        }
        if following > 0 {
            following -= 1
            return true
        }
        let thresholdKm = LocationPolicy.significantMoveKm / 2
        if moveKm > thresholdKm { return true }
        if (last.fixTime == nil) != (fix.fixTime == nil) || (last.altitudeMeters == nil) != (fix.altitudeMeters == nil) {
            return true
        }
        switch (last.accuracyMeters, fix.accuracyMeters) {
        case (nil, nil): break
        case (let before?, let now?): if abs(now - before) >= thresholdKm * 1000 { return true }
        default: return true
        }
        return fix.receivedAt.timeIntervalSince(last.receivedAt) >= interval.seconds
            // A clock set back: hand on rather than keep fixes for as long as it went back.
            || fix.receivedAt < last.receivedAt
    }
}
