import ForecastModel
import Foundation
import TestSupport
import Testing

@testable import Warnings

/// Issue 22's proof: every real warning document of the corpus (`Tests/Fixtures/alerts/corpus`: CAP XML through
/// the MeteoAlarm JSON form, MeteoAlarm, NWS, MET Norway, Bright Sky and ECCC answers) read by its decoder, and
/// forecastd's point-in-area answer compared with GEOS's (Shapely, after `make_valid`) at the 50 points per area
/// that `tools/geos_points.py` samples: no disagreement farther than 10 m from an edge, and no document, warning
/// or shape refused where GEOS judged an area. Needs Debian's python3-shapely (`scripts/deps --test`).
@Suite("The warnings corpus against GEOS", .serialized, .timeLimit(.minutes(10)))
struct CorpusComparisonTests {
    static let corpus = Fixtures.url("alerts/corpus")
    static let python = "/usr/bin/python3"

    /// Runs `arguments` with Debian's Python; fails with its output when it does not exit 0.
    static func runPython(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(python) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(text)")
        }
    }

    /// What was compared, by source format and country, for docs/warnings.md.
    struct Tally: CustomStringConvertible {
        var documents = 0
        var areas = 0
        var agreements = 0
        var disagreements = 0
        /// Points within 10 m of an edge (not compared) where the answers differ, and all such points.
        var nearEdgeDiffering = 0
        var nearEdge = 0
        /// Areas GEOS judged that forecastd could not place (every shape refused).
        var unplaced = 0
        /// What went wrong, one sentence each: the comparison runs on a thread of its own, where an issue
        /// recorded would belong to no test, so the test reports these when it is back.
        var problems: [String] = []

        mutating func add(_ other: Tally) {
            documents += other.documents
            areas += other.areas
            agreements += other.agreements
            disagreements += other.disagreements
            nearEdgeDiffering += other.nearEdgeDiffering
            nearEdge += other.nearEdge
            unplaced += other.unplaced
            problems += other.problems
        }

        var description: String {
            "\(documents) documents, \(areas) areas, \(agreements) points agree, \(disagreements) disagree farther "
                + "than 10 m, \(nearEdge) within 10 m (\(nearEdgeDiffering) of them differing), \(unplaced) areas unplaced"
        }
    }

    @Test("Every judgeable area of every corpus document: 0 disagreements farther than 10 m from an edge, 0 refused")
    func agreesWithGEOS() async throws {
        // Seconds of Python and of point-in-area tests: on a thread of its own, not one of the cooperative pool's
        // two, where it would hold up every other test's awaits (and their deadlines) meanwhile.
        let (total, bySource, byCountry, judgedAreas) = try await onOwnThread { try Self.compareCorpus() }
        #expect(total.problems.isEmpty, "\(total.problems.joined(separator: "\n"))")
        #expect(total.disagreements == 0, "\(total)")
        #expect(total.unplaced == 0, "\(total)")
        #expect(total.areas == judgedAreas)
        // The figures for docs/warnings.md, in the test's output.
        print("corpus comparison: \(total)")
        for (source, tally) in bySource.sorted(by: { $0.key < $1.key }) { print("  \(source): \(tally)") }
        for (country, tally) in byCountry.sorted(by: { $0.key < $1.key }) { print("  \(country): \(tally)") }
    }

    /// Every document compared: the total, by source format and by country, and how many areas GEOS judged.
    static func compareCorpus() throws -> (Tally, [String: Tally], [String: Tally], Int?) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let manifest = try required(
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.corpus.appendingPathComponent("manifest.json")))
                as? [String: Any])
        let documents = try required(manifest["documents"] as? [[String: Any]])

        // GEOS's answers, and the CAP documents in the MeteoAlarm JSON form the decoder reads.
        let points = work.appendingPathComponent("geos-points.json")
        try Self.runPython([
            Self.corpus.appendingPathComponent("tools/geos_points.py").path, "--manifest",
            Self.corpus.appendingPathComponent("manifest.json").path, "--output", points.path,
        ])
        // Every document as its source holds it (nobody edited one), and the CAP ones converted.
        let converter = """
            import hashlib, json, os, sys
            sys.path.insert(0, sys.argv[1])
            import cap_to_meteoalarm
            corpus, out = sys.argv[2], sys.argv[3]
            for entry in json.load(open(os.path.join(corpus, "manifest.json")))["documents"]:
                data = open(os.path.join(corpus, entry["file"]), "rb").read()
                if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                    sys.exit(entry["file"] + " differs from the recording (sha256)")
                if entry["format"] == "cap-xml":
                    name = entry["file"].replace("/", "_") + ".json"
                    json.dump(cap_to_meteoalarm.convert_file(os.path.join(corpus, entry["file"])),
                              open(os.path.join(out, name), "w"))
            """
        try Self.runPython([
            "-c", converter, Self.corpus.appendingPathComponent("tools").path, Self.corpus.path, work.path,
        ])

        let geos = try required(try JSONSerialization.jsonObject(with: Data(contentsOf: points)) as? [String: Any])
        let results = try required(geos["documents"] as? [[String: Any]])
        var total = Tally()
        if results.count != documents.count {
            total.problems.append("GEOS judged \(results.count) documents of \(documents.count)")
        }
        var bySource: [String: Tally] = [:]
        var byCountry: [String: Tally] = [:]
        for result in results {
            let file = try required(result["file"] as? String)
            let format = try required(result["format"] as? String)
            let country = result["country"] as? String ?? "?"
            let body =
                format == "cap-xml"
                ? try Data(contentsOf: work.appendingPathComponent(file.replacingOccurrences(of: "/", with: "_") + ".json"))
                : try Data(contentsOf: Self.corpus.appendingPathComponent(file))
            let tally = try compare(file: file, format: format, body: body, geos: result)
            total.add(tally)
            bySource[format, default: Tally()].add(tally)
            byCountry[country, default: Tally()].add(tally)
        }
        return (total, bySource, byCountry, (geos["summary"] as? [String: Any])?["judged_areas"] as? Int)
    }

    /// One document: decoded by its decoder (which must take it), then each area GEOS judged compared point by point.
    static func compare(file: String, format: String, body: Data, geos: [String: Any]) throws -> Tally {
        var tally = Tally(documents: 1)
        let feed: DecodedFeed
        let listKey: String
        do {
            switch format {
            case "nws-geojson": (feed, listKey) = (try NWSDecoder.decode(body, askedPoint: nil), "features")
            case "metalerts-geojson": (feed, listKey) = (try MetNorwayAlertsDecoder.decode(body), "features")
            case "eccc-geojson": (feed, listKey) = (try ECCCDecoder.decode(body), "features")
            case "brightsky-json": (feed, listKey) = (try BrightSkyDecoder.decode(body), "alerts")
            case "meteoalarm-json", "cap-xml": (feed, listKey) = (try MeteoAlarmDecoder.decode(body), "warnings")
            default: throw TestFailure("\(file): no decoder for \(format)")
            }
        } catch {
            // A whole document refused: only acceptable when GEOS judged none of its areas.
            let judged = (geos["warnings"] as? [[String: Any]] ?? []).contains { warning in
                (warning["areas"] as? [[String: Any]] ?? []).contains { $0["judgeable"] as? Bool == true }
            }
            if judged { tally.problems.append("\(file) was refused although GEOS judged an area: \(error)") }
            return tally
        }
        let root = try required(try JSONReader.parse(body) as? [String: Any])
        let elements = root[listKey] as? [Any] ?? []
        var messages: [String: [WarningMessage]] = [:]
        for message in feed.messages { messages[message.warning.identifier, default: []].append(message) }
        let refusedEntries = Set(feed.refused.map(\.entry))

        for warning in geos["warnings"] as? [[String: Any]] ?? [] {
            let index = try required(warning["warning"] as? Int)
            let element = try required(elements[index] as? [String: Any])
            let identifier = Self.identifier(element, format: format)
            let areas = (warning["areas"] as? [[String: Any]] ?? []).filter { $0["judgeable"] as? Bool == true }
            guard !areas.isEmpty else { continue }
            if let identifier, refusedEntries.contains(identifier) {
                let problems = feed.refused.filter { $0.entry == identifier }.map(\.problem)
                tally.problems.append("\(file): warning \(identifier) refused although GEOS judged its area: \(problems)")
                continue
            }
            // The message the decoder made of it (one of several with the same identifier: the first not yet used).
            let message = identifier.flatMap { messages[$0]?.first }
            if let identifier, messages[identifier]?.isEmpty == false { messages[identifier]?.removeFirst() }
            for area in areas {
                let infoIndex = try required(area["info"] as? Int), areaIndex = try required(area["area"] as? Int)
                let ours = try Self.area(
                    element, format: format, info: infoIndex, area: areaIndex, decoded: message)
                tally.areas += 1
                let unusable = ((area["shapes"] as? [String: Any])?["unusable"] as? [Any])?.count ?? 0
                if ours.refusedShapes.count > unusable {
                    tally.problems.append(
                        "\(file) warning \(index) area \(infoIndex)/\(areaIndex): refused \(ours.refusedShapes), GEOS \(unusable)")
                }
                guard let geometry = ours.geometry else {
                    tally.unplaced += 1
                    tally.problems.append("\(file) warning \(index) area \(infoIndex)/\(areaIndex): no shape GEOS could judge")
                    continue
                }
                for point in area["points"] as? [[Any]] ?? [] {
                    guard point.count >= 4, let latitude = (point[0] as? NSNumber)?.doubleValue,
                        let longitude = (point[1] as? NSNumber)?.doubleValue, let inside = (point[2] as? NSNumber)?.boolValue,
                        let edge = (point[3] as? NSNumber)?.doubleValue
                    else { throw TestFailure("\(file): a point is not [lat, lon, inside, edge_m, kind]") }
                    let answer = geometry.contains(Coordinate(latitude: latitude, longitude: longitude))
                    if edge <= 10 {
                        tally.nearEdge += 1
                        if answer != inside { tally.nearEdgeDiffering += 1 }
                    } else if answer == inside {
                        tally.agreements += 1
                    } else {
                        tally.disagreements += 1
                        let where_ = "\(file) warning \(index) area \(infoIndex)/\(areaIndex)"
                        let answers = "GEOS \(inside ? "inside" : "outside"), forecastd \(answer ? "inside" : "outside")"
                        tally.problems.append("\(where_): (\(latitude), \(longitude)) \(edge) m from an edge: \(answers)")
                    }
                }
            }
        }
        return tally
    }

    /// `value`, or a failure naming what was missing: `#require` off the test's task would record its issue for no test.
    static func required<T>(_ value: T?, _ what: String = "a value the corpus must hold") throws -> T {
        guard let value else { throw TestFailure("\(what) is missing") }
        return value
    }

    /// The identifier the decoder gives an element of its feed's list.
    static func identifier(_ element: [String: Any], format: String) -> String? {
        let properties = element["properties"] as? [String: Any]
        switch format {
        case "nws-geojson", "metalerts-geojson": return properties?.text("id")
        case "eccc-geojson": return element.text("id") ?? properties?.text("id")
        case "brightsky-json": return element.text("alert_id")
        default: return (element["alert"] as? [String: Any])?.text("identifier") ?? element.text("uuid")
        }
    }

    /// forecastd's area (info `info`, area `area`) of an element: the decoder's own when it decoded the element
    /// and chose that info, else the same geometry code applied to that area as the decoder would.
    static func area(
        _ element: [String: Any], format: String, info: Int, area index: Int, decoded: WarningMessage?
    ) throws -> WarningArea {
        var budget = PositionBudget(limit: .max)
        if format == "meteoalarm-json" || format == "cap-xml" {
            let alert = try required(element["alert"] as? [String: Any])
            let infos = alert.objects("info")
            if let decoded, MeteoAlarmDecoder.chosenInfo(infos) == info, case .areas(let areas) = decoded.coverage {
                return areas[index]
            }
            return try MeteoAlarmDecoder.area(infos[info].objects("area")[index], budget: &budget)
        }
        if let decoded, case .areas(let areas) = decoded.coverage, let area = areas.first { return area }
        // Dropped by the decoder (not Actual, ended, …): the geometry code it would have used.
        let geometry = try required(element["geometry"], "no geometry in a GeoJSON feature GEOS judged")
        let reading = try AreaGeometry.readGeoJSON(geometry, budget: &budget)
        return WarningArea(geometry: reading.geometry, refusedShapes: reading.refused)
    }
}
