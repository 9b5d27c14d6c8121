import ArgumentParser
import ForecastModel

// The model's vocabulary read from the command line: an unknown word is refused by the parser with
// the list of allowed ones (exit 64), so no command falls back to a default silently.

extension UnitSystem: ExpressibleByArgument {}
extension LocationMode: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension IconSet: ExpressibleByArgument {}
