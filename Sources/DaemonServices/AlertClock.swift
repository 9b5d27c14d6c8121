import Foundation

/// The clock the warning and air services judge cadence, expiry and staleness by.
///
/// Normally the system clock. For tests only, `FORECASTD_TEST_CLOCK_SPEED=N` (read when the daemon builds
/// its alert services, nowhere else) makes it run N times as fast from the daemon's start, so a test can
/// count the requests of a whole day in a few seconds against the replay server (docs/warnings.md,
/// "Cadence"). Only the alert services see this clock: the forecast, the report's times and every other
/// service keep the system clock.
public struct AlertClock: Sendable {
    /// The environment variable that speeds the clock up.
    public static let speedVariable = "FORECASTD_TEST_CLOCK_SPEED"

    /// How many seconds of this clock pass in one real second.
    public let speed: Double
    /// The real moment the two clocks agree.
    public let origin: Date

    /// The system clock.
    public static let system = AlertClock(speed: 1, origin: Date(timeIntervalSince1970: 0))

    public init(speed: Double, origin: Date = Date()) {
        self.speed = speed
        self.origin = origin
    }

    /// The system clock, or the accelerated one `FORECASTD_TEST_CLOCK_SPEED` asks for (a number above 1,
    /// at most 100,000); nil with the variable set to anything else, so a typo is reported, not ignored.
    public static func fromEnvironment(_ environment: [String: String]) -> AlertClock? {
        guard let text = environment[speedVariable] else { return .system }
        guard let speed = Double(text), speed >= 1, speed <= 100_000 else { return nil }
        return speed == 1 ? .system : AlertClock(speed: speed)
    }

    /// Now on this clock.
    public func now() -> Date {
        speed == 1 ? Date() : origin.addingTimeInterval(Date().timeIntervalSince(origin) * speed)
    }

    /// The real moment at which this clock shows `date`: what a timer is set for.
    public func realDate(for date: Date) -> Date {
        speed == 1 ? date : origin.addingTimeInterval(date.timeIntervalSince(origin) / speed)
    }
}
