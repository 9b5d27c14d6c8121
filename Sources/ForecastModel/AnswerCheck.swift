import Foundation

/// Whether a provider's answer is an answer to what was asked: the time it speaks for and the place it is
/// for. One rule, for every service that answers for a place and a moment (the forecast's providers through
/// the ``Forecast/speaksFor`` time, the air quality service through both), so they cannot come to disagree.
///
/// A failed check is that answer's failure (the provider's `bad_response`): the last good data stays, and
/// the reason, which these functions word, goes to the report's errors.
public enum AnswerCheck {
    /// How far the moment an answer speaks for may lie from now, before or after, for it to count as
    /// current. Open-Meteo stamps its values to the quarter hour and MET Norway to the hour, and either may
    /// be served from a cache for a while; an answer whose own time is more than a day old is a stale copy
    /// or a wrong clock, and one more than a day ahead is a wrong clock (the provider's or this machine's).
    /// A day, not less: the recorded answers the tests replay keep their time of day.
    public static let maximumTimeOffset: TimeInterval = 86_400

    /// How far the place an answer is for may lie from the place asked, in kilometres. Open-Meteo answers
    /// for the grid cell nearest the point asked (its coordinates in the answer), the coarsest of which,
    /// CAMS' global air quality grid, is 0.4° (about 45 km): the cell's centre is at most about 32 km away,
    /// and its land/sea cell selection may move to a neighbour. 100 km is a little over two of those cells;
    /// an answer farther away is for another place (a cache or proxy mixing up requests).
    public static let maximumDistanceKm: Double = 100

    /// Why an answer that speaks for `time` cannot be taken as current at `now`: it lies more than
    /// `maximumOffset` seconds before or after it. Nil when it can.
    public static func time(_ time: Date, now: Date, maximumOffset: TimeInterval = maximumTimeOffset) -> String? {
        let age = now.timeIntervalSince(time)
        guard abs(age) > maximumOffset else { return nil }
        let hours = Int(abs(age) / 3600)
        let howFar = hours >= 48 ? "\(hours / 24) days" : "\(max(1, hours)) hours"
        if age > 0 {
            return "the answer is dated \(Timestamps.rfc3339(time)), \(howFar) old "
                + "(a stale copy or a wrong clock at the provider)"
        }
        return "the answer is dated \(Timestamps.rfc3339(time)), \(howFar) ahead of this machine's clock "
            + "(\(Timestamps.rfc3339(now)); a wrong clock at the provider or here)"
    }

    /// Why an answer for `answered` cannot be taken for the place asked, `requested`: it lies more than
    /// `maximumKm` away. Nil when it can.
    public static func place(_ answered: Coordinate, requested: Coordinate, maximumKm: Double = maximumDistanceKm)
        -> String?
    {
        let km = answered.distanceKm(to: requested)
        // NaN (an impossible coordinate) fails the comparison and is refused with it.
        guard !(km <= maximumKm) else { return nil }
        let distance = km.isFinite ? "\(Int(km.rounded())) km" : "an unknown distance"
        return "the answer is for \(answered.latitude), \(answered.longitude), \(distance) from the place asked "
            + "(\(requested.latitude), \(requested.longitude)); at most \(Int(maximumKm)) km is the same place"
    }
}
