import Executors
import Foundation
import NIOCore
import NIOPosix
import Testing

@Suite struct EventLoopTaskExecutorTests {
    @Test func aTaskThatPrefersTheExecutorRunsOnTheGroupsEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = EventLoopTaskExecutor(group: group)
        let loop = group.next()
        let ranOnLoop = await Task(executorPreference: executor) { loop.inEventLoop }.value
        #expect(ranOnLoop)
        try await group.shutdownGracefully()
    }

    @Test func childTasksStartedOnALoopStayOnThatLoop() async throws {
        // Work that starts from I/O on one loop must not wake the group's other threads.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let executor = EventLoopTaskExecutor(group: group)
        let loops = await withTaskExecutorPreference(executor) {
            let parent = MultiThreadedEventLoopGroup.currentEventLoop.map(ObjectIdentifier.init)
            let children = await withTaskGroup(of: ObjectIdentifier?.self) { tasks in
                for _ in 0..<20 {
                    tasks.addTask { MultiThreadedEventLoopGroup.currentEventLoop.map(ObjectIdentifier.init) }
                }
                return await tasks.reduce(into: []) { $0.append($1) }
            }
            return (parent, children)
        }
        #expect(loops.0 != nil)
        #expect(loops.1.count == 20)
        #expect(loops.1.allSatisfy { $0 == loops.0 })
        try await group.shutdownGracefully()
    }

    @Test func jobsFromOtherThreadsAllGoToOneLoop() async throws {
        // A fix from gpsd's reader thread, then the next: the same loop, so timers re-armed per fix stay there.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let executor = EventLoopTaskExecutor(group: group)
        var loops: Set<ObjectIdentifier> = []
        for _ in 0..<8 {
            let loop = await Task(executorPreference: executor) {
                MultiThreadedEventLoopGroup.currentEventLoop.map(ObjectIdentifier.init)
            }.value
            loops.insert(try #require(loop))
        }
        #expect(loops.count == 1)
        try await group.shutdownGracefully()
    }
}

/// An actor whose jobs run on a ``MainThreadExecutor`` driven by a thread of the test's own.
private actor OnRunLoop {
    let executor: MainThreadExecutor
    init(executor: MainThreadExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func isolatedHere() -> Bool {
        executor.isIsolatingCurrentContext() == true
    }
}

@Suite struct MainThreadExecutorTests {
    @Test func jobsRunOnTheThreadInRunUntilStopIsCalled() async throws {
        let executor = MainThreadExecutor()
        let (finished, finish) = AsyncStream<Void>.makeStream()
        let runner = Thread {
            try? executor.run()
            finish.yield()
            finish.finish()
        }
        runner.start()
        let actor = OnRunLoop(executor: executor)
        var results: [Bool] = []
        for _ in 0..<5 { results.append(await actor.isolatedHere()) }
        #expect(results == [true, true, true, true, true])
        // Outside the actor, this thread is not the executor's.
        #expect(executor.isIsolatingCurrentContext() == false)
        executor.stop()
        var iterator = finished.makeAsyncIterator()
        #expect(await iterator.next() != nil, "run() returns after stop()")
    }
}
