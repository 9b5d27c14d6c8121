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

    @Test("a move beyond half of the daemon's significant move is handed on at once; smaller steps add up")
    func moves() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        #expect(handOn.consider(fix(0)))
        #expect(!handOn.consider(fix(1, north: 5)))
        #expect(!handOn.consider(fix(2, north: 10)))
        // 15 m from the last fix handed on (12.5 m is half of 25 m).
        #expect(handOn.consider(fix(3, north: 15)))
        #expect(!handOn.consider(fix(4, north: 20)))
        #expect(handOn.consider(fix(5, north: 28)))
        // Walking back under the threshold each second is still kept back.
        #expect(!handOn.consider(fix(6, north: 18)))
    }

    @Test("a jump is handed on with the fixes that follow it, so the daemon's jump filter can confirm it")
    func jumpAndConfirmations() {
        let lisbon = Coordinate(latitude: 38.7223, longitude: -9.1393)
        var handOn = GPSDHandOn(interval: .seconds(5))
        var filter = JumpFilter(maxSpeedKmh: 1200)
        var verdicts: [JumpFilter.Verdict] = []
        var handed = 0
        for (second, place) in [(0, saintOuen), (1, saintOuen), (2, lisbon), (3, lisbon), (4, lisbon), (5.5, lisbon)] {
            let fix = fix(Double(second), at: place)
            if handOn.consider(fix) {
                handed += 1
                verdicts.append(filter.consider(fix))
            }
        }
        // Saint-Ouen, then Lisbon and the two fixes that confirm it; the one after that waits for its turn.
        #expect(handed == 4)
        #expect(verdicts.first == .accepted)
        #expect(verdicts.last == .confirmed, "verdicts: \(verdicts)")
    }

    @Test("a fix that gains its time or its altitude, or whose accuracy changes by 12.5 m or more, is handed on")
    func qualityChanges() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        #expect(handOn.consider(fix(0, timed: false)))
        #expect(handOn.consider(fix(1)), "the fix time appeared")
        #expect(handOn.consider(fix(2, altitude: nil)), "2D now")
        #expect(handOn.consider(fix(3)), "3D again")
        #expect(!handOn.consider(fix(4, accuracy: 15)))
        #expect(handOn.consider(fix(5, accuracy: 25)), "accuracy 8 m → 25 m")
        #expect(handOn.consider(fix(6, accuracy: nil)), "accuracy unknown")
    }

    @Test("the fix kept back is taken once, newest first, and due 1.5 intervals after the last hand-on")
    func keptFix() {
        var handOn = GPSDHandOn(interval: .seconds(4))
        #expect(handOn.flushDeadline == nil)
        #expect(handOn.consider(fix(0)))
        #expect(handOn.flushDeadline == nil, "nothing kept back")
        #expect(!handOn.consider(fix(1)))
        #expect(!handOn.consider(fix(2)))
        #expect(handOn.flushDeadline == start.addingTimeInterval(6))
        #expect(handOn.takePending()?.receivedAt == start.addingTimeInterval(2))
        #expect(handOn.takePending() == nil)
        #expect(handOn.flushDeadline == nil)
        // The taken fix counts as handed on: the interval runs from it.
        #expect(!handOn.consider(fix(5)))
        #expect(handOn.consider(fix(6)))
    }

    @Test("after a reset the next fix is a first one; interval zero hands every fix on")
    func resetAndZero() {
        var handOn = GPSDHandOn(interval: .seconds(5))
        #expect(handOn.consider(fix(0)))
        #expect(!handOn.consider(fix(1)))
        handOn.reset()
        #expect(handOn.pending == nil)
        #expect(handOn.consider(fix(2)))

        var everyFix = GPSDHandOn(interval: .zero)
        #expect((0..<5).allSatisfy { everyFix.consider(fix(Double($0))) })
    }

    @Test("the hand-on interval is at most 5 s and at most half the daemon's max fix age")
    func intervalFromMaxFixAge() {
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(120)) == .seconds(5))
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(6)) == .seconds(3))
        #expect(GPSDLocationProvider.handOnInterval(maxFixAge: .seconds(1)) == .milliseconds(500))
    }
}
