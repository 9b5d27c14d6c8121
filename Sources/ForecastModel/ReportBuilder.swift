import Foundation

/// Everything a report is made from. The daemon's state owner keeps one of these and renders it
/// whenever something changes, so a units switch needs no new data.
public struct ReportInputs: Sendable, Hashable {
    public var fix: LocationFix?
    public var place: Place?
    /// The nearest locality when ``place`` is the city covering it.
    public var locality: Place?
    /// True when the position is only near ``place`` (far from any place).
    public var placeIsNear: Bool = false
    /// The last good forecast, kept across failures and restarts.
    public var forecast: Forecast?
    /// The units the report is written in; the forecast stays in canonical units.
    public var units: UnitPreferences
    /// How old a forecast may get before it counts as stale (normally a little over the refresh interval).
    public var staleAfter: TimeInterval
    /// Whether the position sources are still starting (so "no position yet" is not a final state).
    public var locating: Bool
    /// True while the forecast is the one saved before the last restart: stale until refreshed.
    public var fromSavedState: Bool
    public var errors: [ReportError]
    /// Official warnings in force at the position, as `WarningMerger` in the Warnings module merges and
    /// sorts them (most severe first); nil when the warning sources are off or none serves the position's
    /// country (the report then has no `warnings`), `[]` when none is in force. Those expired at the
    /// report's moment are left out, so a report never shows a warning past its `expires`.
    public var warnings: [WeatherWarning]?
    /// How far ahead rain is looked for in the forecast's short-term periods (`[nowcast] horizon_minutes`);
    /// nil when the nowcast is switched off. The report judges it at its own moment (``ReportNowcast``).
    public var nowcastHorizon: TimeInterval?
    /// The last good air quality reading at the position; nil when the air is switched off or not read yet.
    public var air: AirQuality?
    /// True when ``warnings`` are the last good ones of a source that has failed for longer than its
    /// interval and grace (``AlertStaleness``).
    public var warningsStale: Bool = false
    /// How many more warnings are in force than ``warnings`` lists (``Report/warningsOmitted``).
    public var warningsOmitted: Int = 0
    /// True when ``air`` is the last good reading of a service that has failed for longer than its interval
    /// and grace.
    public var airStale: Bool = false

    public init(
        fix: LocationFix? = nil, place: Place? = nil, forecast: Forecast? = nil, units: UnitPreferences = .metric,
        staleAfter: TimeInterval = 30 * 60, locating: Bool = false, fromSavedState: Bool = false,
        errors: [ReportError] = [], warnings: [WeatherWarning]? = nil, nowcastHorizon: TimeInterval? = nil,
        air: AirQuality? = nil
    ) {
        self.warnings = warnings
        self.nowcastHorizon = nowcastHorizon
        self.air = air
        self.fix = fix
        self.place = place
        self.forecast = forecast
        self.units = units
        self.staleAfter = staleAfter
        self.locating = locating
        self.fromSavedState = fromSavedState
        self.errors = errors
    }
}

extension ReportInputs {
    /// Whether a report made at `now` shows its forecast as stale: too old, or its last refresh failed.
    public func isStale(now: Date) -> Bool {
        guard let forecast else { return false }
        // The warning and air sources' problems say nothing about the forecast's age.
        let notForecast: Set<String> = [
            ErrorKind.config.rawValue, ErrorKind.noLocation.rawValue, ErrorKind.warnings.rawValue,
            ErrorKind.air.rawValue,
        ]
        let failing = errors.contains { !notForecast.contains($0.kind) && !ErrorKind.isNotice($0.kind) }
        return fromSavedState || now.timeIntervalSince(forecast.fetchedAt) > staleAfter || failing
    }
}

extension Report {
    /// Number of hourly steps a report carries.
    public static let hourlyCount = 24
    /// Number of daily steps a report carries: today and 6 days.
    public static let dailyCount = 7

    /// Renders the inputs as a report at `now`, converting to the user's units.
    public init(_ inputs: ReportInputs, now: Date) {
        let units = inputs.units
        let forecast = inputs.forecast
        let offset = forecast?.utcOffsetSeconds ?? 0

        let age = forecast.map { max(0, Int(now.timeIntervalSince($0.fetchedAt).rounded(.down))) }
        let stale = inputs.isStale(now: now)

        let status: ReportStatus =
            if forecast != nil { .ok }
            else if inputs.fix != nil { .noForecast }
            else if inputs.locating { .locating }
            else { .noLocation }

        let location = inputs.fix.map { fix in
            ReportLocation(
                latitude: fix.coordinate.latitude.rounded(places: 6),
                longitude: fix.coordinate.longitude.rounded(places: 6),
                source: fix.source.rawValue,
                accuracyM: fix.accuracyMeters.map { $0.rounded(places: 1) },
                fixTime: fix.fixTime.map { Timestamps.rfc3339($0) },
                ageSeconds: max(0, Int(now.timeIntervalSince(fix.receivedAt).rounded(.down))),
                approximate: fix.source == .ip ? true : nil)
        }

        let place = inputs.place.map { place in
            ReportPlace(
                name: inputs.fix?.label ?? place.name, admin1: place.admin1, country: place.country,
                countryCode: place.countryCode, population: place.population > 0 ? place.population : nil,
                distanceKm: place.distanceKm.rounded(places: 2), timezone: place.timezone,
                locality: inputs.locality?.name, near: inputs.placeIsNear ? true : nil)
        }

        // Each unit rounds as it is shown (knots whole, m/s one decimal, inHg two, …).
        func temperature(_ value: Double?) -> Double? {
            value.map { units.temperature.convert(fromCelsius: $0).rounded(places: 1) }
        }
        func speed(_ value: Double?) -> Double? { value.map { units.wind.convert(fromKmh: $0) } }
        func amount(_ value: Double?) -> Double? { value.map { units.precipitation.convert(fromMillimetres: $0) } }
        func pressure(_ value: Double?) -> Double? { value.map { units.pressure.convert(fromHectopascals: $0) } }
        func time(_ date: Date) -> String { Timestamps.rfc3339(date, utcOffsetSeconds: offset) }

        let current = forecast?.current.map { c in
            ReportCurrent(
                time: time(c.time), temperature: temperature(c.temperature),
                apparentTemperature: temperature(c.apparentTemperature), humidity: c.humidity?.rounded(places: 0),
                windSpeed: speed(c.windSpeed), windDirection: c.windDirection?.rounded(places: 0),
                precipitation: amount(c.precipitation), pressure: pressure(c.pressure),
                condition: c.condition.map { $0.condition(isDay: c.isDay ?? true) }, isDay: c.isDay,
                dewPoint: temperature(c.dewPoint), windGusts: speed(c.windGusts), cloudCover: c.cloudCover?.rounded(places: 0),
                uvIndex: c.uvIndex?.rounded(places: 1),
                visibility: c.visibility.map { units.visibility.convert(fromKm: $0 / 1000) })
        }

        // The next hours start at the hour that contains `now`, not at the first hour the provider sent
        // (which is local midnight for Open-Meteo).
        let hourStart = now.addingTimeInterval(-3600)
        let hourly = (forecast?.hourly ?? []).lazy.filter { $0.time > hourStart }.prefix(Report.hourlyCount).map { h in
            ReportHour(
                time: time(h.time), temperature: temperature(h.temperature),
                apparentTemperature: temperature(h.apparentTemperature), humidity: h.humidity?.rounded(places: 0),
                precipitation: amount(h.precipitation),
                precipitationProbability: h.precipitationProbability?.rounded(places: 0), windSpeed: speed(h.windSpeed),
                windDirection: h.windDirection?.rounded(places: 0),
                condition: h.condition.map { $0.condition(isDay: h.isDay ?? true) }, isDay: h.isDay,
                windGusts: speed(h.windGusts), cloudCover: h.cloudCover?.rounded(places: 0), uvIndex: h.uvIndex?.rounded(places: 1))
        }

        let today = Timestamps.localDate(now, utcOffsetSeconds: offset)
        let daily = (forecast?.daily ?? []).lazy.filter { $0.date >= today }.prefix(Report.dailyCount).map { d in
            ReportDay(
                date: d.date, temperatureMin: temperature(d.temperatureMin), temperatureMax: temperature(d.temperatureMax),
                condition: d.condition.map { $0.condition(isDay: true) },
                precipitationProbability: d.precipitationProbability?.rounded(places: 0),
                precipitationSum: amount(d.precipitationSum), windSpeedMax: speed(d.windSpeedMax),
                sunrise: d.sunrise.map(time), sunset: d.sunset.map(time), windGustsMax: speed(d.windGustsMax),
                uvIndexMax: d.uvIndexMax?.rounded(places: 1))
        }

        var errors = inputs.errors
        if status == .noLocation, !errors.contains(where: { $0.kind == ErrorKind.noLocation.rawValue }) {
            errors.append(
                ReportError(
                    kind: .noLocation,
                    message: "No position: gpsd has no fix and no pin is set (forecastctl pin LAT,LON, or [location.pin] in the config)."
                ))
        }

        self.init(
            updatedAt: Timestamps.rfc3339(now), stale: stale, ageSeconds: age, status: status, location: location,
            place: place, units: ReportUnits(units), current: current, hourly: Array(hourly), daily: Array(daily),
            provider: forecast.map {
                ReportProvider(
                    name: $0.provider, attribution: $0.attribution, fetchedAt: Timestamps.rfc3339($0.fetchedAt),
                    notes: $0.notes.isEmpty ? nil : $0.notes)
            },
            errors: errors,
            warnings: inputs.warnings.map { $0.filter { $0.isInForce(at: now) } },
            nowcast: forecast.flatMap { forecast in
                inputs.nowcastHorizon.flatMap { ReportNowcast(forecast, now: now, horizon: $0) }
            },
            air: inputs.air.map { ReportAir($0, utcOffsetSeconds: offset, stale: inputs.airStale) },
            warningsStale: inputs.warnings != nil && inputs.warningsStale ? true : nil,
            warningsOmitted: inputs.warnings != nil && inputs.warningsOmitted > 0 ? inputs.warningsOmitted : nil)
    }
}

extension Double {
    /// Rounds half away from zero to a number of decimal places, for tidy JSON.
    public func rounded(places: Int) -> Double {
        let scale = pow(10.0, Double(places))
        return (self * scale).rounded() / scale
    }
}
