import ForecastModel
import Foundation
import FuzzSupport
import WarningDecoders

/// The shapes warnings carry, judged: the input read by the feeds' JSON reader as a GeoJSON geometry (and, when
/// it is not JSON, as a CAP polygon's text), every polygon that can be judged asked about points around it, on
/// the antimeridian and at a pole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeometry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    let points = [
        Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 45.5, longitude: 6.2),
        Coordinate(latitude: -16.5, longitude: 179.9), Coordinate(latitude: 90, longitude: 0),
        Coordinate(latitude: -89.9, longitude: -180),
    ]
    var shapes: [AreaGeometry] = []
    if let object = try? JSONReader.parse(bytes) {
        var budget = PositionBudget()
        if let reading = try? AreaGeometry.readGeoJSON(object, budget: &budget), let geometry = reading.geometry {
            shapes.append(geometry)
        }
    } else {
        let text = String(decoding: bytes, as: UTF8.self)
        if let ring = try? AreaGeometry.capPolygon(text) { shapes.append(AreaGeometry(polygons: [GeoPolygon(outer: ring)])) }
        if let circle = try? AreaGeometry.capCircle(text) { shapes.append(AreaGeometry(polygons: [], circles: [circle])) }
    }
    for shape in shapes {
        for point in points {
            _ = shape.contains(point)
            _ = shape.contains(point, toleranceKm: 5)
        }
        for polygon in shape.polygons {
            for position in polygon.outer.positions.prefix(8) { _ = shape.contains(position) }
        }
    }
    return 0
}

@_cdecl("FuzzGeometry_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzGeometry)
}
