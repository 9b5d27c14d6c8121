import ForecastModel

/// A physical quantity: how to bring it into canonical units and which values are believable.
enum Quantity {
    case temperature, speed, precipitation, pressure, percent, direction, uvIndex, visibility

    /// The value in canonical units; nil when absent, null, of an unknown unit or out of range.
    func canonical(_ value: JSONValue?, unit: String?) -> Double? {
        guard let raw = value?.double, let convert = converter(unit) else { return nil }
        let converted = convert(raw)
        return range.contains(converted) ? converted : nil
    }

    /// The conversion from `unit` into canonical units. A missing unit means the canonical one (every
    /// provider's default); an unknown unit yields nil, because guessing would mislabel values.
    private func converter(_ unit: String?) -> ((Double) -> Double)? {
        let unit = unit?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        switch self {
        case .temperature:
            switch unit {
            case "", "°c", "celsius": return { $0 }
            case "°f", "fahrenheit": return CanonicalUnits.celsius(fromFahrenheit:)
            case "k", "kelvin": return CanonicalUnits.celsius(fromKelvin:)
            default: return nil
            }
        case .speed:
            switch unit {
            case "", "km/h", "kmh": return { $0 }
            case "m/s", "ms": return CanonicalUnits.kmh(fromMetresPerSecond:)
            case "mp/h", "mph": return CanonicalUnits.kmh(fromMph:)
            case "kn", "kt", "knots": return CanonicalUnits.kmh(fromKnots:)
            default: return nil
            }
        case .precipitation:
            switch unit {
            case "", "mm": return { $0 }
            case "inch", "in": return CanonicalUnits.millimetres(fromInches:)
            default: return nil
            }
        case .pressure:
            return unit == "" || unit == "hpa" ? { $0 } : nil
        case .percent:
            return unit == "" || unit == "%" ? { $0 } : nil
        case .direction:
            return ["", "°", "degrees", "deg"].contains(unit) ? { $0 } : nil
        case .uvIndex:
            return ["", "index", "1"].contains(unit) ? { $0 } : nil
        case .visibility:
            switch unit {
            case "", "m": return { $0 }
            case "ft": return { $0 * 0.3048 }
            case "km": return { $0 * 1000 }
            default: return nil
            }
        }
    }

    /// Values outside these bounds are sensor or transfer errors, not weather.
    var range: ClosedRange<Double> {
        switch self {
        case .temperature: -100...70
        case .speed: 0...500
        case .precipitation: 0...2000
        case .pressure: 800...1100
        case .percent: 0...100
        case .direction: 0...360
        case .uvIndex: 0...25
        case .visibility: 0...500_000
        }
    }
}
