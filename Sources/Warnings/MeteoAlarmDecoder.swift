import ForecastModel
import Foundation

/// MeteoAlarm's JSON feeds (`feeds.meteoalarm.org/api/v1/warnings/feeds-<country>`): every warning of
/// one country as `{"warnings": [{"alert": <CAP as JSON>, "uuid": …}]}`.
///
/// Why the JSON feed and not the Atom feed: one JSON request carries each warning's whole CAP message
/// (every language's `info`, description, instruction, `references`, and every area with all its
/// geocodes and any polygon or circle), where an Atom entry carries a summary and one geocode, so
/// the texts and shapes would need one more request per warning for its CAP document; and JSON needs
/// no XML parser in the daemon.
///
/// - The `info` block in English is used (`en`, `en-GB`, …), else the first.
/// - Severity comes from `awareness_level`: level 1 (green, "no warnings") entries are dropped;
///   yellow is moderate, orange severe, red extreme. Without one, CAP `severity` is used.
/// - Only `status` `Actual` is kept; `msgType` and `references` are kept for ``WarningMerger``.
/// - An `info` with no `area` is refused (``WarningEntryProblem/noArea``), as is one whose period is never in
///   force; the rest of the feed is kept. A polygon or circle that cannot be judged is left out alone
///   (``WarningArea/refusedShapes``): the area's other shapes and codes still decide.
/// - Areas keep their geocodes (`EMMA_ID`, `NUTS3`, …) and CAP polygons and circles; whether they hold
///   the position is decided by ``WarningMatcher`` with the shipped ``MeteoAlarmAreas``, never by name.
public enum MeteoAlarmDecoder {
    public static let sourceName = "meteoalarm"

    public static func decode(_ data: Data) throws(WarningError) -> DecodedFeed {
        var feed = DecodedFeed()
        var budget = PositionBudget()
        var exceeded: PositionBudget.Exceeded?
        _ = try FeedBody.stream(data, key: "warnings", source: sourceName) { index, item in
            guard let wrapper = item as? [String: Any], let alert = wrapper.object("alert") else {
                feed.refused.append(RefusedEntry(entry: "#\(index)", problem: .missingField("alert")))
                return true
            }
            let entry = alert.text("identifier") ?? wrapper.text("uuid") ?? "#\(index)"
            do throws(PositionBudget.Exceeded) {
                switch try decodeAlert(alert, budget: &budget) {
                case .success(let message?): feed.keep(message, entry: entry)
                case .success(nil): break
                case .failure(let problem): feed.refused.append(RefusedEntry(entry: entry, problem: problem))
                }
                return true
            } catch {
                exceeded = error
                return false
            }
        }
        if let exceeded { throw WarningError.tooComplex(exceeded, source: sourceName) }
        feed.trim()
        return feed
    }

    /// Which `info` block is read: the English one (`en`, `en-GB`, …), else the first; nil when there is none.
    static func chosenInfo(_ infos: [[String: Any]]) -> Int? {
        infos.firstIndex { ($0.text("language") ?? "").lowercased().hasPrefix("en") } ?? (infos.isEmpty ? nil : 0)
    }

    /// One CAP `area`: its polygons and circles (each refused alone when it cannot be judged) and geocodes.
    static func area(_ object: [String: Any], budget: inout PositionBudget) throws(PositionBudget.Exceeded)
        -> WarningArea
    {
        var reading = AreaGeometry.Reading()
        for text in object.texts("polygon") {
            let ring: GeoRing
            do {
                ring = try AreaGeometry.capPolygon(text)
            } catch {
                reading.refused.append(error)
                continue
            }
            try budget.spend(ring.positions.count)
            reading.polygons.append(GeoPolygon(outer: ring))
        }
        for text in object.texts("circle") {
            do {
                reading.circles.append(try AreaGeometry.capCircle(text))
            } catch {
                reading.refused.append(error)
            }
        }
        let geocodes = object.objects("geocode").compactMap { code -> Geocode? in
            guard let scheme = code.text("valueName"), let value = code.text("value") else { return nil }
            return Geocode(scheme: scheme, value: value)
        }
        return WarningArea(
            name: object.text("areaDesc"), geometry: reading.geometry, geocodes: geocodes, refusedShapes: reading.refused)
    }

    /// One CAP alert in MeteoAlarm's JSON form: a message, nil when it is not a warning to show
    /// (not `Actual`, or green), or the problem that makes it unusable.
    static func decodeAlert(_ alert: [String: Any], budget: inout PositionBudget) throws(PositionBudget.Exceeded)
        -> Result<WarningMessage?, WarningEntryProblem>
    {
        guard (alert.text("status") ?? "").lowercased() == "actual" else { return .success(nil) }
        guard let identifier = alert.text("identifier") else { return .failure(.missingField("identifier")) }
        let infos = alert.objects("info")
        guard let chosen = chosenInfo(infos) else { return .failure(.missingField("info")) }
        let info = infos[chosen]

        let severity: WarningSeverity
        let awareness = info.objects("parameter").first { $0.text("valueName")?.lowercased() == "awareness_level" }
        switch AwarenessLevel.read(awareness?.text("value")) {
        case .noWarning?: return .success(nil)
        case .severity(let level)?: severity = level
        case nil: severity = WarningSeverity(cap: info.text("severity")) ?? .minor
        }
        guard let event = info.text("event") ?? info.text("headline") else { return .failure(.missingField("event")) }

        let areaObjects = info.objects("area")
        guard !areaObjects.isEmpty else { return .failure(.noArea) }
        var areas: [WarningArea] = []
        // An area with neither shape nor code (a description only) is kept: it decides nothing, so the
        // warning is placed by its other areas or listed with its area not confirmed, never dropped.
        for object in areaObjects { areas.append(try area(object, budget: &budget)) }
        let names = areas.compactMap(\.name)
        let warning = WeatherWarning(
            source: sourceName, event: event, severity: severity, urgency: WarningUrgency(cap: info.text("urgency")),
            certainty: WarningCertainty(cap: info.text("certainty")),
            onset: (info.text("onset") ?? info.text("effective")).flatMap(Timestamps.parseUTC),
            expires: info.text("expires").flatMap(Timestamps.parseUTC), headline: info.text("headline"),
            description: info.text("description"), instruction: info.text("instruction"),
            area: names.isEmpty ? nil : names.joined(separator: ", "), url: info.text("web"),
            sent: alert.text("sent").flatMap(Timestamps.parseUTC), identifier: identifier, sender: alert.text("sender"),
            references: CAPReference.parseList(alert.text("references")),
            messageType: WarningMessageType(cap: alert.text("msgType")) ?? .alert)
        return .success(WarningMessage(warning: warning, coverage: .areas(areas)))
    }
}
