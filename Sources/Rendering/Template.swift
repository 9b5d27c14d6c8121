import ForecastModel
import Foundation

/// A user's one-line format: wttr.in's `%` codes and named `{placeholders}`, checked when it is made.
///
/// `%t in %l` → `12°C in Bromsgrove`; `{icon} {temp} ↑{high|?}` → `☁️ 12°C ↑12°C`. A value the report
/// does not have renders as nothing, or as the fallback given after `|` (`{feels|n/a}`). `%%`, `{{`
/// and `}}` are a literal `%`, `{` and `}`. Everything else is copied as it is.
public struct Template: Sendable, Hashable {
    /// The template as the user wrote it.
    public let text: String
    private let parts: [Part]

    /// The template the `template` format uses when the options give none: `☁️ 12°C Bromsgrove`.
    public static let standard: Template = {
        do { return try Template("{icon} {temp}{stale} {place}") } catch { preconditionFailure("\(error)") }
    }()

    /// Parses and checks a template.
    ///
    /// - Throws: ``TemplateError`` naming the first problem and its column: an unknown `%` code or
    ///   `{name}`, a `{` never closed, a lone `}`, or a `%` at the end.
    public init(_ text: String) throws(TemplateError) {
        self.text = text
        var parts: [Part] = []
        var literal = ""
        let characters = Array(text)
        var index = 0
        func flush() {
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
        }
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            switch character {
            case "%":
                guard index + 1 < characters.count else {
                    throw TemplateError(
                        template: text, column: column,
                        message: "\"%\" at the end needs a code letter after it; allowed: \(Self.allowedCodes)")
                }
                let code = characters[index + 1]
                if code == "%" {
                    literal.append("%")
                } else if let field = Self.codes.first(where: { $0.code == code })?.field {
                    flush()
                    parts.append(.value(field, fallback: nil))
                } else {
                    throw TemplateError(
                        template: text, column: column,
                        message: "unknown code \"%\(code)\"; allowed: \(Self.allowedCodes)")
                }
                index += 2
            case "{":
                if index + 1 < characters.count, characters[index + 1] == "{" {
                    literal.append("{")
                    index += 2
                    continue
                }
                guard let close = characters[(index + 1)...].firstIndex(of: "}") else {
                    throw TemplateError(
                        template: text, column: column,
                        message: "\"{\" is never closed; write {name} or {name|fallback}, or {{ for a literal \"{\"")
                }
                let inside = String(characters[(index + 1)..<close])
                let name: String
                let fallback: String?
                if let bar = inside.firstIndex(of: "|") {
                    name = String(inside[..<bar])
                    fallback = String(inside[inside.index(after: bar)...])
                } else {
                    name = inside
                    fallback = nil
                }
                guard let field = Self.placeholders.first(where: { $0.name == name })?.field else {
                    throw TemplateError(
                        template: text, column: column,
                        message: "unknown placeholder \"{\(name)}\"; allowed: \(Self.allowedPlaceholders)")
                }
                flush()
                parts.append(.value(field, fallback: fallback))
                index = close + 1
            case "}":
                if index + 1 < characters.count, characters[index + 1] == "}" {
                    literal.append("}")
                    index += 2
                    continue
                }
                throw TemplateError(
                    template: text, column: column,
                    message: "\"}\" without an opening \"{\"; write }} for a literal \"}\"")
            default:
                literal.append(character)
                index += 1
            }
        }
        flush()
        self.parts = parts
    }

    /// Renders the template for a report. Absent values render as their fallback or as nothing.
    ///
    /// `options.icons` picks the icon set (emoji when nil); `options.now` is used for `{updated_ago}`.
    public func render(_ report: Report, options: RenderOptions) -> String {
        render(ReportFacts(report, options: options, icons: options.icons ?? .emoji))
    }

    func render(_ facts: ReportFacts) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .value(let field, let fallback): out += field.value(facts) ?? fallback ?? ""
            }
        }
        return out
    }

    public static func == (lhs: Template, rhs: Template) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    // MARK: Vocabulary

    /// wttr.in's one-line codes, in its order.
    static let codes: [(code: Character, field: Field)] = [
        ("c", .icon), ("C", .condition), ("t", .temperature), ("f", .feels), ("w", .wind), ("h", .humidity),
        ("p", .precipitation), ("o", .precipitationProbability), ("P", .pressure), ("u", .uvIndex),
        ("l", .place), ("S", .sunrise), ("s", .sunset), ("T", .time), ("Z", .timezone),
    ]

    /// Named placeholders.
    static let placeholders: [(name: String, field: Field)] = [
        ("temp", .temperature), ("feels", .feels), ("place", .place), ("admin1", .admin1), ("country", .country),
        ("condition", .condition), ("icon", .icon), ("high", .high), ("low", .low), ("wind", .wind),
        ("wind_dir", .windDirection), ("wind_name", .windName), ("humidity", .humidity), ("precip", .precipitation),
        ("precip_prob", .precipitationProbability), ("pressure", .pressure), ("uv", .uvIndex),
        ("sunrise", .sunrise), ("sunset", .sunset), ("time", .time), ("timezone", .timezone),
        ("updated_ago", .updatedAgo), ("source", .source), ("status", .status), ("stale", .stale),
        ("units", .units), ("warning", .warning), ("warning_count", .warningCount), ("warning_level", .warningLevel),
        ("rain_soon", .rainSoon), ("rain_soon_short", .rainSoonShort), ("air", .air), ("aqi", .aqi),
        ("aqi_category", .aqiCategory), ("pm2_5", .pm2_5), ("pm10", .pm10), ("uv_index", .uvIndex),
        ("pollen", .pollen),
    ]

    /// The `%` codes a template may use, for error messages and documentation.
    public static var codeList: [String] { codes.map { "%" + String($0.code) } }
    /// The `{names}` a template may use, for error messages and documentation.
    public static var placeholderList: [String] { placeholders.map(\.name) }

    private static var allowedCodes: String { codeList.joined(separator: " ") + ", and %% for a literal \"%\"" }
    private static var allowedPlaceholders: String {
        placeholders.map { "{\($0.name)}" }.joined(separator: " ")
    }

    private enum Part: Sendable {
        case literal(String)
        case value(Field, fallback: String?)
    }

    enum Field: Sendable {
        case icon, condition, temperature, feels, wind, windDirection, windName, humidity, precipitation
        case precipitationProbability, pressure, uvIndex, place, admin1, country, sunrise, sunset, time, timezone
        case high, low, updatedAgo, source, status, stale, units
        case warning, warningCount, warningLevel, rainSoon, rainSoonShort, air, aqi, aqiCategory, pm2_5, pm10, pollen

        func value(_ facts: ReportFacts) -> String? {
            let report = facts.report
            switch self {
            case .icon: return facts.glyph
            case .condition: return facts.condition.map(facts.conditionName)
            case .temperature: return facts.temperatureText
            case .feels: return facts.feelsText
            case .wind: return facts.windText
            case .windDirection: return facts.windDirectionText
            case .windName: return facts.beaufortName
            case .humidity: return facts.humidityText
            case .precipitation: return facts.precipitationText
            case .precipitationProbability: return facts.precipitationProbabilityText
            case .pressure: return facts.pressureText
            case .uvIndex: return facts.uvIndex.map { facts.number($0, places: 0) }
            case .place: return facts.placeName
            case .admin1: return report.place?.admin1
            case .country: return report.place?.country
            case .sunrise: return facts.sunriseText
            case .sunset: return facts.sunsetText
            case .time: return facts.currentTimeText
            case .timezone: return report.place?.timezone
            case .high: return facts.highText
            case .low: return facts.lowText
            case .updatedAgo:
                guard facts.report.provider != nil else { return nil }
                // Where the text stays on show, the time it was fetched rather than an age that would freeze.
                if facts.options.lasting { return facts.fetchedClock }
                return facts.ageSeconds.map(facts.phrases.duration)
            case .source: return report.location?.source
            case .status: return report.status.rawValue
            case .stale: return facts.staleMark
            case .units: return report.units.system
            case .warning: return facts.topWarning.map { "⚠ " + facts.event($0) }
            case .warningCount: return facts.warnings.isEmpty ? nil : String(facts.warnings.count)
            case .warningLevel: return facts.topWarning.map { facts.phrases.severity($0.severity) }
            case .rainSoon: return facts.nowcastText
            case .rainSoonShort: return facts.rainShort
            case .air: return facts.air?.text(phrases: facts.phrases)
            case .aqi: return facts.air.map { String($0.aqi) }
            case .aqiCategory:
                return facts.air.map { air in
                    AirQualityCategory(rawValue: air.category).map(facts.phrases.category) ?? air.category
                }
            case .pm2_5: return facts.air?.pm2_5.map { facts.number($0, places: 0) + " µg/m³" }
            case .pm10: return facts.air?.pm10.map { facts.number($0, places: 0) + " µg/m³" }
            case .pollen:
                return facts.pollenCounts.first.map {
                    facts.phrases.translation.text("{plant} {grains}", context: "pollen", ["plant": $0.name, "grains": String($0.grains)])
                }
            }
        }
    }
}

/// A template that cannot be used: what is wrong, at which column (1-based, in characters), and
/// what is allowed there.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The template as given.
    public var template: String
    /// The column of the offending character, counting from 1.
    public var column: Int
    /// What is wrong and what is allowed, without the position.
    public var message: String

    public init(template: String, column: Int, message: String) {
        self.template = template
        self.column = column
        self.message = message
    }

    /// `template column 4: unknown code "%x"; allowed: %c %C …`.
    public var description: String { "template column \(column): \(message)" }
}
