import DaemonState
import Waiting

extension Alarm {
    /// Calls `judge` now and again whenever `state` publishes a report or applies settings, or this alarm
    /// rings, until the task is cancelled; `judge` arms the alarm for its next moment. `group` runs further
    /// tasks for as long (a notifier's event stream).
    func follow(_ state: ForecastState, _ judge: (inout DiscardingTaskGroup) async -> Void) async {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in await state.subscribe() { wake.yield() } }
            group.addTask { for await _ in state.settings.updates() { wake.yield() } }
            group.addTask { await self.ring { wake.yield() } }
            for await _ in wakes {
                await judge(&group)
            }
            group.cancelAll()
        }
    }
}
