/// The unit system a user reads values in. Forecasts are held in metric and converted when rendered.
public enum UnitSystem: String, Sendable, Hashable, Codable, CaseIterable {
    case metric
    case imperial

    public var temperatureSymbol: String { self == .metric ? "°C" : "°F" }
    public var windSpeedSymbol: String { self == .metric ? "km/h" : "mph" }
    public var precipitationSymbol: String { self == .metric ? "mm" : "in" }
    public var distanceSymbol: String { self == .metric ? "km" : "mi" }

    /// Converts a temperature held in degrees Celsius.
    public func temperature(fromCelsius value: Double) -> Double {
        self == .metric ? value : value * 9 / 5 + 32
    }

    /// Converts a speed held in kilometres per hour.
    public func windSpeed(fromKmh value: Double) -> Double {
        self == .metric ? value : value / 1.609344
    }

    /// Converts a precipitation amount held in millimetres.
    public func precipitation(fromMillimetres value: Double) -> Double {
        self == .metric ? value : value / 25.4
    }

    /// Converts a distance held in kilometres.
    public func distance(fromKm value: Double) -> Double {
        self == .metric ? value : value / 1.609344
    }
}

/// Conversions into the canonical (metric) units forecasts are stored in.
public enum CanonicalUnits {
    public static func celsius(fromFahrenheit value: Double) -> Double { (value - 32) * 5 / 9 }
    public static func celsius(fromKelvin value: Double) -> Double { value - 273.15 }
    public static func kmh(fromMetresPerSecond value: Double) -> Double { value * 3.6 }
    public static func kmh(fromMph value: Double) -> Double { value * 1.609344 }
    public static func kmh(fromKnots value: Double) -> Double { value * 1.852 }
    public static func millimetres(fromInches value: Double) -> Double { value * 25.4 }
}
