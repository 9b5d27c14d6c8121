// forecastd, and forecastctl when started under that name. The release installs forecastctl as a
// link to forecastd: the two then share one copy of the Swift runtime, Foundation and ICU, which the
// static build links into each program (docs/performance.md has the sizes).
import ForecastctlCommands
import ForecastdCommand

let programName = CommandLine.arguments.first?.split(separator: "/").last.map(String.init)
if programName == "forecastctl" {
    ForecastctlProgram.main()
} else {
    await ForecastdProgram.main()
}
