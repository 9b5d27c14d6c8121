import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing
import TestSupport
import Waiting

@Suite(.onEventLoops) struct BlockingTests {
    /// The name of the calling thread, as a thread listing shows it.
    private static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("work runs on the one blocking thread, never on an event loop")
    func runsOffTheLoops() async {
        let seen = await Blocking.run { (Self.threadName(), MultiThreadedEventLoopGroup.currentEventLoop == nil) }
        #expect(seen.0 == "blocking0")
        #expect(seen.1, "the work ran on an event loop")
    }

    @Test("work handed over by a cancelled task still runs, once, and the caller gets its result")
    func cancelledCallerStillRuns() async {
        let runs = NIOLockedValueBox(0)
        let answer = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            return await Blocking.run {
                runs.withLockedValue { $0 += 1 }
                return 42
            }
        }.value
        #expect(answer == 42)
        #expect(runs.withLockedValue { $0 } == 1)
    }

    @Test("what the work throws reaches the caller with its type")
    func typedThrows() async {
        struct Refused: Error, Equatable { let path: String }
        do throws(Refused) {
            try await Blocking.run { () throws(Refused) -> Void in throw Refused(path: "/x") }
            Issue.record("nothing thrown")
        } catch {
            #expect(error == Refused(path: "/x"))
        }
    }

    @Test("work handed over from many tasks runs one at a time, in the order each task handed it")
    func oneAtATime() async {
        let log = NIOLockedValueBox<(running: Int, most: Int, order: [Int: [Int]])>((0, 0, [:]))
        await withDiscardingTaskGroup { group in
            for writer in 0..<4 {
                group.addTask {
                    for step in 0..<25 {
                        await Blocking.run {
                            log.withLockedValue { $0.running += 1; $0.most = max($0.most, $0.running) }
                            usleep(100)
                            log.withLockedValue { $0.running -= 1; $0.order[writer, default: []].append(step) }
                        }
                    }
                }
            }
        }
        let result = log.withLockedValue { $0 }
        #expect(result.most == 1)
        for writer in 0..<4 { #expect(result.order[writer] == Array(0..<25)) }
    }
}
