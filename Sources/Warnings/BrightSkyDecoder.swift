import ForecastModel
import Foundation

/// The DWD's warnings through Bright Sky (`/alerts?lat=&lon=`): JSON with the alerts of the DWD warn
/// cell (municipality) that holds the position, in German and English.
///
/// The answer names that cell in `location`: its alerts are then confirmed for the position. An answer
/// without a `location` placed the position in no cell, and its alerts' area is not confirmed (forecastd
/// ships no warn-cell shapes). English texts are used, German where English is missing. Only `status`
/// `actual` is kept.
public enum BrightSkyDecoder {
    public static let sourceName = "bright-sky"

    public static func decode(_ data: Data) throws(WarningError) -> DecodedFeed {
        var feed = DecodedFeed()
        // `location` may follow the alerts: their coverage is settled once the whole answer is read.
        let root = try FeedBody.stream(data, key: "alerts", source: sourceName) { index, item in
            guard let alert = item as? [String: Any] else {
                feed.refused.append(RefusedEntry(entry: "#\(index)", problem: .missingField("alert")))
                return true
            }
            let entry = alert.text("alert_id") ?? "#\(index)"
            guard (alert.text("status") ?? "actual").lowercased() == "actual" else { return true }
            guard let identifier = alert.text("alert_id") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("alert_id")))
                return true
            }
            guard let event = alert.text("event_en") ?? alert.text("event_de") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("event")))
                return true
            }
            func english(_ field: String) -> String? { alert.text("\(field)_en") ?? alert.text("\(field)_de") }
            let warning = WeatherWarning(
                source: sourceName, event: event, severity: WarningSeverity(cap: alert.text("severity")) ?? .minor,
                urgency: WarningUrgency(cap: alert.text("urgency")),
                certainty: WarningCertainty(cap: alert.text("certainty")),
                onset: (alert.text("onset") ?? alert.text("effective")).flatMap(Timestamps.parseUTC),
                expires: alert.text("expires").flatMap(Timestamps.parseUTC), headline: english("headline"),
                description: english("description"), instruction: english("instruction"),
                sent: alert.text("effective").flatMap(Timestamps.parseUTC), identifier: identifier,
                messageType: WarningMessageType(cap: alert.text("msg_type")) ?? .alert)
            feed.keep(WarningMessage(warning: warning, coverage: .areas([WarningArea()])), entry: entry)
            return true
        }
        let location = root.object("location")
        let cell = location.flatMap { location -> String? in
            if let number = location["warn_cell_id"] as? NSNumber { return number.stringValue }
            return location.text("warn_cell_id")
        }
        let areaName = location.flatMap { $0.text("name") }
        for index in feed.messages.indices {
            feed.messages[index].warning.area = areaName
            feed.messages[index].coverage = cell != nil ? .confirmedForPoint : .areas([WarningArea(name: areaName)])
        }
        feed.trim()
        return feed
    }
}
