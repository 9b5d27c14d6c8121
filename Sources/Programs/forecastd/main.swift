// forecastd, and forecastctl when started under that name. The release installs forecastctl as a
// link to forecastd: the two then share one copy of the Swift runtime, Foundation and ICU, which the
// static build links into each program (docs/performance.md has the sizes).
import Executors
import ForecastctlCommands
import ForecastdCommand

/// Tasks run on NIO's event loops and the main thread, not libdispatch's pool, which would wake the daemon every
/// second (Sources/Executors). The runtime installs these before the first task starts.
typealias DefaultExecutorFactory = EventLoopExecutors

let programName = CommandLine.arguments.first?.split(separator: "/").last.map(String.init)
if programName == "forecastctl" {
    ForecastctlProgram.main()
} else {
    await ForecastdProgram.main()
}
