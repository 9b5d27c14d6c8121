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
        let forecast = inputs.forecast
        let offset = forecast?.utcOffsetSeconds ?? 0
        let convert = ReportConversion(units: inputs.units, utcOffsetSeconds: offset)
        let status = Report.status(inputs)
        self.init(
            updatedAt: Timestamps.rfc3339(now), stale: inputs.isStale(now: now),
            ageSeconds: forecast.map { Report.seconds(since: $0.fetchedAt, at: now) }, status: status,
            location: inputs.fix.map { Report.location($0, now: now) }, place: Report.place(inputs),
            units: ReportUnits(inputs.units), current: forecast?.current.map(convert.current),
            hourly: Report.hours(forecast, now: now, convert), daily: Report.days(forecast, now: now, convert),
            provider: forecast.map(Report.provider), errors: Report.errors(inputs, status: status),
            warnings: inputs.warnings.map { $0.filter { $0.isInForce(at: now) } },
            nowcast: forecast.flatMap { forecast in
                inputs.nowcastHorizon.flatMap { ReportNowcast(forecast, now: now, horizon: $0) }
            },
            air: inputs.air.map { ReportAir($0, utcOffsetSeconds: offset, stale: inputs.airStale) },
            warningsStale: inputs.warnings != nil && inputs.warningsStale ? true : nil,
            warningsOmitted: inputs.warnings != nil && inputs.warningsOmitted > 0 ? inputs.warningsOmitted : nil)
    }

    private static func status(_ inputs: ReportInputs) -> ReportStatus {
        if inputs.forecast != nil { .ok }
        else if inputs.fix != nil { .noForecast }
        else if inputs.locating { .locating }
        else { .noLocation }
    }

    /// Whole seconds from `date` to `now`; never negative: data stamped after `now` (the clock went back) counts as new.
    private static func seconds(since date: Date, at now: Date) -> Int {
        max(0, Int(now.timeIntervalSince(date).rounded(.down)))
    }

    private static func location(_ fix: LocationFix, now: Date) -> ReportLocation {
        ReportLocation(
            latitude: fix.coordinate.latitude.rounded(places: 6),
            longitude: fix.coordinate.longitude.rounded(places: 6),
            source: fix.source.rawValue,
            accuracyM: fix.accuracyMeters.map { $0.rounded(places: 1) },
            fixTime: fix.fixTime.map { Timestamps.rfc3339($0) },
            ageSeconds: seconds(since: fix.receivedAt, at: now),
            approximate: fix.source == .ip ? true : nil)
    }

    private static func place(_ inputs: ReportInputs) -> ReportPlace? {
        inputs.place.map { place in
            ReportPlace(
                name: inputs.fix?.label ?? place.name, admin1: place.admin1, country: place.country,
                countryCode: place.countryCode, population: place.population > 0 ? place.population : nil,
                distanceKm: place.distanceKm.rounded(places: 2), timezone: place.timezone,
                locality: inputs.locality?.name, near: inputs.placeIsNear ? true : nil)
        }
    }

    /// The next hours start at the hour that contains `now`, not at the first hour the provider sent
    /// (which is local midnight for Open-Meteo).
    private static func hours(_ forecast: Forecast?, now: Date, _ convert: ReportConversion) -> [ReportHour] {
        let hourStart = now.addingTimeInterval(-3600)
        return (forecast?.hourly ?? []).lazy.filter { $0.time > hourStart }.prefix(hourlyCount).map(convert.hour)
    }

    /// Today (in the forecast's time zone) and the days after it.
    private static func days(_ forecast: Forecast?, now: Date, _ convert: ReportConversion) -> [ReportDay] {
        let today = Timestamps.localDate(now, utcOffsetSeconds: convert.utcOffsetSeconds)
        return (forecast?.daily ?? []).lazy.filter { $0.date >= today }.prefix(dailyCount).map(convert.day)
    }

    private static func provider(_ forecast: Forecast) -> ReportProvider {
        ReportProvider(
            name: forecast.provider, attribution: forecast.attribution,
            fetchedAt: Timestamps.rfc3339(forecast.fetchedAt), notes: forecast.notes.isEmpty ? nil : forecast.notes)
    }

    /// The inputs' errors, and a report with no position at all says why, even when no source reported it.
    private static func errors(_ inputs: ReportInputs, status: ReportStatus) -> [ReportError] {
        var errors = inputs.errors
        if status == .noLocation, !errors.contains(where: { $0.kind == ErrorKind.noLocation.rawValue }) {
            errors.append(
                ReportError(
                    kind: .noLocation,
                    message: "No position: gpsd has no fix and no pin is set (forecastctl pin LAT,LON, or [location.pin] in the config)."
                ))
        }
        return errors
    }
}

/// The user's units and the forecast's time zone, applied to each value a report shows. Each unit rounds
/// as it is shown (knots whole, m/s one decimal, inHg two, …), so the JSON holds what a bar prints.
private struct ReportConversion {
    let units: UnitPreferences
    let utcOffsetSeconds: Int

    func temperature(_ value: Double?) -> Double? {
        value.map { units.temperature.convert(fromCelsius: $0).rounded(places: 1) }
    }
    func speed(_ value: Double?) -> Double? { value.map { units.wind.convert(fromKmh: $0) } }
    func amount(_ value: Double?) -> Double? { value.map { units.precipitation.convert(fromMillimetres: $0) } }
    func pressure(_ value: Double?) -> Double? { value.map { units.pressure.convert(fromHectopascals: $0) } }
    func time(_ date: Date) -> String { Timestamps.rfc3339(date, utcOffsetSeconds: utcOffsetSeconds) }

    func current(_ c: CurrentConditions) -> ReportCurrent {
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

    func hour(_ h: HourlyForecast) -> ReportHour {
        ReportHour(
            time: time(h.time), temperature: temperature(h.temperature),
            apparentTemperature: temperature(h.apparentTemperature), humidity: h.humidity?.rounded(places: 0),
            precipitation: amount(h.precipitation),
            precipitationProbability: h.precipitationProbability?.rounded(places: 0), windSpeed: speed(h.windSpeed),
            windDirection: h.windDirection?.rounded(places: 0),
            condition: h.condition.map { $0.condition(isDay: h.isDay ?? true) }, isDay: h.isDay,
            windGusts: speed(h.windGusts), cloudCover: h.cloudCover?.rounded(places: 0), uvIndex: h.uvIndex?.rounded(places: 1))
    }

    func day(_ d: DailyForecast) -> ReportDay {
        ReportDay(
            date: d.date, temperatureMin: temperature(d.temperatureMin), temperatureMax: temperature(d.temperatureMax),
            condition: d.condition.map { $0.condition(isDay: true) },
            precipitationProbability: d.precipitationProbability?.rounded(places: 0),
            precipitationSum: amount(d.precipitationSum), windSpeedMax: speed(d.windSpeedMax),
            sunrise: d.sunrise.map(time), sunset: d.sunset.map(time), windGustsMax: speed(d.windGustsMax),
            uvIndexMax: d.uvIndexMax?.rounded(places: 1))
    }
}

extension Double {
    /// Rounds half away from zero to a number of decimal places, for tidy JSON.
    public func rounded(places: Int) -> Double {
        let scale = pow(10.0, Double(places))
        return (self * scale).rounded() / scale
    }
}
