import ForecastModel
import Foundation

/// The US National Weather Service's `api.weather.gov/alerts/active` answers (GeoJSON with CAP fields).
///
/// - Only `status` `Actual` is kept: `Test`, `Exercise`, `System` and `Draft` messages are dropped.
/// - `messageType` and `references` are kept for ``WarningMerger``: an `Update` replaces the messages
///   it references, a `Cancel` removes them.
/// - A feature with a polygon is placed by its polygon. One without (zone-based watches and
///   advisories) counts as covering the position only when the answer says it was made for that
///   position: its `title` reads "… for 44.9869 N, 93.2926 W" with the coordinates forecastd asked
///   for. Otherwise (an answer for a state or a zone) its area is not confirmed: forecastd ships no zone shapes.
/// - The warning runs from `onset` (else `effective`) to `ends` (the hazard's end) where NWS gives one, else to
///   `expires` (the message's); one that ends before it starts is refused.
public enum NWSDecoder {
    public static let sourceName = "nws"

    /// Decodes one answer.
    ///
    /// - Parameter askedPoint: the `point=` forecastd sent (already rounded), or nil when the answer
    ///   was not asked for a point.
    public static func decode(_ data: Data, askedPoint: Coordinate?) throws(WarningError) -> DecodedFeed {
        var feed = DecodedFeed()
        var budget = PositionBudget()
        var exceeded: PositionBudget.Exceeded?
        // Zone-only alerts, by index in `feed.messages`: whether they cover the point depends on the answer's
        // title, which NWS writes after the features.
        var zoneOnly: Set<String> = []
        let root = try FeedBody.stream(data, key: "features", source: sourceName) { index, item in
            guard let feature = item as? [String: Any], let properties = feature.object("properties") else {
                feed.refused.append(RefusedEntry(entry: "#\(index)", problem: .missingField("properties")))
                return true
            }
            let entry = properties.text("id") ?? "#\(index)"
            guard properties.text("status")?.lowercased() == "actual" else { return true }
            guard let identifier = properties.text("id") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("id")))
                return true
            }
            guard let event = properties.text("event") else {
                feed.refused.append(RefusedEntry(entry: entry, problem: .missingField("event")))
                return true
            }
            let references = properties.objects("references").compactMap { reference -> CAPReference? in
                guard let identifier = reference.text("identifier") else { return nil }
                return CAPReference(
                    sender: reference.text("sender"), identifier: identifier,
                    sent: reference.text("sent").flatMap(Timestamps.parseUTC))
            }
            let warning = WeatherWarning(
                source: sourceName, event: event,
                severity: WarningSeverity(cap: properties.text("severity")) ?? .minor,
                urgency: WarningUrgency(cap: properties.text("urgency")),
                certainty: WarningCertainty(cap: properties.text("certainty")),
                onset: (properties.text("onset") ?? properties.text("effective")).flatMap(Timestamps.parseUTC),
                expires: properties.text("expires").flatMap(Timestamps.parseUTC),
                headline: properties.text("headline"), description: properties.text("description"),
                instruction: properties.text("instruction"), area: properties.text("areaDesc"),
                url: properties.text("@id"), sent: properties.text("sent").flatMap(Timestamps.parseUTC),
                identifier: identifier, sender: properties.text("sender"), references: references,
                messageType: WarningMessageType(cap: properties.text("messageType")) ?? .alert,
                ends: properties.text("ends").flatMap(Timestamps.parseUTC))

            let codes = properties.object("geocode") ?? [:]
            let geocodes = ["UGC", "SAME"].flatMap { scheme in
                ((codes[scheme] as? [Any]) ?? []).compactMap { $0 as? String }.map { Geocode(scheme: scheme, value: $0) }
            }
            let coverage: WarningMessage.Coverage
            if let geometry = feature["geometry"], !(geometry is NSNull) {
                let reading: AreaGeometry.Reading
                do throws(PositionBudget.Exceeded) {
                    reading = try AreaGeometry.readGeoJSON(geometry, budget: &budget)
                } catch {
                    exceeded = error
                    return false
                }
                coverage = .areas([
                    WarningArea(
                        name: warning.area, geometry: reading.geometry, geocodes: geocodes,
                        refusedShapes: reading.refused)
                ])
            } else {
                zoneOnly.insert(identifier)
                coverage = .areas([WarningArea(name: warning.area, geocodes: geocodes)])
            }
            feed.keep(WarningMessage(warning: warning, coverage: coverage), entry: entry)
            return true
        }
        if let exceeded { throw WarningError.tooComplex(exceeded, source: sourceName) }
        if let askedPoint, answerNames(root.text("title"), point: askedPoint) {
            for index in feed.messages.indices where zoneOnly.contains(feed.messages[index].warning.identifier) {
                if case .areas(let areas) = feed.messages[index].coverage, areas.allSatisfy({ $0.geometry == nil }) {
                    feed.messages[index].coverage = .confirmedForPoint
                }
            }
        }
        feed.trim()
        return feed
    }

    /// Whether an answer's title ("Current watches, warnings, and advisories for 44.9869 N, 93.2926 W")
    /// names `point`, to the 4 decimals NWS echoes.
    static func answerNames(_ title: String?, point: Coordinate) -> Bool {
        guard let title, let range = title.range(of: " for ", options: .backwards) else { return false }
        let parts = title[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return false }
        func value(_ text: String, positive: Character, negative: Character) -> Double? {
            let pieces = text.split(separator: " ")
            guard pieces.count == 2, let number = Double(pieces[0]), let hemisphere = pieces[1].first else {
                return nil
            }
            if hemisphere == positive { return number }
            if hemisphere == negative { return -number }
            return nil
        }
        guard let latitude = value(parts[0], positive: "N", negative: "S"),
            let longitude = value(parts[1], positive: "E", negative: "W")
        else { return false }
        return abs(latitude - point.latitude) < 0.00005 && abs(longitude - point.longitude) < 0.00005
    }
}
