import Foundation

/// The one thing forecastd publishes: to the status file, on the socket, to every renderer.
///
/// Documented in `docs/report.md`. Values a source did not give are absent from the JSON, never null.
/// All quantities are already in the user's units (see ``units``).
public struct Report: Sendable, Hashable, Codable {
    /// Version of this schema; bumped only for changes that break readers.
    public static let schemaVersion = 1

    public var schema: Int
    /// When this report was produced (RFC 3339, UTC).
    public var updatedAt: String
    /// True when the forecast is older than its refresh interval allows or the last refresh failed.
    public var stale: Bool
    /// Age of the forecast data in seconds, when there is any.
    public var ageSeconds: Int?
    /// What state the daemon is in, for readers that show a short text instead of data.
    public var status: ReportStatus
    public var location: ReportLocation?
    public var place: ReportPlace?
    public var units: ReportUnits
    public var current: ReportCurrent?
    public var hourly: [ReportHour]
    public var daily: [ReportDay]
    public var provider: ReportProvider?
    public var errors: [ReportError]
    /// The user's other places (`[[cities]]`), each with a report of its own; absent when none is listed.
    public var cities: [ReportCity]?
    /// Official warnings in force at the position (at most 20): those whose area is confirmed first, each group
    /// most severe first, then the earliest onset; absent when the warning sources are off or none serves the
    /// position's country, `[]` when none is in force.
    public var warnings: [WeatherWarning]?
    /// Rain soon, or rain stopping soon; absent when it is dry now and for the nowcast's horizon, when the
    /// forecast has no short-term data, or when the nowcast is switched off.
    public var nowcast: ReportNowcast?
    /// The air at the position: its quality index, pollutants, UV and pollen; absent when switched off or
    /// not read yet.
    public var air: ReportAir?
    /// True when the warning source has not answered well for longer than its interval and grace
    /// (``AlertStaleness``): the warnings shown are the last good ones and may be out of date; absent
    /// otherwise.
    public var warningsStale: Bool?
    /// How many more warnings are in force at the position than `warnings` lists (the least severe, beyond
    /// the report's bound); absent when none.
    public var warningsOmitted: Int?
    /// Who wrote this copy of the report to a status file, when, and until when it holds; present in the
    /// status file only (the socket's answers are the report as it is now).
    public var written: StatusFileStamp?

    public init(
        schema: Int = Report.schemaVersion, updatedAt: String, stale: Bool, ageSeconds: Int?, status: ReportStatus,
        location: ReportLocation?, place: ReportPlace?, units: ReportUnits, current: ReportCurrent?,
        hourly: [ReportHour], daily: [ReportDay], provider: ReportProvider?, errors: [ReportError],
        warnings: [WeatherWarning]? = nil, nowcast: ReportNowcast? = nil, air: ReportAir? = nil,
        warningsStale: Bool? = nil, warningsOmitted: Int? = nil
    ) {
        self.schema = schema
        self.updatedAt = updatedAt
        self.stale = stale
        self.ageSeconds = ageSeconds
        self.status = status
        self.location = location
        self.place = place
        self.units = units
        self.current = current
        self.hourly = hourly
        self.daily = daily
        self.provider = provider
        self.errors = errors
        self.warnings = warnings
        self.nowcast = nowcast
        self.warningsStale = warningsStale
        self.warningsOmitted = warningsOmitted
        self.air = air
    }

    /// The encoder every writer of reports uses: snake_case keys in sorted order (so the same report
    /// is always the same bytes), one line, no escaped slashes.
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

/// What a status file says about itself, so that a reader knows whether it still holds: the daemon writes
/// the file again by `validUntil` at the latest while it runs (and on every change before that), and the
/// process that wrote it is named by its id and the time it started, which no later process with the same id
/// shares.
public struct StatusFileStamp: Sendable, Hashable, Codable {
    /// When the file was written (RFC 3339, UTC).
    public var at: String
    /// When it stops holding (RFC 3339, UTC): a reader after this time, the daemon not having written it
    /// again, marks the weather stale.
    public var validUntil: String
    /// The id of the daemon's process.
    public var pid: Int32
    /// When that process started, in clock ticks after boot (`/proc/PID/stat`, field 22), when known.
    public var processStart: UInt64?
    /// The boot it started in (`/proc/sys/kernel/random/boot_id`), when known.
    public var bootId: String?

    public init(at: String, validUntil: String, pid: Int32, processStart: UInt64?, bootId: String?) {
        self.at = at
        self.validUntil = validUntil
        self.pid = pid
        self.processStart = processStart
        self.bootId = bootId
    }
}

/// The daemon's state in one word. Raw values are stable.
public enum ReportStatus: String, Sendable, Hashable, Codable {
    /// A forecast for a known location is shown (possibly stale).
    case ok
    /// Starting: no position yet, but sources are still being asked.
    case locating
    /// No source knows the position (no gpsd fix, no pin): nothing to forecast for.
    case noLocation = "no_location"
    /// The position is known but no forecast could be fetched yet.
    case noForecast = "no_forecast"
}

public struct ReportLocation: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var source: String
    public var accuracyM: Double?
    public var fixTime: String?
    /// Seconds since the position was received.
    public var ageSeconds: Int?
    /// `true` for positions that are city-level guesses (IP geolocation); absent otherwise.
    public var approximate: Bool?

    public init(
        latitude: Double, longitude: Double, source: String, accuracyM: Double? = nil, fixTime: String? = nil,
        ageSeconds: Int? = nil, approximate: Bool? = nil
    ) {
        self.approximate = approximate
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
        self.accuracyM = accuracyM
        self.fixTime = fixTime
        self.ageSeconds = ageSeconds
    }
}

public struct ReportPlace: Sendable, Hashable, Codable {
    public var name: String
    public var admin1: String?
    public var country: String
    public var countryCode: String
    public var population: Int?
    public var distanceKm: Double
    public var timezone: String?
    /// The nearest locality (district, suburb) when `name` is the city covering it.
    public var locality: String?
    /// Present and true when the position is only near the place (at sea, in a desert).
    public var near: Bool?

    public init(
        name: String, admin1: String?, country: String, countryCode: String, population: Int?, distanceKm: Double,
        timezone: String?, locality: String? = nil, near: Bool? = nil
    ) {
        self.locality = locality
        self.near = near
        self.name = name
        self.admin1 = admin1
        self.country = country
        self.countryCode = countryCode
        self.population = population
        self.distanceKm = distanceKm
        self.timezone = timezone
    }
}

/// The units of every quantity in a report: symbols (`°C`, `km/h`, `hPa`), which stay as they are for
/// scripts, and the clock people read times on. Fields added after the first schema are optional, so
/// older reports still decode.
public struct ReportUnits: Sendable, Hashable, Codable {
    /// The preset: `metric`, `imperial`, `uk` or `si` (a `[units]` table may set quantities apart from it).
    public var system: String
    /// `°C` or `°F`.
    public var temperature: String
    /// `km/h`, `m/s`, `mph`, `kn` or `Bft` (wind speeds are then Beaufort forces, 0 to 12).
    public var windSpeed: String
    /// `mm` or `in`.
    public var precipitation: String
    /// Distances: `km` or `mi`. Optional for reports written before it existed.
    public var distance: String?
    /// Visibility: `km` or `mi`. Optional for reports written before it existed.
    public var visibility: String?
    /// `hPa`, `inHg`, `mmHg` or `kPa`. Optional for reports written before it existed (they held hPa).
    public var pressure: String?
    /// The clock times are shown on to people, `24h` or `12h` (the report's own times stay RFC 3339).
    public var time: String?

    public init(_ units: UnitPreferences) {
        self.system = units.preset.rawValue
        self.temperature = UnitWords.symbol(units.temperature)
        self.windSpeed = UnitWords.symbol(units.wind)
        self.precipitation = UnitWords.symbol(units.precipitation)
        self.distance = UnitWords.symbol(units.distance)
        self.visibility = UnitWords.symbol(units.visibility)
        self.pressure = UnitWords.symbol(units.pressure)
        self.time = units.time.rawValue
    }

    /// The wind speed unit of ``windSpeed``; km/h for a symbol this version does not know.
    public var windSpeedUnit: WindSpeedUnit { WindSpeedUnit(symbol: windSpeed) ?? .kmh }
    /// The pressure unit of ``pressure``; hPa when absent (older reports) or unknown.
    public var pressureUnit: PressureUnit { pressure.flatMap(PressureUnit.init(symbol:)) ?? .hpa }
    /// The precipitation unit of ``precipitation``; mm for a symbol this version does not know.
    public var precipitationUnit: PrecipitationUnit { PrecipitationUnit(symbol: precipitation) ?? .mm }
    /// Whether temperatures are in degrees Fahrenheit.
    public var temperatureUnit: TemperatureUnit { temperature == UnitWords.symbol(.fahrenheit) ? .fahrenheit : .celsius }
    /// The clock of ``time``; 24 hours when absent or unknown.
    public var timeFormat: TimeFormat { time.flatMap(TimeFormat.init(rawValue:)) ?? .h24 }
    /// The visibility symbol, the distance one for reports that have no visibility of their own.
    public var visibilitySymbol: String { visibility ?? distance ?? UnitWords.symbol(DistanceUnit.km) }
}

/// The conditions now, in the report's units. Made by ``Report/init(_:now:)`` from a ``Forecast``, or decoded
/// from a report's JSON; no public initialiser, so none is put together by hand with unconverted values.
public struct ReportCurrent: Sendable, Hashable, Codable {
    public var time: String
    public var temperature: Double?
    public var apparentTemperature: Double?
    public var humidity: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var precipitation: Double?
    public var pressure: Double?
    public var condition: Condition?
    public var isDay: Bool?
    public var dewPoint: Double?
    public var windGusts: Double?
    public var cloudCover: Double?
    public var uvIndex: Double?
    public var visibility: Double?
}

/// One hour of the forecast, in the report's units. Made by ``Report/init(_:now:)`` from a ``Forecast``, or decoded
/// from a report's JSON; no public initialiser, so none is put together by hand with unconverted values.
public struct ReportHour: Sendable, Hashable, Codable {
    public var time: String
    public var temperature: Double?
    public var apparentTemperature: Double?
    public var humidity: Double?
    public var precipitation: Double?
    public var precipitationProbability: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var condition: Condition?
    public var isDay: Bool?
    public var windGusts: Double?
    public var cloudCover: Double?
    public var uvIndex: Double?
}

/// One day of the forecast, in the report's units. Made by ``Report/init(_:now:)`` from a ``Forecast``, or decoded
/// from a report's JSON; no public initialiser, so none is put together by hand with unconverted values.
public struct ReportDay: Sendable, Hashable, Codable {
    public var date: String
    public var temperatureMin: Double?
    public var temperatureMax: Double?
    public var condition: Condition?
    public var precipitationProbability: Double?
    public var precipitationSum: Double?
    public var windSpeedMax: Double?
    public var sunrise: String?
    public var sunset: String?
    public var windGustsMax: Double?
    public var uvIndexMax: Double?
}

public struct ReportProvider: Sendable, Hashable, Codable {
    public var name: String
    public var attribution: String
    /// When the forecast was fetched (RFC 3339, UTC).
    public var fetchedAt: String
    /// What readers should know about this forecast (e.g. "covers 5 days, not 7"); absent when none.
    public var notes: [String]?

    public init(name: String, attribution: String, fetchedAt: String, notes: [String]? = nil) {
        self.name = name
        self.attribution = attribution
        self.fetchedAt = fetchedAt
        self.notes = notes
    }
}

/// A problem a reader should know about. The report keeps its last good data beside it.
public struct ReportError: Sendable, Hashable, Codable {
    /// Stable class of the problem; see ``ErrorKind``.
    public var kind: String
    /// One sentence for people, naming what and where.
    public var message: String
    /// When the problem was first seen (RFC 3339, UTC).
    public var since: String?

    public init(kind: ErrorKind, message: String, since: String? = nil) {
        self.kind = kind.rawValue
        self.message = message
        self.since = since
    }
}

/// Classes of problems. Raw values are stable identifiers.
public enum ErrorKind: String, Sendable, Hashable, Codable, CaseIterable {
    case config
    case noLocation = "no_location"
    case gpsd
    case offline
    case timeout
    case rateLimited = "rate_limited"
    case auth
    case providerError = "provider_error"
    case badResponse = "bad_response"
    case state
    /// The warning source (named in the message) has not answered well for longer than its interval and
    /// grace; the report's `warnings` are the last good ones, marked `warnings_stale`.
    case warnings
    /// The air quality service has not answered well for longer than its interval and grace; `air` is the
    /// last good reading, marked `stale`.
    case air
    /// A notice, not a failure: the warning source (named in the message) sent warnings for the position's
    /// country that neither their shapes nor their region codes can place; they are listed with
    /// `area_confirmed: false`.
    case warningsUnplaced = "warnings_unplaced"
    /// A notice, not a failure: the warning source (named in the message) sent more warnings than are read
    /// (``WarningLimits``); the least severe were left out.
    case warningsPartial = "warnings_partial"
    /// A notice, not a failure: traffic to the internet leaves through a VPN (named in the message), so IP
    /// geolocation, which would place the VPN's exit, is neither asked nor used while it would otherwise be.
    case vpn

    /// The kinds that say something about what is listed rather than that something failed: bars do not
    /// colour them as errors, and they never make the forecast stale. A country whose warnings MeteoAlarm
    /// names only by regions forecastd has no shapes for would otherwise keep its bars red for as long as
    /// any warning is in force there.
    public static let notices: Set<ErrorKind> = [.warningsUnplaced, .warningsPartial, .vpn]

    /// Whether a report error of raw kind `kind` is a notice (``notices``); a kind this version does not
    /// know is taken for a failure.
    public static func isNotice(_ kind: String) -> Bool {
        ErrorKind(rawValue: kind).map(notices.contains) ?? false
    }
}

/// One of the user's listed cities, with its own report (the same schema, without `cities`).
public struct ReportCity: Sendable, Hashable, Codable {
    /// The city's stable id (`paris-fr`), as `forecastctl cities list` shows it.
    public var id: String
    /// The name the user gave it.
    public var name: String
    public var favorite: Bool
    public var report: Report

    public init(id: String, name: String, favorite: Bool, report: Report) {
        self.id = id
        self.name = name
        self.favorite = favorite
        self.report = report
    }
}

extension Report {
    /// The listed city whose id or name is `key` (case and accents ignored), nil when none is.
    public func city(_ key: String) -> ReportCity? {
        let folded = Self.fold(key)
        let cities = cities ?? []
        return cities.first { Self.fold($0.id) == folded } ?? cities.first { Self.fold($0.name) == folded }
    }

    private static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
