import DaemonState
import Foundation
import Logging
import NIOPosix
import Settings
import Testing
import TestSupport

extension ForecastState {
    /// Whether this actor's code runs on one of NIO's event loops, as it does in the daemon.
    fileprivate func runsOnAnEventLoop() -> Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
}

private func makeState() -> ForecastState {
    ForecastState(settings: .testing(), places: FixedPlaces(), logger: Logger(label: "test"))
}

@Suite("The daemon's executor in tests", .onEventLoops)
struct OnEventLoopsTests {
    @Test("under .onEventLoops the state actor runs on an event loop, as in production")
    func stateRunsOnALoop() async {
        #expect(await makeState().runsOnAnEventLoop())
    }

    @Test("so do a test's child tasks, and a task group's")
    func childTasksRunOnALoop() async {
        let onLoops = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { MultiThreadedEventLoopGroup.currentEventLoop != nil } }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(onLoops)
    }
}

@Suite("Without the trait")
struct WithoutOnEventLoopsTests {
    @Test("the state actor runs on Swift's default executor, not a loop: what the trait changes")
    func stateOffTheLoops() async {
        #expect(await !makeState().runsOnAnEventLoop())
    }
}
