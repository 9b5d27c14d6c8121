// forecastctl on its own (`swift run forecastctl`); the release runs it as forecastd under this name.
import ForecastctlCommands

ForecastctlProgram.main()
