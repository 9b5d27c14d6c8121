import Foundation

/// Where the sun stands, for day/night icons when a provider does not say.
///
/// A low-precision solar position (the Astronomical Almanac's formulas, good to about 0.01° in
/// declination between 1950 and 2050): far better than needed to tell day from night, and it knows
/// polar day and polar night, which sunrise/sunset tables cannot express.
public enum Sun {
    /// The elevation of the sun's centre at which it counts as risen: the upper limb touches the
    /// horizon (-0.833° = refraction 0.567° + semi-diameter 0.266°), the standard sunrise definition.
    public static let horizon = -0.833

    /// The sun's elevation above the horizon in degrees (negative below) at a moment and a place.
    public static func elevation(at date: Date, coordinate: Coordinate) -> Double {
        let radians = Double.pi / 180
        // Days since J2000.0 (2000-01-01T12:00Z).
        let n = date.timeIntervalSince1970 / 86_400 - 10_957.5
        let meanLongitude = (280.460 + 0.985_647_4 * n).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = (357.528 + 0.985_600_3 * n).truncatingRemainder(dividingBy: 360) * radians
        let eclipticLongitude =
            (meanLongitude + 1.915 * sin(meanAnomaly) + 0.020 * sin(2 * meanAnomaly)) * radians
        let obliquity = (23.439 - 0.000_000_4 * n) * radians
        let rightAscension = atan2(cos(obliquity) * sin(eclipticLongitude), cos(eclipticLongitude))
        let declination = asin(sin(obliquity) * sin(eclipticLongitude))
        // Greenwich mean sidereal time in degrees, then the local hour angle.
        let siderealDegrees = (280.460_618_37 + 360.985_647_366_29 * n).truncatingRemainder(dividingBy: 360)
        let hourAngle = (siderealDegrees + coordinate.longitude) * radians - rightAscension
        let latitude = coordinate.latitude * radians
        let sine = sin(latitude) * sin(declination) + cos(latitude) * cos(declination) * cos(hourAngle)
        return asin(max(-1, min(1, sine))) / radians
    }

    /// Whether the sun is up (its upper limb above the horizon) at a moment and a place.
    public static func isDay(at date: Date, coordinate: Coordinate) -> Bool {
        elevation(at: date, coordinate: coordinate) > horizon
    }

    /// Sunrise and sunset on a local calendar day, each nil when it does not happen that day
    /// (polar day, polar night, or a day on which the sun only rises or only sets).
    ///
    /// - Parameters:
    ///   - localDate: the day, `YYYY-MM-DD`.
    ///   - utcOffsetSeconds: the location's offset from UTC that day.
    /// - Returns: nil when `localDate` is not a date.
    public static func riseAndSet(
        localDate: String, utcOffsetSeconds: Int, coordinate: Coordinate
    ) -> (sunrise: Date?, sunset: Date?)? {
        guard localDate.utf8.count == 10,
            let midnight = Timestamps.parseLocal(localDate, utcOffsetSeconds: utcOffsetSeconds)
        else { return nil }
        func above(_ date: Date) -> Double { elevation(at: date, coordinate: coordinate) - horizon }
        // The sun moves at most 0.25° a minute: 10-minute samples cannot miss a rise and a set
        // except within minutes of the polar-day boundary, where "no event" is the honest answer anyway.
        let step: TimeInterval = 600
        var sunrise: Date?
        var sunset: Date?
        var previous = midnight
        var previousValue = above(previous)
        for index in 1...144 {
            let next = midnight.addingTimeInterval(Double(index) * step)
            let value = above(next)
            if (previousValue <= 0) != (value <= 0) {
                // Bisect to the second.
                var low = previous
                var high = next
                let lowIsBelow = previousValue <= 0
                while high.timeIntervalSince(low) > 1 {
                    let middle = low.addingTimeInterval(high.timeIntervalSince(low) / 2)
                    if (above(middle) <= 0) == lowIsBelow { low = middle } else { high = middle }
                }
                let event = Date(timeIntervalSince1970: high.timeIntervalSince1970.rounded())
                if lowIsBelow {
                    if sunrise == nil { sunrise = event }
                } else if sunset == nil {
                    sunset = event
                }
            }
            previous = next
            previousValue = value
        }
        return (sunrise, sunset)
    }
}
