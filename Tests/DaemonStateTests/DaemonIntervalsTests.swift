import DaemonState
import Foundation
import Testing
import TestSupport

/// `FORECASTD_TEST_INTERVALS`: how a test shortens the daemon's fixed waits, and what the daemon refuses.
@Suite("Test intervals", .onEventLoops)
struct DaemonIntervalsTests {
    @Test("unset: the real waits; set: each named wait shortened, the others real")
    func parsing() throws {
        #expect(try DaemonIntervals.fromEnvironment([:]).get() == .real)
        #expect(try DaemonIntervals.fromEnvironment([:]).get().isShortened == false)
        let shortened = try DaemonIntervals.fromEnvironment([DaemonIntervals.variable: "user_refresh=2, first_request=0.5"]).get()
        #expect(shortened == DaemonIntervals(userRefresh: 2, firstRequest: 0.5, locatingGrace: 10))
        #expect(shortened.isShortened)
        #expect(try DaemonIntervals.fromEnvironment([DaemonIntervals.variable: "locating_grace=1"]).get().locatingGrace == 1)
    }

    @Test("a typo, a longer wait than the real one or a wait under 0.1 s is refused, naming the item and what is allowed",
        arguments: ["user_refesh=2", "user_refresh", "user_refresh=20", "first_request=0", "first_request=soon"])
    func refused(_ text: String) {
        let result = DaemonIntervals.fromEnvironment([DaemonIntervals.variable: text])
        guard case .failure(let problem) = result else {
            Issue.record("\(text) was accepted: \(result)")
            return
        }
        #expect(problem.description.contains("\"\(text)\""))
        #expect(problem.description.contains("user_refresh, first_request, locating_grace"))
    }
}
