import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport
import Waiting

@Suite(.onEventLoops) struct AlarmTests {
    @Test("a cancelled sleep ends at once instead of at its deadline")
    func cancelledSleepEnds() async {
        let sleeper = Task { try await Alarm.sleep(for: .seconds(3600)) }
        sleeper.cancel()
        // Against the code before (Task.sleep on these executors, or a sleep ignoring cancellation) this waits
        // an hour; the suite's own limit then fails it.
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("a sleep until a moment that has passed returns at once; a short one returns after its time")
    func sleepUntil() async throws {
        try await Alarm.sleep(until: .now - .seconds(10))
        let start = ContinuousClock.now
        try await Alarm.sleep(for: .milliseconds(50))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test("an armed moment in the past rings once, not in a loop; arming again rings again")
    func ringsOncePerArming() async {
        let alarm = Alarm()
        let (rings, ring) = AsyncStream.makeStream(of: Int.self)
        let count = NIOLockedValueBox(0)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await alarm.ring { ring.yield(count.withLockedValue { $0 += 1; return $0 }) }
            }
            var heard = rings.makeAsyncIterator()
            alarm.arm(Date(timeIntervalSinceNow: -5))
            #expect(await heard.next() == 1)
            // A later arming rings again; had the first rung in a loop, the count here would be past 2.
            alarm.arm(Date(timeIntervalSinceNow: 0.05))
            #expect(await heard.next() == 2)
            group.cancelAll()
        }
        #expect(count.withLockedValue { $0 } == 2)
    }

    @Test("arming an earlier moment wakes a ringer asleep until a later one")
    func earlierMomentWakes() async {
        let alarm = Alarm()
        let (rings, ring) = AsyncStream.makeStream(of: Void.self)
        await withDiscardingTaskGroup { group in
            group.addTask { await alarm.ring { ring.yield() } }
            alarm.arm(Date(timeIntervalSinceNow: 3600))
            alarm.arm(Date(timeIntervalSinceNow: 0.05))
            var heard = rings.makeAsyncIterator()
            await heard.next()
            group.cancelAll()
        }
    }
}
