import ForecastModel
import Foundation

/// Where Open-Meteo's `minutely_15` precipitation is a forecast model's own 15-minute output, and
/// where it is hourly data interpolated to 15 minutes.
///
/// Open-Meteo's forecast API documentation (open-meteo.com/en/docs, "15-Minutely Parameter
/// Definition"): the data "is based on NOAA HRRR model for North America and DWD ICON-D2 and
/// Météo-France AROME model for Central Europe. If 15-minutely data is requested for other regions
/// data is interpolated from 1-hourly to 15-minutely"; its table marks `precipitation` as native in all
/// three. The response does not say which model served, so the area is told by position, from the
/// grids Open-Meteo's server code (open-meteo/open-meteo) gives those models:
/// - ICON-D2 (`IconDomains.iconD2_15min`): a regular grid, 43.18–58.08° N, 3.94° W–20.34° E.
/// - AROME France (`MeteoFranceDomain.arome_france_15min`, `_hd_15min`): 37.5–55.4° N, 12° W–16° E.
/// - HRRR CONUS (`GfsDomain.hrrr_conus_15min`): a Lambert conformal grid (1799 × 1059 points of 3 km,
///   standard parallel 38.5° N, central meridian 97.5° W) from 21.138° N 122.72° W to 47.8424° N 60.918° W.
///
/// A position inside one of them is still interpolated when the configured URL chooses other models
/// (`models=`), which ``OpenMeteoProvider`` checks.
public enum OpenMeteoQuarterHour {
    /// A latitude/longitude box, edges included.
    struct Box {
        var latitudes: ClosedRange<Double>
        var longitudes: ClosedRange<Double>

        func contains(_ coordinate: Coordinate) -> Bool {
            latitudes.contains(coordinate.latitude) && longitudes.contains(coordinate.longitude)
        }
    }

    /// DWD ICON-D2's grid: 1215 × 746 points of 0.02° from 43.18° N, 3.94° W.
    static let iconD2 = Box(latitudes: 43.18...58.08, longitudes: -3.94...20.34)
    /// Météo-France AROME's grid: 1121 × 717 points of 0.025° from 37.5° N, 12° W.
    static let aromeFrance = Box(latitudes: 37.5...55.4, longitudes: -12...16)

    /// Whether Open-Meteo's best-match `minutely_15` precipitation at `coordinate` comes from a
    /// 15-minute model (HRRR, ICON-D2, AROME) rather than interpolated hourly data.
    public static func isNative(at coordinate: Coordinate) -> Bool {
        guard coordinate.latitude.isFinite, coordinate.longitude.isFinite else { return false }
        return iconD2.contains(coordinate) || aromeFrance.contains(coordinate) || HRRRGrid.contains(coordinate)
    }

    /// NOAA HRRR's CONUS grid, in its own projection: a point is inside when its projected position lies
    /// between the projections of the grid's first (south-west) and last (north-east) points, as
    /// Open-Meteo's `ProjectionGrid` finds a grid point.
    enum HRRRGrid {
        /// Lambert conformal conic on a sphere, tangent at 38.5° N (both standard parallels), centred on 97.5° W.
        static let standardParallel = 38.5 * Double.pi / 180
        static let centralMeridian = -97.5
        static let cone = sin(standardParallel)
        static let southWest = project(latitude: 21.138, longitude: -122.72)
        static let northEast = project(latitude: 47.8424, longitude: -60.918)

        static func contains(_ coordinate: Coordinate) -> Bool {
            // The projection is singular at the south pole and meaningless far from the cone.
            guard coordinate.latitude > -80 else { return false }
            let point = project(latitude: coordinate.latitude, longitude: coordinate.longitude)
            return point.x >= southWest.x && point.x <= northEast.x && point.y >= southWest.y && point.y <= northEast.y
        }

        /// Position on the cone in Earth radii; the scale cancels out in ``contains(_:)``.
        static func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
            let φ = latitude * .pi / 180
            var Δλ = longitude - centralMeridian
            if Δλ > 180 { Δλ -= 360 }
            if Δλ < -180 { Δλ += 360 }
            let f = cos(standardParallel) * pow(tan(.pi / 4 + standardParallel / 2), cone) / cone
            let ρ = f / pow(tan(.pi / 4 + φ / 2), cone)
            let θ = cone * Δλ * .pi / 180
            // y is measured from the equator (ρ0 = f at latitude 0), growing northwards.
            return (ρ * sin(θ), f - ρ * cos(θ))
        }
    }
}
