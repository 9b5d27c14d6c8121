import ForecastModel
import Foundation

/// The European awareness levels (`awareness_level`, "2; yellow; Moderate") that MET Norway and
/// MeteoAlarm send beside CAP's severity.
enum AwarenessLevel {
    /// What a level means for the report: nil for level 1 (green, "no particular awareness": not a
    /// warning), the level's severity for 2 to 4, and nil for anything unreadable (then CAP's own
    /// `severity` is used).
    enum Reading: Equatable {
        case noWarning
        case severity(WarningSeverity)
    }

    static func read(_ text: String?) -> Reading? {
        guard let text, let first = text.split(separator: ";").first,
            let level = Int(first.trimmingCharacters(in: .whitespaces))
        else { return nil }
        switch level {
        case 1: return .noWarning
        case 2: return .severity(.moderate)
        case 3: return .severity(.severe)
        case 4: return .severity(.extreme)
        default: return nil
        }
    }
}

/// MET Norway's MetAlerts 2.0 answers (`current.json?lat=&lon=&lang=en`): GeoJSON, one feature per
/// warning with its polygon and CAP-like properties.
///
/// Severity comes from `awareness_level` (yellow moderate, orange severe, red extreme; green is not
/// a warning and is dropped), else from `severity`. The time in force is `when.interval`. Only
/// `status` `Actual` is kept; `type` carries the CAP message type. The answer holds the current
/// state of each warning, so a `Cancel` only removes what it replaces.
public enum MetNorwayAlertsDecoder {
    public static let sourceName = "met-norway"

    public static func decode(_ data: Data) throws(WarningError) -> DecodedFeed {
        var feed = DecodedFeed()
        var budget = PositionBudget()
        var exceeded: PositionBudget.Exceeded?
        _ = try FeedBody.stream(data, key: "features", source: sourceName) { index, item in
            guard let feature = item as? [String: Any], let properties = feature.object("properties") else {
                feed.refused.append(RefusedEntry(entry: "#\(index)", problem: .missingField("properties")))
                return true
            }
            let entry = properties.text("id") ?? "#\(index)"
            guard (properties.text("status") ?? "Actual").lowercased() == "actual" else { return true }
            let severity: WarningSeverity
            switch AwarenessLevel.read(properties.text("awareness_level")) {
            case .noWarning?: return true
            case .severity(let level)?: severity = level
            case nil: severity = WarningSeverity(cap: properties.text("severity")) ?? .minor
            }
            guard let identifier = properties.text("id") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("id")))
                return true
            }
            guard let event = properties.text("eventAwarenessName") ?? properties.text("event") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("event")))
                return true
            }
            guard let geometryObject = feature["geometry"], !(geometryObject is NSNull) else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .noArea))
                return true
            }
            let reading: AreaGeometry.Reading
            do throws(PositionBudget.Exceeded) {
                reading = try AreaGeometry.readGeoJSON(geometryObject, budget: &budget)
            } catch {
                exceeded = error
                return false
            }
            let interval = (feature.object("when")?["interval"] as? [Any])?.compactMap { $0 as? String } ?? []
            var description = properties.text("description")
            if let consequences = properties.text("consequences") {
                description = [description, consequences].compactMap { $0 }.joined(separator: "\n")
            }
            let warning = WeatherWarning(
                source: sourceName, event: event, severity: severity,
                urgency: WarningUrgency(cap: properties.text("urgency")),
                certainty: WarningCertainty(cap: properties.text("certainty")),
                onset: interval.first.flatMap(Timestamps.parseUTC),
                expires: interval.count > 1 ? Timestamps.parseUTC(interval[1]) : nil,
                headline: properties.text("title"), description: description,
                instruction: properties.text("instruction"), area: properties.text("area"),
                url: properties.text("web"), sent: nil, identifier: identifier,
                messageType: WarningMessageType(cap: properties.text("type")) ?? .alert,
                // The interval is the warning's own period: its end is the hazard's.
                ends: interval.count > 1 ? Timestamps.parseUTC(interval[1]) : nil)
            let area = WarningArea(name: warning.area, geometry: reading.geometry, refusedShapes: reading.refused)
            feed.keep(WarningMessage(warning: warning, coverage: .areas([area])), entry: entry)
            return true
        }
        if let exceeded { throw WarningError.tooComplex(exceeded, source: sourceName) }
        feed.trim()
        return feed
    }
}
