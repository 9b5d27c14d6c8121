import DaemonState
import ForecastModel
import Foundation
import Logging
import Testing
import TestSupport

/// The state owner's hooks for the alert service: warnings and air join the report without touching the
/// forecast, and the nowcast counts down at the moments its text changes.
@Suite("Forecast state: warnings, air and the nowcast", .onEventLoops)
struct AlertStateTests {
    let base = ForecastStateTests()

    /// Rain from 20 to 50 minutes after the clock's start, in quarter hours.
    func rainyForecast() -> Forecast {
        let start = base.clock.now
        let wet: Set<Int> = [1, 2, 3]
        var periods: [PrecipitationPeriod] = []
        for index in 0..<12 {
            let from = start.addingTimeInterval(Double(index) * 900)
            let amount: Double = wet.contains(index) ? 0.8 : 0
            periods.append(PrecipitationPeriod(start: from, end: from.addingTimeInterval(900), amount: amount))
        }
        var forecast = base.forecast()
        forecast.shortTerm = ShortTermPrecipitation(periods: periods, interpolated: false)
        return forecast
    }

    func pinnedState() async -> (ForecastState, Coordinate) {
        let pin = Coordinate(latitude: 48.9, longitude: 2.33)
        let state = base.makeState(base.configuration(pin: pin, gpsd: false, mode: .pinned))
        await state.tick()
        return (state, pin)
    }

    @Test("Warnings and air are published with the forecast; nil removes them, the weather stays")
    func setAlerts() async throws {
        let (state, pin) = await pinnedState()
        await state.forecastSucceeded(base.forecast(), for: pin)
        let warning = WeatherWarning(
            source: "meteoalarm", event: "Wind", severity: .moderate, expires: base.clock.now.addingTimeInterval(3600),
            identifier: "w1")
        await state.setAlerts(warnings: [warning], air: nil)
        #expect(await state.report.warnings?.map(\.identifier) == ["w1"])
        #expect(await state.report.current != nil)

        await state.setAlerts(warnings: nil, air: nil)
        #expect(await state.report.warnings == nil)
        #expect(await state.report.current != nil)
        #expect(await state.report.status == .ok)
    }

    @Test(
        "Warnings saved before a restart are in the report at once, stale once their source's answer is too old, and leave at their end"
    )
    func restoredWarnings() async throws {
        let pin = Coordinate(latitude: 48.9, longitude: 2.33)
        let state = base.makeState(base.configuration(pin: pin, gpsd: false, mode: .pinned))
        let now = base.clock.now
        let warning = WeatherWarning(
            source: "meteoalarm", event: "Wind", severity: .moderate, onset: now.addingTimeInterval(-3600),
            expires: now.addingTimeInterval(600), identifier: "w1", ends: now.addingTimeInterval(3600))
        let saved = SavedState.SavedWarnings(
            source: "meteoalarm", country: "FR", position: pin, fetchedAt: now.addingTimeInterval(-1200),
            staleAt: now.addingTimeInterval(-480), warnings: [warning])
        await state.restore(SavedState(forecast: base.forecast(), fix: nil, warnings: saved))
        await state.tick()
        #expect(await state.report.warnings?.map(\.identifier) == ["w1"])
        #expect(await state.report.warningsStale == true)
        // The alert service takes them once, as its source's last good answer.
        #expect(await state.takeRestoredWarnings() == saved)
        #expect(await state.takeRestoredWarnings() == nil)
        // Past the message's expiry it stays; at its end it leaves the report.
        base.clock.advance(1200)
        await state.tick()
        #expect(await state.report.warnings?.map(\.identifier) == ["w1"])
        base.clock.advance(2401)
        await state.tick()
        #expect(await state.report.warnings == [])
    }

    @Test("The nowcast counts down: republished at the moment its text changes, not before")
    func nowcastCountsDown() async throws {
        let (state, pin) = await pinnedState()
        await state.forecastSucceeded(rainyForecast(), for: pin)
        base.clock.advance(60)
        await state.rejudgeNowcast()
        let first = try #require(await state.report.nowcast)
        #expect(first.minutesUntil == 14)
        #expect(first.text.hasPrefix("Rain in 15 min"))

        let change = try #require(await state.nextNowcastChange)
        #expect(change > base.clock.now)
        #expect(change <= base.clock.now.addingTimeInterval(5 * 60))
        base.clock.advance(change.timeIntervalSince(base.clock.now))
        await state.rejudgeNowcast()
        let second = try #require(await state.report.nowcast)
        #expect(second.text != first.text)
        #expect(second.minutesUntil < first.minutesUntil)
    }

    @Test("[nowcast] enabled = false keeps the nowcast out of the report")
    func nowcastOff() async throws {
        let pin = Coordinate(latitude: 48.9, longitude: 2.33)
        var configuration = base.configuration(pin: pin, gpsd: false, mode: .pinned)
        configuration.nowcast.enabled = false
        let state = base.makeState(configuration)
        await state.tick()
        await state.forecastSucceeded(rainyForecast(), for: pin)
        #expect(await state.report.nowcast == nil)
        #expect(await state.nextNowcastChange == nil)
    }
}
