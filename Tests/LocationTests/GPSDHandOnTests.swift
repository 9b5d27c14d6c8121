import ForecastModel
import Foundation
import Location
import Testing

@Suite("GPSDHandOn: the gpsd reader hands on fixes that matter, and the rest at most every interval")
struct GPSDHandOnTests {
    let start = Date(timeIntervalSince1970: 1_750_000_000)
    let saintOuen = Coordinate(latitude: 48.9043, longitude: 2.3330)

    /// A 3D fix `seconds` after `start`, `north` metres north of Saint-Ouen, received when the receiver made it.
    func fix(
        _ seconds: Double, north: Double = 0, at coordinate: Coordinate? = nil, accuracy: Double? = 8,
        altitude: Double? = 124, timed: Bool = true
    ) -> LocationFix {
        let base = coordinate ?? saintOuen
        let time = start.addingTimeInterval(seconds)
        return LocationFix(
            coordinate: Coordinate(latitude: base.latitude + north / 111_195, longitude: base.longitude), source: .gpsd,
            accuracyMeters: accuracy, altitudeMeters: altitude, fixTime: timed ? time : nil, receivedAt: time)
    }

    @Test("a receiver sitting still at 1 Hz for 20 s: the first fix, then one every 5 s, each the newest")
    func stillReceiver() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        var handed: [Double] = []
        for second in 0...20 {
            // Receiver noise: a couple of metres either way.
            if handOn.consider(fix(Double(second), north: second % 2 == 0 ? 2 : -2)) { handed.append(Double(second)) }
        }
        #expect(handed == [0, 5, 10, 15, 20])
    }

    /// Whether each fix, in turn, is handed on.
    func verdicts(_ handOn: inout GPSDHandOn, _ fixes: [LocationFix]) -> [Bool] {
        fixes.map { handOn.consider($0) }
    }

    @Test("a move beyond half of the daemon's significant move is handed on at once; smaller steps add up")
    func moves() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        let handed = verdicts(
            &handOn,
            [
                fix(0), fix(1, north: 5), fix(2, north: 10),
                // 15 m from the last fix handed on (12.5 m is half of 25 m).
                fix(3, north: 15), fix(4, north: 20), fix(5, north: 28),
                // Walking back under the threshold is still kept back.
                fix(6, north: 18),
            ])
        #expect(handed == [true, false, false, true, false, true, false])
    }

    @Test("a jump is handed on with the fixes that follow it, so the daemon's jump filter can confirm it")
    func jumpAndConfirmations() {
        let lisbon = Coordinate(latitude: 38.7223, longitude: -9.1393)
        var handOn = GPSDHandOn(interval: .seconds(5))
        var filter = JumpFilter(maxSpeedKmh: 1200)
        var judged: [JumpFilter.Verdict] = []
        var handed = 0
        for (second, place) in [(0, saintOuen), (1, saintOuen), (2, lisbon), (3, lisbon), (4, lisbon), (5.5, lisbon)] {
            let fix = fix(Double(second), at: place)
            if handOn.consider(fix) {
                handed += 1
                judged.append(filter.consider(fix))
            }
        }
        // Saint-Ouen, then Lisbon and the two fixes that confirm it; the one after that waits for its turn.
        #expect(handed == 4)
        #expect(judged.first == .accepted)
        #expect(judged.last == .confirmed, "verdicts: \(judged)")
    }

    @Test("a fix that gains its time or its altitude, or whose accuracy changes by 12.5 m or more, is handed on")
    func qualityChanges() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        let handed = verdicts(
            &handOn,
            [
                fix(0, timed: false),
                fix(1),  // the fix time appeared
                fix(2, altitude: nil),  // 2D now
                fix(3),  // 3D again
                fix(4, accuracy: 15),  // 7 m worse than the last handed on: kept
                fix(5, accuracy: 25),  // 17 m worse
                fix(6, accuracy: nil),  // unknown
            ])
        #expect(handed == [true, true, true, true, false, true, true])
    }

    @Test("the fix kept back is taken once, newest first, and due 1.5 intervals after the last hand-on")
    func keptFix() {
        var handOn = GPSDHandOn(interval: .seconds(4))
        #expect(handOn.flushDeadline == nil)
        #expect(verdicts(&handOn, [fix(0)]) == [true])
        #expect(handOn.flushDeadline == nil, "nothing kept back")
        #expect(verdicts(&handOn, [fix(1), fix(2)]) == [false, false])
        #expect(handOn.flushDeadline == start.addingTimeInterval(6))
        let kept = handOn.takePending()
        #expect(kept?.receivedAt == start.addingTimeInterval(2))
        let again = handOn.takePending()
        #expect(again == nil)
        #expect(handOn.flushDeadline == nil)
        // The taken fix counts as handed on: the interval runs from it.
        #expect(verdicts(&handOn, [fix(5), fix(6)]) == [false, true])
    }

    @Test("after a reset the next fix is a first one; interval zero hands every fix on")
    func resetAndZero() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        #expect(verdicts(&handOn, [fix(0), fix(1)]) == [true, false])
        handOn.reset()
        #expect(handOn.pending == nil)
        #expect(verdicts(&handOn, [fix(2)]) == [true])

        var everyFix = GPSDHandOn(interval: .zero)
        #expect(verdicts(&everyFix, (0..<5).map { fix(Double($0)) }) == [true, true, true, true, true])
    }

    @Test("the hand-on interval is at most 5 s and at most half the daemon's max fix age")
    func intervalFromMaxFixAge() {
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(120)) == .seconds(5))
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(6)) == .seconds(3))
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(1)) == .milliseconds(500))
    }
}
