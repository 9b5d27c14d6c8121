import ForecastModel
import Foundation
import Location
import TestSupport
import Testing

/// gpsd JSON decoded by the installed libgps and read back through the CGPS accessors, then judged.
@Suite("gpsd reports through libgps and the CGPS accessors")
struct GPSDReportTests {
    static let saintOuen = (latitude: 48.9043, longitude: 2.333)

    /// A report decoded from the given lines, in order, as one connection would receive them.
    func decode(_ lines: String...) throws -> GPSDReport {
        try #require(GPSDReport(decodingJSONLines: lines), "libgps refused \(lines)")
    }

    @Test("a full TPV: every field forecastd reads arrives through its accessor")
    func fullTPV() throws {
        let report = try decode(
            #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"time":"2026-03-06T18:52:48.500Z","ept":0.005,"lat":48.9043,"lon":2.333,"altHAE":170.2,"altMSL":125.8,"epx":7.3,"epy":9.1,"epv":21.0,"eph":11.7}"#
        )
        #expect(report.hasMode)
        #expect(report.mode == 3)
        #expect(report.seconds == 1_772_823_168)
        #expect(report.nanoseconds == 500_000_000)
        #expect(report.latitude == 48.9043 && report.longitude == 2.333)
        #expect(report.altitudeMSL == 125.8)
        #expect(report.eph == 11.7 && report.epx == 7.3 && report.epy == 9.1 && report.epv == 21.0)
        #expect(report.status == 2)
        #expect(report.device == "/dev/ttyACM0")

        guard case .fix(let fix, let problem) = report.judged(receivedAt: Date(timeIntervalSince1970: 1_772_823_169))
        else {
            Issue.record("a good 3D fix was not judged a fix")
            return
        }
        #expect(problem == nil)
        #expect(fix.accuracyMeters == 11.7)
        #expect(fix.altitudeMeters == 125.8)
        #expect(fix.fixTime == Date(timeIntervalSince1970: 1_772_823_168.5))
    }

    @Test("fields a TPV leaves out read as unknown (NaN), even after a TPV that had them")
    func absentFieldsAreUnknown() throws {
        let report = try decode(
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-03-06T18:52:48.000Z","lat":48.9,"lon":2.3,"altMSL":125.8,"epx":7.3,"epy":9.1,"epv":21.0,"eph":11.7}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":2,"lat":48.9043,"lon":2.333}"#
        )
        #expect(report.mode == 2)
        #expect(report.eph.isNaN && report.epx.isNaN && report.epy.isNaN && report.epv.isNaN)
        #expect(report.altitudeMSL.isNaN)
        #expect(report.seconds == 0 && report.nanoseconds == 0)
        guard case .fix(let fix, nil) = report.judged(receivedAt: Date()) else {
            Issue.record("a 2D fix without errors or time was not judged a fix")
            return
        }
        // Unknown, not 0 m (which would claim a perfect fix) and not the previous report's values.
        #expect(fix.accuracyMeters == nil)
        #expect(fix.altitudeMeters == nil)
        #expect(fix.fixTime == nil)
    }

    @Test("without eph, the larger of epx and epy is the accuracy")
    func accuracyFromEpxEpy() throws {
        let report = try decode(
            #"{"class":"TPV","mode":2,"lat":48.9043,"lon":2.333,"epx":7.5,"epy":12.25}"#)
        guard case .fix(let fix, _) = report.judged(receivedAt: Date()) else {
            Issue.record("not a fix")
            return
        }
        #expect(fix.accuracyMeters == 12.25)
    }

    @Test("a SKY report says nothing about the fix; its used satellites are counted")
    func skyReport() throws {
        // gpsd 3.25 sends uSat and its libgps reads only that; 3.22's libgps counts the used flags.
        let report = try decode(
            #"{"class":"SKY","device":"/dev/ttyACM0","uSat":2,"nSat":3,"satellites":[{"PRN":5,"el":40.0,"az":90.0,"ss":30.0,"used":true},{"PRN":7,"el":10.0,"az":200.0,"ss":20.0,"used":false},{"PRN":12,"el":70.0,"az":300.0,"ss":41.0,"used":true}]}"#
        )
        #expect(!report.hasMode)
        #expect(report.satellitesUsed == 2)
        guard case .notAFix = report.judged(receivedAt: Date()) else {
            Issue.record("a SKY report was judged as a fix report")
            return
        }
    }

    @Test("the libgps API the accessors report is the one the installed gps.h declares")
    func apiVersion() throws {
        let installed = try installedLibgpsAPI()
        #expect(GPSDReport.libgpsAPI == installed)
        #expect(installed.split(separator: ".").first.flatMap { Int($0) }.map { $0 >= 11 } == true)
    }

    // MARK: What is refused

    @Test("modes other than 2 and 3 are never a fix", arguments: [-1, 4, 99, 2_147_483_647])
    func unknownModes(mode: Int) throws {
        let report = try decode(ScriptedGPSD.tpv(mode: mode, time: Date(), latitude: 48.9043, longitude: 2.333))
        #expect(report.mode == mode)
        guard case .refused(let problem) = report.judged(receivedAt: Date()) else {
            Issue.record("mode \(mode) was not refused")
            return
        }
        #expect(problem.kind == .unknownMode)
        #expect(problem.description.contains("\(mode)"))
    }

    @Test("mode 1 is gpsd saying it has no fix; mode 0 (not seen yet) is not even a fix report to libgps")
    func noFixModes() throws {
        let noFix = try decode(ScriptedGPSD.tpv(mode: 1, time: Date(), latitude: 48.9043, longitude: 2.333))
        guard case .noFix = noFix.judged(receivedAt: Date()) else {
            Issue.record("mode 1 was not judged no fix")
            return
        }
        let notSeen = try decode(ScriptedGPSD.tpv(mode: 0, time: Date(), latitude: 48.9043, longitude: 2.333))
        #expect(!notSeen.hasMode)
        guard case .notAFix = notSeen.judged(receivedAt: Date()) else {
            Issue.record("mode 0 was judged as a fix report")
            return
        }
    }

    @Test(
        "an error estimate that is infinite, negative or above 10 km refuses the fix",
        arguments: [
            #""eph":1e300"#, #""epx":-3.5"#, #""epy":10000.5"#, #""epv":4294967.295"#,
        ])
    func implausibleErrors(member: String) throws {
        let report = try decode(
            ScriptedGPSD.tpv(mode: 3, time: Date(), latitude: 48.9043, longitude: 2.333, extra: member))
        guard case .refused(let problem) = report.judged(receivedAt: Date()) else {
            Issue.record("\(member) was not refused")
            return
        }
        #expect(problem.kind == .implausibleError)
    }

    @Test("an error beyond a double's range never becomes an accuracy")
    func errorBeyondDouble() throws {
        let report = try decode(
            ScriptedGPSD.tpv(mode: 3, time: Date(), latitude: 48.9043, longitude: 2.333, extra: #""eph":1e309"#))
        // libgps 3.22 reads it as infinite, and the fix is refused; 3.25 reads it as unknown, and the fix counts
        // with no accuracy, as if gpsd had not said.
        switch report.judged(receivedAt: Date()) {
        case .refused(let problem):
            #expect(report.eph == .infinity)
            #expect(problem.kind == .implausibleError)
        case .fix(let fix, nil):
            #expect(report.eph.isNaN)
            #expect(fix.accuracyMeters == nil)
        default:
            Issue.record("eph 1e309 (read as \(report.eph)) was neither refused nor left unknown")
        }
    }

    @Test("an error estimate of exactly 10 km is still believed")
    func errorAtTheBound() throws {
        let report = try decode(
            ScriptedGPSD.tpv(mode: 3, time: Date(), latitude: 48.9043, longitude: 2.333, extra: #""eph":10000.0"#))
        guard case .fix(let fix, nil) = report.judged(receivedAt: Date()) else {
            Issue.record("an eph of 10 km was refused")
            return
        }
        #expect(fix.accuracyMeters == 10_000)
    }

    @Test("a 2D fix at (0, 0) or out of range is refused", arguments: [(0.0, 0.0), (91.0, 2.0), (48.0, 181.0)])
    func implausiblePositions(latitude: Double, longitude: Double) throws {
        let report = try decode(ScriptedGPSD.tpv(mode: 2, time: Date(), latitude: latitude, longitude: longitude))
        guard case .refused(let problem) = report.judged(receivedAt: Date()) else {
            Issue.record("(\(latitude), \(longitude)) was not refused")
            return
        }
        #expect(problem.kind == .implausiblePosition)
    }

    @Test("a fix time more than 5 minutes ahead of this machine's clock is dropped; the position stays")
    func futureTime() throws {
        let now = Date()
        let ahead = try decode(
            ScriptedGPSD.tpv(mode: 3, time: now.addingTimeInterval(301), latitude: 48.9043, longitude: 2.333))
        guard case .fix(let fix, let problem) = ahead.judged(receivedAt: now) else {
            Issue.record("a fix dated 301 s ahead lost its position")
            return
        }
        #expect(fix.fixTime == nil)
        #expect(fix.receivedAt == now)
        #expect(problem?.kind == .futureTime)

        // Within the allowance, ahead or behind, the time is kept (further behind: GPSDBoundsTests).
        let offsets: [TimeInterval] = [299, -299]
        for offset in offsets {
            let dated = try decode(
                ScriptedGPSD.tpv(mode: 3, time: now.addingTimeInterval(offset), latitude: 48.9043, longitude: 2.333))
            guard case .fix(let fix, nil) = dated.judged(receivedAt: now) else {
                Issue.record("a fix dated \(offset) s from now was not a plain fix")
                continue
            }
            let time = try #require(fix.fixTime)
            #expect(abs(time.timeIntervalSince(now) - offset) < 0.01)
        }
    }
}
