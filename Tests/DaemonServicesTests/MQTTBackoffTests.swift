import DaemonServices
import Testing

/// The waits between connection attempts to an MQTT broker.
struct MQTTBackoffTests {
    @Test func theWaitDoublesUpToTheMaximumAndTheJitterTakesAtMostHalf() {
        let backoff = MQTTService.Backoff(initial: .seconds(1), maximum: .seconds(300))
        #expect(backoff.delay(attempt: 0, random: 0) == .seconds(1))
        #expect(backoff.delay(attempt: 3, random: 0) == .seconds(8))
        #expect(backoff.delay(attempt: 8, random: 0) == .seconds(256))
        #expect(backoff.delay(attempt: 9, random: 0) == .seconds(300))
        #expect(backoff.delay(attempt: 1_000, random: 0) == .seconds(300))
        // The jitter: a household's daemons spread over half the wait after a broker restart.
        #expect(backoff.delay(attempt: 3, random: 0.5) == .seconds(6))
        #expect(backoff.delay(attempt: 3, random: 0.999) > .seconds(4))
    }

    @Test func aBadValueCannotMakeItSpin() {
        let backoff = MQTTService.Backoff(initial: .zero, maximum: .zero)
        #expect(backoff.delay(attempt: 0, random: 1) >= .milliseconds(50))
    }
}
