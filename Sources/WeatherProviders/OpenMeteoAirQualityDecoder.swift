import ForecastModel
import Foundation

/// Maps an Open-Meteo Air Quality API body (`/v1/air-quality`) onto an ``AirQuality``.
///
/// Pure: no I/O, no clock (the moment that is "now" is a parameter). Reads `current` (what
/// ``OpenMeteoAirQualityProvider`` asks for), or else the `hourly` step of the hour holding now; times
/// as Unix seconds (`timeformat=unixtime`, what the provider asks for) or as local ISO times with
/// `utc_offset_seconds` (the API's default).
///
/// Bad values are handled by what they spoil:
/// - The index of the asked scale is the reading's headline: when it is missing, not a number (a
///   string, say), outside ``AQIScale/plausibleRange`` or in another scale's unit, the whole answer is
///   refused with a `badResponse` error naming the field, the value and what is allowed, and the
///   caller keeps its last good reading.
/// - Any other value (a concentration, a sub-index, UV, pollen) that is not a number, is negative or
///   absurdly large (see ``limits``), or comes in an unexpected unit is dropped alone, and
///   ``AirQuality/notes`` says which and why.
/// - A body that is not JSON (a bare `NaN` is not JSON) is refused as a whole.
public enum OpenMeteoAirQualityDecoder {
    /// The stable provider identifier.
    public static let providerName = "open-meteo-air-quality"
    /// Open-Meteo's licence (CC BY 4.0) and the source of its air quality data, the Copernicus
    /// Atmosphere Monitoring Service.
    public static let attribution =
        "Air quality by Open-Meteo.com (CC BY 4.0), from Copernicus Atmosphere Monitoring Service forecasts"

    /// The largest believable value of each kind of field; anything above is a transfer or model error.
    /// Concentrations: µg/m³ (the worst wildfire smoke measured is a few thousand); pollen: grains/m³
    /// (birch peaks reach about ten thousand).
    public static let limits: [FieldKind: Double] = [
        .concentration: 10_000, .index: AQIScale.plausibleRange.upperBound, .uvIndex: 25, .pollen: 100_000,
    ]

    /// What a field holds, which decides its unit and its limit.
    public enum FieldKind: Sendable, Hashable {
        case concentration, index, uvIndex, pollen
    }

    /// The field of the overall index on a scale.
    public static func indexField(_ scale: AQIScale) -> String {
        switch scale {
        case .european: "european_aqi"
        case .us: "us_aqi"
        }
    }

    /// The sub-index fields of a scale, by pollutant: the highest one sets the index.
    public static func subIndexFields(_ scale: AQIScale) -> [(Pollutant, String)] {
        let prefix = indexField(scale)
        var fields: [(Pollutant, String)] = [
            (.pm2_5, "\(prefix)_pm2_5"), (.pm10, "\(prefix)_pm10"), (.o3, "\(prefix)_ozone"),
            (.no2, "\(prefix)_nitrogen_dioxide"), (.so2, "\(prefix)_sulphur_dioxide"),
        ]
        // The European index has no carbon monoxide band.
        if scale == .us { fields.append((.co, "\(prefix)_carbon_monoxide")) }
        return fields
    }

    /// The concentration fields the reading shows, by pollutant.
    public static let concentrationFields: [(Pollutant, String)] = [
        (.pm2_5, "pm2_5"), (.pm10, "pm10"), (.o3, "ozone"), (.no2, "nitrogen_dioxide"),
    ]

    /// The pollen fields, by plant.
    public static var pollenFields: [(WritableKeyPath<Pollen, Double?>, String)] {
        [
            (\.alder, "alder_pollen"), (\.birch, "birch_pollen"), (\.grass, "grass_pollen"),
            (\.mugwort, "mugwort_pollen"), (\.olive, "olive_pollen"), (\.ragweed, "ragweed_pollen"),
        ]
    }

    /// Decodes a body received at `fetchedAt`, for the index on `scale`.
    ///
    /// - Parameters:
    ///   - now: the moment whose hour is wanted when the body has only hourly steps.
    ///   - requested: the point asked for, used only when the body lacks its own (grid cell) coordinates.
    /// - Throws: ``ProviderError`` of kind `badResponse` when the body is unusable or its index absurd.
    public static func decode(
        _ body: some Sequence<UInt8>, scale: AQIScale, fetchedAt: Date, now: Date, requested: Coordinate? = nil
    ) throws(ProviderError) -> AirQuality {
        guard let json = JSONValue.parse(Data(body)) else { throw failure("the response is not JSON") }
        return try decode(json: json, scale: scale, fetchedAt: fetchedAt, now: now, requested: requested)
    }

    static func decode(
        json: JSONValue, scale: AQIScale, fetchedAt: Date, now: Date, requested: Coordinate?
    ) throws(ProviderError) -> AirQuality {
        guard json.object != nil else { throw failure("the response is JSON but not an object") }
        let header = try OpenMeteoBodyHeader(json, requested: requested, provider: providerName)
        let coordinate = header.coordinate
        let offset = header.utcOffsetSeconds
        guard let row = Row(json, offset: offset, now: now) else {
            throw failure(
                "the response has neither current values nor an hourly step for \(Timestamps.rfc3339(now))")
        }

        // The headline: refused as a whole when unusable.
        let indexName = indexField(scale)
        let aqi: Double
        switch row.read(indexName, kind: .index, scale: scale) {
        case .value(let value): aqi = value
        case .missing: throw failure("the response has no \(row.label).\(indexName)")
        case .refused(let why): throw failure(why)
        }

        var notes: [String] = []
        func value(_ field: String, _ kind: FieldKind) -> Double? {
            switch row.read(field, kind: kind, scale: scale) {
            case .value(let value): return value
            case .missing: return nil
            case .refused(let why):
                notes.append("\(providerName): \(why); the value was dropped")
                return nil
            }
        }

        // Ties go to the pollutant listed first (fine particles before coarse, before gases).
        var dominant: (Pollutant, Double)?
        for (pollutant, field) in subIndexFields(scale) {
            if let index = value(field, .index), index > (dominant?.1 ?? -1) { dominant = (pollutant, index) }
        }
        var concentrations: [Pollutant: Double] = [:]
        for (pollutant, field) in concentrationFields {
            concentrations[pollutant] = value(field, .concentration)
        }
        var pollen = Pollen()
        for (path, field) in pollenFields {
            pollen[keyPath: path] = value(field, .pollen)
        }

        return AirQuality(
            provider: providerName, attribution: attribution, coordinate: coordinate, time: row.time,
            fetchedAt: fetchedAt, scale: scale, aqi: aqi, dominant: dominant?.0, pm2_5: concentrations[.pm2_5],
            pm10: concentrations[.pm10], o3: concentrations[.o3], no2: concentrations[.no2],
            uvIndex: value("uv_index", .uvIndex), pollen: pollen.isEmpty ? nil : pollen, notes: notes)
    }

    // MARK: Parts

    /// The values of one moment: `current`, or the hourly step of the hour holding now.
    private struct Row {
        /// Where the values come from, for messages: `current` or `hourly[5]`.
        let label: String
        let time: Date
        let value: (String) -> JSONValue?
        let units: [String: JSONValue]

        init?(_ json: JSONValue, offset: Int, now: Date) {
            if let current = json["current"]?.object, let time = current["time"].flatMap({
                OpenMeteoDecoder.date($0, offset: offset)
            }) {
                label = "current"
                self.time = time
                value = { current[$0] }
                units = json["current_units"]?.object ?? [:]
                return
            }
            guard let hourly = json["hourly"]?.object, let times = hourly["time"]?.array else { return nil }
            let dates = times.map { OpenMeteoDecoder.date($0, offset: offset) }
            guard
                let index = dates.lastIndex(where: { date in
                    date.map { $0 <= now && now.timeIntervalSince($0) < 3600 } ?? false
                }), let time = dates[index]
            else { return nil }
            label = "hourly[\(index)]"
            self.time = time
            value = { field in
                // A column of another length than `time` cannot be trusted to line up.
                guard let column = hourly[field]?.array, column.count == times.count else { return nil }
                return column[index]
            }
            units = json["hourly_units"]?.object ?? [:]
        }

        enum Reading {
            case missing
            case value(Double)
            case refused(String)
        }

        /// A field's value, checked for type, unit and range.
        func read(_ field: String, kind: FieldKind, scale: AQIScale) -> Reading {
            let name = "\(label).\(field)"
            let raw: Double
            switch value(field) {
            case nil, .null?: return .missing
            case .number(let number)?: raw = number
            case .string(let text)?:
                let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
                return .refused("\(name) = \"\(shown)\" is text, not a number")
            case let other?: return .refused("\(name) is \(describe(other)), not a number")
            }
            let limit = limits[kind] ?? 0
            guard raw.isFinite, raw >= 0, raw <= limit else {
                return .refused("\(name) = \(format(raw)) is outside the allowed 0…\(format(limit))")
            }
            if let unit = units[field]?.string, !Self.accepts(unit, kind: kind, scale: scale) {
                return .refused("\(name) is in \"\(unit)\", not \(Self.expectedUnit(kind: kind, scale: scale))")
            }
            return .value(raw)
        }

        private func describe(_ value: JSONValue) -> String {
            switch value {
            case .bool: "a boolean"
            case .array: "an array"
            case .object: "an object"
            default: "not a number"
            }
        }

        /// Whether a `*_units` entry is the unit values of this kind come in.
        static func accepts(_ unit: String, kind: FieldKind, scale: AQIScale) -> Bool {
            // "µ" (micro sign) and "μ" (Greek mu) both occur; ASCII spellings too.
            let unit = unit.trimmingCharacters(in: .whitespaces).lowercased()
                .replacingOccurrences(of: "µ", with: "μ").replacingOccurrences(of: "³", with: "3")
            switch kind {
            case .concentration: return ["μg/m3", "ug/m3"].contains(unit)
            case .index: return unit == (scale == .european ? "eaqi" : "usaqi")
            case .uvIndex: return ["", "index"].contains(unit)
            case .pollen: return ["grains/m3", "grains/m³"].contains(unit)
            }
        }

        static func expectedUnit(kind: FieldKind, scale: AQIScale) -> String {
            switch kind {
            case .concentration: "μg/m³"
            case .index: scale == .european ? "EAQI" : "USAQI"
            case .uvIndex: "an index without unit"
            case .pollen: "grains/m³"
            }
        }
    }

    /// `1000000000`, `-5`, `2.5`: whole numbers without a decimal point, others as they come.
    static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    private static func failure(_ detail: String) -> ProviderError {
        ProviderError(provider: providerName, kind: .badResponse, detail: detail)
    }
}
