@testable import DaemonServices
import DaemonState
import ForecastModel
import Foundation
import Location
import Logging
import Settings
import Testing
import TestSupport
import WeatherProviders

@Suite("Waking on the network's return and on resume", .onEventLoops)
struct WakeTests {
    let clock = TestClock()

    func makeState(pin: Coordinate? = nil) -> ForecastState {
        let clock = self.clock
        return ForecastState(
            settings: .testing(pin: pin, gpsd: pin == nil), places: FixedPlaces(), logger: Logger(label: "test"), clock: { clock.now })
    }

    func fix() -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: 48.9043, longitude: 2.3330), source: .gpsd, accuracyMeters: 5,
            receivedAt: clock.now)
    }

    @Test("the suspended time growing by a second or more is a resume; the clocks' reading jitter is not")
    func resumeJudgement() {
        // An injected clock: the totals CLOCK_BOOTTIME minus CLOCK_MONOTONIC would read.
        var judge = ResumeJudge(suspended: .milliseconds(70))
        #expect(judge.sleptSinceLastLook(suspended: .milliseconds(71)) == nil)
        #expect(judge.sleptSinceLastLook(suspended: .milliseconds(950)) == nil)
        #expect(judge.sleptSinceLastLook(suspended: .milliseconds(950) + .seconds(3600)) == .seconds(3600))
        // Judged from the last look: the same total again is no second resume.
        #expect(judge.sleptSinceLastLook(suspended: .milliseconds(950) + .seconds(3600)) == nil)
        #expect(judge.sleptSinceLastLook(suspended: .milliseconds(950) + .seconds(3602)) == .seconds(2))
    }

    @Test("this machine's suspended time reads and never goes back")
    func suspendedTimeReads() {
        let first = ResumeJudge.suspendedSinceBoot()
        let second = ResumeJudge.suspendedSinceBoot()
        #expect(first >= .zero)
        // Read one clock after the other: at most a little jitter between two reads.
        #expect(second - first > .milliseconds(-5))
    }

    @Test("after the network returns, an offline failure is retried at once, not after its backoff")
    func offlineRetriedAtOnce() async throws {
        let state = makeState()
        await state.handle(.fix(fix()))
        let target = Coordinate(latitude: 48.9043, longitude: 2.3330)
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused"), for: target,
            retryAt: clock.now.addingTimeInterval(60))
        clock.advance(5)
        #expect(await state.takeDueFetch()?.coordinate == nil)
        await state.networkOrClockChanged()
        // Due now, with the reason that lets the chain ask the providers that failed for want of a network.
        #expect(await state.takeDueFetch() == DueFetch(coordinate: target, reason: .networkReturned))
        // Taken once: a second failure backs off again as usual.
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .offline, detail: "connection refused"), for: target,
            retryAt: clock.now.addingTimeInterval(60))
        clock.advance(5)
        #expect(await state.takeDueFetch()?.coordinate == nil)
    }

    @Test("a provider's own refusal keeps its wait when the network returns")
    func retryAfterKept() async {
        let state = makeState()
        await state.handle(.fix(fix()))
        let target = Coordinate(latitude: 48.9043, longitude: 2.3330)
        await state.forecastFailed(
            ProviderError(provider: "open-meteo", kind: .rateLimited, detail: "HTTP 429", retryAfter: .seconds(600)),
            for: target, retryAt: clock.now.addingTimeInterval(600))
        clock.advance(5)
        await state.networkOrClockChanged()
        #expect(await state.takeDueFetch()?.coordinate == nil)
    }

    @Test("after a resume, a forecast that fell due while asleep is asked for at once", .timeLimit(.minutes(3)))
    func overdueAfterResume() async {
        let target = Coordinate(latitude: -34.9011, longitude: -56.1645)
        let state = makeState(pin: target)
        var requests = state.refreshRequests.makeAsyncIterator()
        await state.tick()
        #expect(await state.takeDueFetch()?.coordinate == target)
        await state.forecastSucceeded(
            Forecast(
                provider: "open-meteo", attribution: "test", coordinate: target, fetchedAt: clock.now,
                utcOffsetSeconds: 3600, timezone: nil, current: CurrentConditions(time: clock.now, temperature: 10),
                hourly: [], daily: []),
            for: target)
        await requests.next()  // the first fetch's request
        // Two hours asleep: the wall clock moved on; the state's monotonic timer, 15 minutes away when the
        // machine slept, has not fired. Only the wake asks the forecast service now (else this waits, and fails).
        clock.advance(7200)
        await state.networkOrClockChanged()
        await requests.next()
        #expect(await state.takeDueFetch()?.coordinate == target)
    }
}
