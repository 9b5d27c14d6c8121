import CGPS
import ForecastModel
import Foundation

/// One gpsd report as libgps decoded it, read through the CGPS accessors.
///
/// Swift never reads `gps_data_t` itself: its layout changes between libgps API majors, and the accessors are
/// compiled against the installed `gps.h`. Unknown numbers are NaN, as gpsd sends them; nothing here is judged
/// yet (see ``GPSDReport/judged(receivedAt:)``).
package struct GPSDReport: Sendable {
    /// Whether the report set the fix mode: a TPV report. SKY, DEVICE and the others say nothing about the fix.
    package var hasMode: Bool
    /// gpsd's fix mode, unchecked: 0 not seen, 1 no fix, 2 2D, 3 3D, and whatever else a broken peer sends.
    package var mode: Int
    /// The receiver's time of the fix, seconds since the epoch; 0 with ``nanoseconds`` 0 when the report had none.
    package var seconds: Int64
    package var nanoseconds: Int
    package var latitude: Double
    package var longitude: Double
    /// Altitude above mean sea level, metres.
    package var altitudeMSL: Double
    /// Horizontal error estimate, metres.
    package var eph: Double
    /// East-west and north-south error estimates, metres.
    package var epx: Double
    package var epy: Double
    /// Vertical error estimate, metres.
    package var epv: Double
    /// The kind of fix (0 unknown, 1 GPS, 2 DGPS, …): for people only, never decided on (gpsd 3.22 leaves it 0).
    package var status: Int
    package var satellitesUsed: Int
    /// The receiver's device path, empty when gpsd did not name it.
    package var device: String

    /// Reads the report libgps last decoded into `data`.
    init(_ data: UnsafePointer<gps_data_t>) {
        hasMode = cgps_mode_set(data)
        mode = Int(cgps_mode(data))
        seconds = cgps_fix_seconds(data)
        nanoseconds = cgps_fix_nanoseconds(data)
        latitude = cgps_latitude(data)
        longitude = cgps_longitude(data)
        altitudeMSL = cgps_altitude_msl(data)
        eph = cgps_eph(data)
        epx = cgps_epx(data)
        epy = cgps_epy(data)
        epv = cgps_epv(data)
        status = Int(cgps_status(data))
        satellitesUsed = Int(cgps_satellites_used(data))
        device = String(cString: cgps_device(data))
    }

    /// Decodes gpsd JSON lines with libgps, in order into one struct as a connection would, and reads the result.
    /// Returns nil when libgps refuses a line or memory is short.
    package init?(decodingJSONLines lines: [String]) {
        guard let data = cgps_new() else { return nil }
        defer { cgps_free(data) }
        for line in lines {
            cgps_clear_set(data)
            guard cgps_unpack(line, data) == 0 else { return nil }
        }
        self.init(data)
    }

    /// The libgps API this binary was compiled against, `major.minor` (`11.0` for gpsd 3.22, `14.0` for 3.25).
    package static var libgpsAPI: String { "\(cgps_api_major()).\(cgps_api_minor())" }
}

/// Why a gpsd report, or part of it, was not believed. Each kind is logged once per connection.
package struct GPSDProblem: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A mode other than 0–3: not a fix, whatever position comes with it.
        case unknownMode = "unknown_mode"
        /// An error estimate that is infinite, negative or above ``GPSDReport/maxErrorMeters``.
        case implausibleError = "implausible_error"
        /// A 2D/3D fix at NaN, out of range, or (0, 0).
        case implausiblePosition = "implausible_position"
        /// A fix time further ahead of this machine's clock than ``GPSDReport/maxClockSkew``.
        case futureTime = "future_time"
        /// A fix time further behind this machine's clock than ``GPSDReport/maxClockSkew``.
        case pastTime = "past_time"
        /// A fix time before GPS time began (``GPSDReport/gpsEpoch``): no time at all (`"time":"not-a-time"`
        /// reaches libgps as 1899-12-31).
        case invalidTime = "invalid_time"
    }

    package var kind: Kind
    /// One sentence for the log, with the offending value.
    package var description: String
}

/// What forecastd makes of one gpsd report.
package enum GPSDJudgement: Sendable {
    /// Not a position report (no mode): nothing to say about the fix.
    case notAFix
    /// gpsd says it has no fix (mode 0 or 1).
    case noFix
    /// The report claims a fix, but it cannot be believed.
    case refused(GPSDProblem)
    /// A usable fix. `problem` says what was dropped from it, if anything (a fix time too far from this
    /// machine's clock, or none at all).
    case fix(LocationFix, problem: GPSDProblem?)
}

extension GPSDReport {
    /// The largest error estimate (eph, epx, epy, epv) a believable fix can have, in metres.
    ///
    /// gpsd derives its estimates from the dilution of precision: even the worst DOP an NMEA receiver can state
    /// (99.99) times gpsd's largest range error gives under 2.5 km. Above 10 km an estimate is a sentinel (u-blox
    /// reports 4,294,967 m when it knows nothing) or garbage, and it would also make the jump filter, which allows
    /// for the stated accuracy, accept any move.
    package static let maxErrorMeters = 10_000.0

    /// How far from this machine's clock, ahead or behind, a fix time may be and still be believed.
    ///
    /// Beyond it the receiver's time is not used (the report's `fix_time` is left out and the jump filter times the
    /// move by this machine's clock), but the position still counts: gpsd sends a fix as the receiver reports it,
    /// so it is as fresh as its arrival (freshness is judged on ``LocationFix/receivedAt``), and good fixes do come
    /// with wrong dates. gpsd's own week-rollover guess dates old receivers' fixes 1024 weeks ahead, receivers with
    /// the rollover bug date them 1024 weeks behind, and a Raspberry Pi without a real-time clock boots with its
    /// clock behind the satellites'. A time far behind is not published either: a report saying `fix_time` is
    /// months old beside an `age_seconds` of 0 says two contradicting things.
    package static let maxClockSkew: TimeInterval = 300

    /// 1980-01-06T00:00:00Z, when GPS time began: no receiver can date a fix before it.
    package static let gpsEpoch = Date(timeIntervalSince1970: 315_964_800)

    /// Judges the report received at `receivedAt` (this machine's clock).
    package func judged(receivedAt: Date) -> GPSDJudgement {
        guard hasMode else { return .notAFix }
        switch mode {
        case 0, 1: return .noFix
        case 2, 3: break
        default:
            return .refused(
                GPSDProblem(
                    kind: .unknownMode, description: "gpsd reports fix mode \(mode), which is neither 2D (2) nor 3D (3)"))
        }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isPlausible else {
            return .refused(
                GPSDProblem(
                    kind: .implausiblePosition,
                    description: "gpsd reports a \(mode)D fix at an implausible position (\(latitude), \(longitude))"))
        }
        for (name, value) in [("eph", eph), ("epx", epx), ("epy", epy), ("epv", epv)] where !value.isNaN {
            // NaN is gpsd's "unknown"; anything else must be a real distance.
            guard value.isFinite, value >= 0, value <= Self.maxErrorMeters else {
                return .refused(
                    GPSDProblem(
                        kind: .implausibleError,
                        description: "gpsd reports an error estimate \(name) of \(value) m (believable: 0 to "
                            + "\(Int(Self.maxErrorMeters)) m)"))
            }
        }
        let accuracy = eph.isNaN ? [epx, epy].filter { !$0.isNaN }.max() : eph

        var fixTime: Date?
        var problem: GPSDProblem?
        if seconds != 0 || nanoseconds != 0 {
            let time = Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
            let ahead = time.timeIntervalSince(receivedAt)
            if time < Self.gpsEpoch {
                problem = GPSDProblem(
                    kind: .invalidTime,
                    description: "gpsd reports a fix time of \(Timestamps.rfc3339(time)), before GPS time began "
                        + "(1980-01-06): the receiver gave no time")
            } else if ahead > Self.maxClockSkew {
                problem = GPSDProblem(
                    kind: .futureTime,
                    description: "gpsd reports a fix time of \(Timestamps.rfc3339(time)), ahead of this machine's "
                        + "clock (\(Timestamps.rfc3339(receivedAt))) by more than \(Int(Self.maxClockSkew)) s")
            } else if -ahead > Self.maxClockSkew {
                problem = GPSDProblem(
                    kind: .pastTime,
                    description: "gpsd reports a fix time of \(Timestamps.rfc3339(time)), behind this machine's "
                        + "clock (\(Timestamps.rfc3339(receivedAt))) by more than \(Int(Self.maxClockSkew)) s")
            } else {
                fixTime = time
            }
        }
        let fix = LocationFix(
            coordinate: coordinate, source: .gpsd, accuracyMeters: accuracy,
            altitudeMeters: altitudeMSL.isNaN ? nil : altitudeMSL, fixTime: fixTime, receivedAt: receivedAt)
        return .fix(fix, problem: problem)
    }
}
