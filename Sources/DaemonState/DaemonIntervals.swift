import Foundation
import Settings

/// The few fixed waits of the daemon that a test may shorten, so it sees a wait end in a second
/// instead of waiting out the real one.
///
/// For tests only: `FORECASTD_TEST_INTERVALS="user_refresh=2,first_request=1,status_file_hold=3"` (seconds;
/// any subset, read once at start, nowhere else). Unset, the daemon uses the real waits. Each value must be
/// at least 0.1 s and at most the real wait: the variable can only shorten a wait, never lengthen one.
/// The warning and air services' cadences have their own test clock (``AlertClock``).
public struct DaemonIntervals: Sendable, Hashable {
    /// The environment variable that shortens the waits.
    public static let variable = "FORECASTD_TEST_INTERVALS"

    /// How long after a failed fetch a user's refresh is refused (10 s): more would only hammer the provider.
    public var userRefresh: TimeInterval
    /// How long a new socket connection may stay silent before it is closed (5 s).
    public var firstRequest: TimeInterval
    /// How long after start the report says "locating" before "no location" while gpsd has not answered (10 s).
    public var locatingGrace: TimeInterval
    /// How long the JSON status file holds after it is written (15 min): the daemon writes it again a
    /// fifteenth of that before then, changed or not (``StatusFileService``).
    public var statusFileHold: TimeInterval = 900

    /// The real waits.
    public static let real = DaemonIntervals(userRefresh: 10, firstRequest: 5, locatingGrace: 10)

    /// The names the variable uses.
    static let names = ["user_refresh", "first_request", "locating_grace", "status_file_hold"]

    /// The wait called `name` in the variable.
    private subscript(name name: String) -> TimeInterval? {
        get {
            switch name {
            case "user_refresh": userRefresh
            case "first_request": firstRequest
            case "locating_grace": locatingGrace
            case "status_file_hold": statusFileHold
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch name {
            case "user_refresh": userRefresh = newValue
            case "first_request": firstRequest = newValue
            case "locating_grace": locatingGrace = newValue
            case "status_file_hold": statusFileHold = newValue
            default: break
            }
        }
    }

    public init(userRefresh: TimeInterval, firstRequest: TimeInterval, locatingGrace: TimeInterval) {
        self.userRefresh = userRefresh
        self.firstRequest = firstRequest
        self.locatingGrace = locatingGrace
    }

    /// The waits `FORECASTD_TEST_INTERVALS` asks for (the real ones without it), or why the variable is refused:
    /// a typo is reported rather than ignored.
    public static func fromEnvironment(_ environment: [String: String]) -> Result<DaemonIntervals, IntervalsProblem> {
        guard let text = environment[variable] else { return .success(.real) }
        var intervals = DaemonIntervals.real
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let longest = real[name: parts[0]], let seconds = Double(parts[1]),
                seconds >= 0.1, seconds <= longest
            else {
                return .failure(IntervalsProblem(item: String(item), allowed: names))
            }
            intervals[name: parts[0]] = seconds
        }
        return .success(intervals)
    }

    /// Whether any wait is shorter than the real one.
    public var isShortened: Bool { self != .real }
}

/// An item of `FORECASTD_TEST_INTERVALS` the daemon cannot use.
public struct IntervalsProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var item: String
    public var allowed: [String]

    public var description: String {
        "\(DaemonIntervals.variable): \"\(item)\": expected NAME=SECONDS with NAME one of "
            + allowed.joined(separator: ", ") + ", and SECONDS from 0.1 to the real wait"
    }
}

extension Settings {
    /// A forecast older than this is marked stale: two refresh intervals leave room for one failed refresh.
    /// Daemon policy, not a key: it follows `refresh_minutes`.
    var staleAfter: TimeInterval { refreshSeconds * 2 }
}
