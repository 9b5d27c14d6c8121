import CWaiting
import Foundation
import NIOConcurrencyHelpers
import Testing
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// A source on a descriptor the test owns, or on none, with a deadline the test sets; it counts its calls and
/// says on which thread each came.
private final class CountingSource: WaitSource {
    let descriptor: Int32?
    /// Set by the test from its own thread; asked by the waiter before each wait.
    let deadlineBox: NIOLockedValueBox<ContinuousClock.Instant?>
    var deadline: ContinuousClock.Instant? { deadlineBox.withLockedValue { $0 } }
    let calls: NIOLockedValueBox<[(thread: Int32, events: Readiness)]>
    let called: AsyncStream<Void>.Continuation
    /// Reads what is there, as a real source does; false leaves it, so the descriptor stays readable.
    let drains: Bool

    init(
        descriptor: Int32?, deadline: NIOLockedValueBox<ContinuousClock.Instant?>, drains: Bool = true,
        calls: NIOLockedValueBox<[(thread: Int32, events: Readiness)]>, called: AsyncStream<Void>.Continuation
    ) {
        self.descriptor = descriptor
        self.deadlineBox = deadline
        self.drains = drains
        self.calls = calls
        self.called = called
    }

    var interest: (descriptor: Int32, events: Readiness)? { descriptor.map { ($0, .readable) } }

    func ready(_ events: Readiness) {
        if drains, let descriptor, events.contains(.readable) {
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = read(descriptor, &buffer, buffer.count)
        }
        calls.withLockedValue { $0.append((cwait_thread_id(), events)) }
        called.yield()
    }
}

/// The sources a test added, and what they saw.
private struct Probe: Sendable {
    let calls = NIOLockedValueBox<[(thread: Int32, events: Readiness)]>([])
    let deadline = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    let stream: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }

    var count: Int { calls.withLockedValue { $0.count } }

    /// Adds a source made on the waiter's thread.
    func add(
        descriptor: Int32?, deadline: ContinuousClock.Instant? = nil, drains: Bool = true
    ) async -> WaitToken {
        self.deadline.withLockedValue { $0 = deadline }
        let (calls, continuation, box) = (calls, continuation, self.deadline)
        return await DescriptorWaiter.shared.perform {
            DescriptorWaiter.shared.add(
                CountingSource(
                    descriptor: descriptor, deadline: box, drains: drains, calls: calls, called: continuation))
        }
    }
}

/// A pipe, both ends non-blocking; closed by `close()`.
private struct Pipe {
    let reader: Int32
    let writer: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        (reader, writer) = (ends[0], ends[1])
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
    }

    func write() {
        var byte: UInt8 = 1
        _ = Glibc.write(writer, &byte, 1)
    }

    func close() {
        _ = Glibc.close(reader)
        _ = Glibc.close(writer)
    }
}

/// An actor that owns a C library's objects on the waiter's thread.
private actor LibraryOwner {
    nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorWaiter.shared.asUnownedSerialExecutor() }
    func thread() -> Int32 { cwait_thread_id() }
}

@OnWaiter private func globalThread() -> Int32 {
    DescriptorWaiter.shared.checkIsolated()
    return cwait_thread_id()
}

/// The waiter is one process-wide thread; its tests run one at a time, so that the descriptors they count are
/// their own.
@Suite("Descriptor waiter", .serialized, .timeLimit(.minutes(3)))
struct DescriptorWaiterTests {
    @Test("a readable descriptor calls ready on the waiter's thread, named fd-waiter as the kernel shows it")
    func readableOnTheWaitersThread() async throws {
        let pipe = try Pipe()
        defer { pipe.close() }
        let probe = Probe()
        let token = await probe.add(descriptor: pipe.reader)
        var calls = probe.stream.makeAsyncIterator()
        pipe.write()
        _ = await calls.next()

        let thread = try #require(DescriptorWaiter.shared.threadID)
        let seen = probe.calls.withLockedValue { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.thread == thread)
        #expect(seen.first?.events == .readable)
        let name = try String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
        #expect(name == "fd-waiter\n")
        await DescriptorWaiter.shared.perform { DescriptorWaiter.shared.remove(token) }
    }

    @Test("a past deadline calls ready once, not in a loop, and once more when it changes")
    func pastDeadlineRingsOnce() async throws {
        let past = Probe()
        let pastToken = await past.add(descriptor: nil, deadline: .now - .seconds(1))
        var pastCalls = past.stream.makeAsyncIterator()
        _ = await pastCalls.next()

        // A later deadline of another source: a waiter that spun on the first deadline would have called it many
        // times over by the time this one rings (0.2 s is thousands of rounds).
        let later = Probe()
        let laterToken = await later.add(descriptor: nil, deadline: .now + .milliseconds(200))
        var laterCalls = later.stream.makeAsyncIterator()
        _ = await laterCalls.next()
        #expect(past.count == 1)
        #expect(later.count == 1)
        #expect(past.calls.withLockedValue { $0.allSatisfy { $0.events.isEmpty } })

        // Another past instant is another deadline: it rings once too. (The waiter asks again after any work.)
        past.deadline.withLockedValue { $0 = .now - .milliseconds(500) }
        await DescriptorWaiter.shared.perform {}
        _ = await pastCalls.next()
        later.deadline.withLockedValue { $0 = .now + .milliseconds(200) }
        await DescriptorWaiter.shared.perform {}
        _ = await laterCalls.next()
        #expect(past.count == 2)
        #expect(later.count == 2)

        await DescriptorWaiter.shared.perform { DescriptorWaiter.shared.remove(laterToken) }
        await DescriptorWaiter.shared.perform { DescriptorWaiter.shared.remove(pastToken) }
    }

    @Test("remove stops calls: a descriptor left readable is not reported after its source is removed")
    func removeStopsCalls() async throws {
        let pipe = try Pipe()
        defer { pipe.close() }
        let probe = Probe()
        // Not drained: while the source is watched, every round reports it again.
        let token = await probe.add(descriptor: pipe.reader, drains: false)
        var calls = probe.stream.makeAsyncIterator()
        pipe.write()
        _ = await calls.next()
        await DescriptorWaiter.shared.perform { DescriptorWaiter.shared.remove(token) }
        let afterRemoval = probe.count

        // Written before the marker is handed over: the round that sees the marker's wake sees this byte too.
        pipe.write()
        await DescriptorWaiter.shared.perform {}
        await DescriptorWaiter.shared.perform {}
        #expect(probe.count == afterRemoval)
    }

    @Test("an actor on the waiter runs on its thread")
    func actorOnTheWaiter() async throws {
        let owner = LibraryOwner()
        let fromActor = await owner.thread()
        let fromGlobal = await globalThread()
        let waiter = try #require(DescriptorWaiter.shared.threadID)
        #expect(fromActor == waiter)
        #expect(fromGlobal == waiter)
        #expect(fromActor != cwait_thread_id())
    }

    @Test("1,000 add and remove cycles leave no source watched")
    func addRemoveCycles() async throws {
        let pipe = try Pipe()
        defer { pipe.close() }
        let probe = Probe()
        for _ in 0..<1000 {
            let token = await probe.add(descriptor: pipe.reader, deadline: .now + .seconds(3600), drains: false)
            await DescriptorWaiter.shared.perform { DescriptorWaiter.shared.remove(token) }
        }
        // A byte on their descriptor, then work queued after it: a source still watched would be called first.
        pipe.write()
        await DescriptorWaiter.shared.perform {}
        await DescriptorWaiter.shared.perform {}
        #expect(probe.count == 0)
    }
}
