/// forecastctl's entry point, for the executables that run it (forecastctl, and forecastd started as forecastctl).
public enum ForecastctlProgram {
    /// Parses the command line and runs the command it names, then exits.
    public static func main() {
        Forecastctl.main()
    }
}
