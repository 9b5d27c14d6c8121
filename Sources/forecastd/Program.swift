/// forecastd's entry point, for the executables that run it.
public enum ForecastdProgram {
    /// Parses the command line and runs the daemon (or prints help or the version), then exits.
    public static func main() async {
        await Forecastd.main()
    }
}
