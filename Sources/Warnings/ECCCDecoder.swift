import ForecastModel
import Foundation

/// Environment and Climate Change Canada's alerts through MSC GeoMet's OGC API
/// (`api.weather.gc.ca/collections/weather-alerts/items?f=json&bbox=…`): GeoJSON, one feature per alert and
/// forecast region, with the region's polygon and the alert's texts in English and French.
///
/// - `alert_name_en` (or `_fr`) is the event, `alert_short_name_…` the headline, `alert_text_…` the
///   description, `feature_name_…` the area: French when `language` is French, English otherwise (each falls
///   back to the other language when missing).
/// - Severity: `risk_colour_en` yellow → moderate, orange → severe, red → extreme (ECCC's colour-coded alerts);
///   without a colour, by `alert_type`: warning → severe, watch and advisory → moderate, statement → minor.
/// - The period: from `validity_datetime` (else `publication_datetime`) to `event_end_datetime` (the hazard's
///   end) where given, else `expiration_datetime` (the message's); one that ends before it starts is refused.
/// - Alerts whose `status_en` is `ended` or `cancelled`, or whose `display_status` is `hidden`, are not shown.
/// - Each feature is the current state of its alert in its region: the identifier is the feature's `id`.
/// - The position is placed in the region's polygon by ``WarningMatcher``; a polygon that cannot be judged is
///   left out alone.
public enum ECCCDecoder {
    public static let sourceName = "eccc"

    public static func decode(_ data: Data, language: String = "en") throws(WarningError) -> DecodedFeed {
        let french = language.lowercased().hasPrefix("fr")
        var feed = DecodedFeed()
        var budget = PositionBudget()
        var exceeded: PositionBudget.Exceeded?
        _ = try FeedBody.stream(data, key: "features", source: sourceName) { index, item in
            guard let feature = item as? [String: Any], let properties = feature.object("properties") else {
                feed.refused.append(RefusedEntry(entry: "#\(index)", problem: .missingField("properties")))
                return true
            }
            let identifier = feature.text("id") ?? properties.text("id")
            let entry = identifier ?? "#\(index)"
            let status = properties.text("status_en")?.lowercased()
            if status == "ended" || status == "cancelled" || properties.text("display_status")?.lowercased() == "hidden"
            {
                return true
            }
            guard let identifier else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("id")))
                return true
            }
            func text(_ field: String) -> String? {
                french
                    ? properties.text(field + "_fr") ?? properties.text(field + "_en")
                    : properties.text(field + "_en") ?? properties.text(field + "_fr")
            }
            guard let event = text("alert_name") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("alert_name_en")))
                return true
            }
            let severity =
                colourSeverity(properties.text("risk_colour_en")) ?? typeSeverity(properties.text("alert_type"))
            func time(_ field: String) -> Date? { properties.text(field).flatMap(Timestamps.parseUTC) }
            let warning = WeatherWarning(
                source: sourceName, event: event, severity: severity,
                onset: time("validity_datetime") ?? time("publication_datetime"),
                expires: time("expiration_datetime"), headline: text("alert_short_name"),
                description: text("alert_text"), area: text("feature_name"), url: properties.text("source_url"),
                sent: time("publication_datetime"), identifier: identifier, messageType: .alert,
                ends: time("event_end_datetime"))
            var area = WarningArea(name: warning.area)
            if let geometry = feature["geometry"], !(geometry is NSNull) {
                let reading: AreaGeometry.Reading
                do throws(PositionBudget.Exceeded) {
                    reading = try AreaGeometry.readGeoJSON(geometry, budget: &budget)
                } catch {
                    exceeded = error
                    return false
                }
                area.geometry = reading.geometry
                area.refusedShapes = reading.refused
            }
            feed.keep(WarningMessage(warning: warning, coverage: .areas([area])), entry: entry)
            return true
        }
        if let exceeded { throw WarningError.tooComplex(exceeded, source: sourceName) }
        feed.trim()
        return feed
    }

    /// ECCC's colour-coded risk (since 2025): yellow, orange, red.
    static func colourSeverity(_ colour: String?) -> WarningSeverity? {
        switch colour?.lowercased() {
        case "yellow": .moderate
        case "orange": .severe
        case "red": .extreme
        default: nil
        }
    }

    /// The alert's kind, for alerts without a colour.
    static func typeSeverity(_ type: String?) -> WarningSeverity {
        switch type?.lowercased() {
        case "warning": .severe
        case "watch", "advisory": .moderate
        default: .minor
        }
    }
}
