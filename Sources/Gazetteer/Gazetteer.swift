import ForecastModel
import Foundation

/// The offline GeoNames gazetteer: names the populated place nearest to a coordinate, the city a
/// person would name there (`placeForPeople(at:rule:)`), and finds places by name (`search(_:limit:)`,
/// `resolve(_:)`).
///
/// The data file (gazetteer.bin, built by scripts/build-gazetteer.py from GeoNames' cities1000)
/// is mapped read-only, not read: opening checks only the header, and a lookup touches a few
/// dozen scattered pages. Places are stored as unit vectors in an implicit k-d tree, and the
/// nearest by straight-line (chord) distance between unit vectors is the nearest by great-circle
/// distance, so every answer is exact for the stored coordinates.
///
/// The file must not be truncated in place while it is mapped (replace it by renaming, as package
/// managers and the build script do): reading a page beyond a shrunken file ends the process.
public final class Gazetteer: PlaceNaming, PlaceSearching, Sendable {
    /// The environment variable that, when set, names the data file and overrides the search.
    public static let pathVariable = "FORECASTD_GAZETTEER"

    /// The file this gazetteer was opened from.
    public let url: URL

    private let file: MappedFile
    let tables: GazetteerTables

    /// Maps a gazetteer file and checks its header.
    ///
    /// Throws `GazetteerError` naming the file and the problem when it cannot be opened, is
    /// truncated, has another format version or has sections that do not fit in it. Content
    /// errors inside the sections are caught by `verify()`, which reads the whole file.
    public init(contentsOf url: URL) throws {
        self.url = url
        file = try MappedFile(path: url.path)
        tables = try GazetteerTables(bytes: file.bytes, path: url.path)
    }

    /// Opens the data file found by `locateDefaultData()`.
    public static func loadDefault() throws -> Gazetteer {
        try Gazetteer(contentsOf: locateDefaultData())
    }

    /// The number of places.
    public var count: Int { tables.count }

    /// The credit line the data's licence requires ("Place data from GeoNames ...").
    public var attribution: String {
        tables.string(tables.attributionReference) ?? ""
    }

    // MARK: Lookup

    /// The place nearest to `coordinate` by great-circle distance.
    ///
    /// Returns nil for a latitude outside -90...90, a longitude outside -180...180, a NaN or an
    /// infinity, and when the nearest place's record is corrupt (`verify()` names the problem).
    public func nearestPlace(to coordinate: Coordinate) -> Place? {
        guard let index = nearestIndex(to: coordinate) else { return nil }
        return place(at: index, distanceFrom: coordinate)
    }

    /// The index of the place nearest to `coordinate`, or nil for an impossible coordinate.
    ///
    /// Of places at exactly the same distance, the lowest index wins.
    public func nearestIndex(to coordinate: Coordinate) -> Int? {
        guard let query = scaledUnitVector(coordinate) else { return nil }
        var search = NearestSearch(tables: tables, query: query)
        search.run(count: tables.count)
        return search.bestIndex
    }

    /// The same answer as `nearestIndex(to:)` by checking every place: for tests and benchmarks.
    public func nearestIndexBruteForce(to coordinate: Coordinate) -> Int? {
        guard let query = scaledUnitVector(coordinate) else { return nil }
        var search = NearestSearch(tables: tables, query: query)
        search.bruteForce(count: tables.count)
        return search.bestIndex
    }

    /// The coordinate's unit vector in the stored scale, or nil for an impossible coordinate.
    func scaledUnitVector(_ coordinate: Coordinate) -> (x: Double, y: Double, z: Double)? {
        let latitude = coordinate.latitude
        let longitude = coordinate.longitude
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            return nil
        }
        let φ = latitude * .pi / 180
        let λ = longitude * .pi / 180
        let equatorial = cos(φ) * tables.scale
        return (equatorial * cos(λ), equatorial * sin(λ), sin(φ) * tables.scale)
    }

    // MARK: Records

    /// The place stored at `index` (0 ..< count), with its distance from `origin`.
    ///
    /// Returns nil when the record's references point outside the file, which only a corrupt
    /// file can cause.
    public func place(at index: Int, distanceFrom origin: Coordinate) -> Place? {
        precondition(index >= 0 && index < tables.count, "place index \(index) is outside 0..<\(tables.count)")
        let record = tables.record(index)
        guard let name = tables.string(record.name),
            let region = tables.region(record.region),
            let admin1 = tables.string(region.admin1),
            let timezone = tables.string(region.timezone),
            let country = tables.string(region.countryName)
        else { return nil }
        let coordinate = coordinate(at: index)
        return Place(
            name: name,
            admin1: admin1.isEmpty ? nil : admin1,
            country: country,
            countryCode: region.countryCode,
            population: Int(record.population),
            coordinate: coordinate,
            timezone: timezone.isEmpty ? nil : timezone,
            distanceKm: origin.distanceKm(to: coordinate)
        )
    }

    /// The name of the place at `index`, decoded straight from the mapped string table.
    public func name(at index: Int) -> String? {
        precondition(index >= 0 && index < tables.count, "place index \(index) is outside 0..<\(tables.count)")
        return tables.string(tables.record(index).name)
    }

    /// The GeoNames id of the place at `index` (https://www.geonames.org/<id>).
    public func geonameID(at index: Int) -> Int {
        precondition(index >= 0 && index < tables.count, "place index \(index) is outside 0..<\(tables.count)")
        return Int(tables.record(index).geonameID)
    }

    /// The coordinate of the place at `index`, as GeoNames gives it (to 1e-5 degrees).
    ///
    /// The file stores only unit vectors, placed within about 6 mm; rounding the angles computed
    /// from them to 1e-5 degrees gives back the source's figures exactly (the build script checks
    /// this for every place).
    public func coordinate(at index: Int) -> Coordinate {
        precondition(index >= 0 && index < tables.count, "place index \(index) is outside 0..<\(tables.count)")
        let point = tables.nodes + 4 * index
        let x = Double(point[0])
        let y = Double(point[1])
        let z = Double(point[2])
        // atan2 against the equatorial length stays accurate near the poles, where asin does not.
        let latitude = atan2(z, hypot(x, y)) * 180 / .pi
        let longitude = atan2(y, x) * 180 / .pi
        return Coordinate(
            latitude: (latitude * 100_000).rounded() / 100_000,
            longitude: (longitude * 100_000).rounded() / 100_000
        )
    }
}
