import DaemonState
import ForecastModel
import Foundation
import MQTTPayloads
import Settings
import Testing

/// A follower's state (`[mqtt] follow`): the followed report rendered in this daemon's units, marked stale when
/// the publisher is offline or its report is overdue, an older report never replacing a newer one, and the last
/// good one restored after a restart for the same topic only.
struct FollowStateTests: OnTestClock {
    let clock = TestClock()

    /// A report published now by `forecastd/pub`, refreshing every 15 minutes, its forecast stale after 2 hours
    /// (so that only the report's own age can make it stale within the test).
    func shared(temperature: Double = 10, publishedAt: Date? = nil) -> SharedReport {
        var forecast = forecast()
        forecast.current?.temperature = temperature
        let inputs = ReportInputs(fix: nil, forecast: forecast, staleAfter: 7200)
        return SharedReport(
            publishedAt: publishedAt ?? clock.now,
            publisher: SharedPublisher(topic: "forecastd/pub", version: "test", refreshSeconds: 900, staleAfterSeconds: 7200),
            model: SharedModel(inputs, now: clock.now))
    }

    func imperialFollower() async -> ForecastState {
        var settings = Settings.testing(gpsd: false)
        settings.units = .imperial
        let state = makeState(settings)
        await state.startFollowing(topic: "forecastd/pub")
        return state
    }

    @Test func withoutAnyReportTheFollowerSaysSoAfterItsFirstWait() async throws {
        let state = await imperialFollower()
        #expect(await state.report.errors.isEmpty)
        clock.advance(29)
        await state.tick()
        #expect(await state.report.errors.isEmpty)
        clock.advance(2)
        await state.tick()
        let waited = await state.report
        #expect(waited.errors.contains { $0.kind == "offline" && $0.message.contains("forecastd/pub") }, "\(waited.errors)")
        await state.followed(shared(temperature: 10))
        #expect(await state.report.errors.isEmpty)
    }

    @Test func theFollowedReportIsRenderedInThisDaemonsUnitsAndTurnsStaleOnceOverdue() async throws {
        let state = await imperialFollower()
        #expect(await state.report.current == nil)
        await state.followed(shared(temperature: 10))
        let report = await state.report
        #expect(report.units.temperature == "°F")
        #expect(report.current?.temperature == 50)
        #expect(!report.stale)

        // 15 minutes of interval and 5 of grace: just before, fresh; just after, stale and said why.
        clock.advance(1199)
        await state.tick()
        #expect(await !state.report.stale)
        clock.advance(2)
        await state.tick()
        let overdue = await state.report
        #expect(overdue.stale)
        #expect(overdue.errors.contains { $0.kind == "timeout" && $0.message.contains("forecastd/pub") })
        #expect(overdue.current?.temperature == 50)

        // A new report makes it fresh again.
        await state.followed(shared(temperature: 20))
        #expect(await !state.report.stale)
        #expect(await state.report.current?.temperature == 68)
    }

    @Test func anOfflinePublisherMarksTheReportStaleAndAnOlderReportNeverReplacesANewerOne() async throws {
        let state = await imperialFollower()
        await state.followed(shared(temperature: 10))
        await state.followedPublisher(online: false)
        let offline = await state.report
        #expect(offline.stale)
        #expect(offline.errors.contains { $0.kind == "offline" })
        await state.followedPublisher(online: true)
        #expect(await !state.report.stale)
        #expect(await state.report.errors.isEmpty)

        // A message published before the one held (a redelivery) changes nothing.
        await state.followed(shared(temperature: 30, publishedAt: clock.now.addingTimeInterval(-60)))
        #expect(await state.report.current?.temperature == 50)
        // A user's refresh fetches nothing: the answer names the followed topic.
        let refresh = await state.refreshNow()
        #expect(refresh.kind == .following && refresh.provider == "forecastd/pub")
    }

    @Test func theLastGoodReportIsRestoredStaleForTheSameTopicOnly() async throws {
        let saved = SavedState(
            forecast: nil, fix: nil, followed: SavedState.SavedFollowed(topic: "forecastd/pub", report: shared()))
        let state = await imperialFollower()
        await state.restore(saved)
        let restored = await state.report
        #expect(restored.current?.temperature == 50)
        #expect(restored.stale)
        // The publisher heard again: fresh.
        await state.followed(shared(temperature: 10))
        #expect(await !state.report.stale)

        var otherTopic = saved
        otherTopic.followed?.topic = "forecastd/boat"
        let other = await imperialFollower()
        await other.restore(otherTopic)
        #expect(await other.report.current == nil)
    }
}
