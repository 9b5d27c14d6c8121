import Logging
import Testing
import TestSupport

@testable import Systemd

/// The watchdog pings only after its probe returns: a wedged state owner means no WATCHDOG=1.
@Suite("systemd watchdog")
struct WatchdogTests {
    /// A probe the test holds: each call says it began, then waits until the test lets it answer.
    final class HeldProbe: Sendable {
        let began: AsyncStream<Void>
        private let beganContinuation: AsyncStream<Void>.Continuation
        private let answers: AsyncStream<Void>
        let answer: AsyncStream<Void>.Continuation

        init() {
            (began, beganContinuation) = AsyncStream.makeStream(of: Void.self)
            (answers, answer) = AsyncStream.makeStream(of: Void.self)
        }

        func callAsFunction() async {
            beganContinuation.yield()
            for await _ in answers { return }
        }
    }

    @Test("WATCHDOG=1 follows each answered probe, and none is sent while the probe hangs")
    func pingsOnlyWhenTheProbeAnswers() async throws {
        let listener = try NotifySocket(path: nil)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address], logger: Logger(label: "test"))
        // The test steps time: each tick ends one wait between pings.
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self)
        let (waits, waitStarted) = AsyncStream.makeStream(of: Duration.self)
        let probe = HeldProbe()
        let watchdog = Watchdog(
            notifier: notifier, interval: .seconds(120), probe: { await probe() },
            sleep: { duration in
                waitStarted.yield(duration)
                for await _ in ticks { return }
                throw CancellationError()
            })
        let running = Task { await watchdog.run() }
        var waitIterator = waits.makeAsyncIterator()
        var beganIterator = probe.began.makeAsyncIterator()

        // It waits the interval it was given before the first probe.
        #expect(await waitIterator.next() == .seconds(120))
        tick.yield()
        // The probe has begun and hangs (a wedged actor): no ping may have gone out.
        _ = await beganIterator.next()
        #expect(listener.pending() == nil)
        // Time passes while it hangs: still nothing, and it does not start another wait either.
        tick.yield()
        tick.yield()
        #expect(listener.pending() == nil)
        // The state answers: one ping, then the next wait.
        probe.answer.yield()
        // Waited for on a thread of its own: a blocking wait here would hold one of the cooperative pool's two
        // threads while the watchdog's task needs one to send the ping (CI saw it come after the 10 s wait).
        #expect(await listener.next() == "WATCHDOG=1")
        #expect(await waitIterator.next() == .seconds(120))
        #expect(listener.pending() == nil)

        running.cancel()
        tick.finish()
        probe.answer.finish()
        await running.value
    }
}
