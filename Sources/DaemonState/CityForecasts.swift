import ForecastModel
import Foundation
import Settings
import WeatherProviders

/// The listed cities' forecasts, each kept like here's: its last good forecast, its failure streak
/// (``FetchSchedule``) and its place, in the settings' order.
///
/// A value with no clock of its own: every judgement takes `now`, so tests set the time.
struct CityForecasts {
    struct Entry {
        var city: Settings.City
        var forecast: Forecast?
        /// The forecast came from the state saved before a restart: due at once, whatever its age.
        var fromSavedState = false
        var schedule = FetchSchedule()
        var place: Place?
        /// The network came back (or the machine resumed) after a fetch failed for want of it: due at once,
        /// whatever its retry said, until its next result.
        var networkReturned = false
    }

    /// The cities in the settings' order.
    private(set) var cities: [Settings.City] = []
    private var entries: [String: Entry] = [:]
    private let places: (any PlaceNaming)?

    init(_ cities: [Settings.City], places: (any PlaceNaming)?) {
        self.places = places
        follow(cities)
    }

    subscript(id: String) -> Entry? { entries[id] }

    /// Follows the settings' city list: new cities are added (and fetched), removed ones dropped,
    /// a city moved to another place starts afresh.
    mutating func follow(_ cities: [Settings.City]) {
        var next: [String: Entry] = [:]
        for city in cities {
            if var entry = entries[city.id], entry.city.coordinate == city.coordinate {
                entry.city = city
                next[city.id] = entry
            } else {
                next[city.id] = Entry(city: city, place: places?.namedPlace(at: city.coordinate, preferCity: false)?.place)
            }
        }
        self.cities = cities
        entries = next
    }

    /// Takes the forecasts saved before a restart, for the cities still listed at the same place (a
    /// moved city needs its own forecast) that have none yet.
    mutating func restore(_ saved: [String: SavedState.SavedCity]) {
        for (id, saved) in saved where entries[id]?.forecast == nil {
            guard let city = entries[id]?.city, city.coordinate == saved.coordinate else { continue }
            entries[id]?.forecast = saved.forecast
            entries[id]?.fromSavedState = true
        }
    }

    /// What should survive a restart; nil when no city has a forecast.
    var saved: [String: SavedState.SavedCity]? {
        let saved = entries.compactMapValues { entry in
            entry.forecast.map { SavedState.SavedCity(coordinate: entry.city.coordinate, forecast: $0) }
        }
        return saved.isEmpty ? nil : saved
    }

    /// The next city whose forecast is due at `now` (missing, saved before a restart, older than the
    /// refresh interval, or its retry come), nil when every city is fresh: one request per city per
    /// interval.
    func due(at now: Date, refreshInterval: TimeInterval) -> (city: Settings.City, reason: FetchReason)? {
        for city in cities {
            guard let entry = entries[city.id] else { continue }
            if entry.networkReturned { return (city, .networkReturned) }
            guard !entry.schedule.isWaiting(at: now) else { continue }
            guard let forecast = entry.forecast, !entry.fromSavedState else { return (city, .due) }
            if now.timeIntervalSince(forecast.fetchedAt) >= refreshInterval { return (city, .due) }
        }
        return nil
    }

    /// The network came back or the machine resumed: each city whose fetch failed for want of a connection
    /// is retried at once (the chain asks the providers that failed so); a provider's own refusal keeps its
    /// wait. As ``HereSchedule/networkOrClockChanged()`` does for here.
    mutating func networkOrClockChanged() {
        for (id, entry) in entries {
            if let failure = entry.schedule.failure, FetchReason.networkReturned.asksAgain(after: failure.error) {
                entries[id]?.networkReturned = true
            }
        }
    }

    /// The time the forecast held for a city speaks for: its next answer must not be older. What a city
    /// holds is always for its place: ``follow(_:)`` starts a moved city afresh, ``restore(_:)`` takes only
    /// forecasts saved for the same coordinates.
    func held(id: String) -> Date? {
        entries[id]?.forecast?.speaksFor
    }

    /// Records a good forecast; returns the city (nil when it is no longer listed).
    mutating func succeeded(_ forecast: Forecast, id: String) -> Settings.City? {
        guard entries[id] != nil else { return nil }
        entries[id]?.forecast = forecast
        entries[id]?.fromSavedState = false
        entries[id]?.networkReturned = false
        entries[id]?.schedule.succeeded()
        return entries[id]?.city
    }

    /// Records a failed fetch at `now`, retried at `retryAt`; the last good forecast stays. Returns
    /// true when it starts a streak (worth a warning).
    mutating func failed(_ error: ProviderError, id: String, at now: Date, retryAt: Date) -> Bool {
        guard entries[id] != nil else { return false }
        entries[id]?.networkReturned = false
        return entries[id]?.schedule.failed(error, at: now, retryAt: retryAt) ?? false
    }

    /// What each city's report is made from, in the settings' order, with the units and staleness of
    /// `here`'s.
    func inputs(like here: ReportInputs, listedAt: Date) -> [ReportInputs] {
        cities.compactMap { city in
            guard let entry = entries[city.id] else { return nil }
            return ReportInputs(
                fix: LocationFix(coordinate: city.coordinate, source: .city, receivedAt: listedAt, label: city.name),
                place: entry.place, forecast: entry.forecast, units: here.units, staleAfter: here.staleAfter,
                fromSavedState: entry.fromSavedState, errors: entry.schedule.reportError.map { [$0] } ?? [])
        }
    }

    /// The moments a judgement of a city changes by itself: a retry come, a forecast due again or stale.
    func judgementMoments(refreshInterval: TimeInterval, staleAfter: TimeInterval) -> [Date] {
        entries.values.flatMap { entry in
            var moments: [Date] = []
            if let failure = entry.schedule.failure { moments.append(failure.retryAt) }
            if let forecast = entry.forecast {
                moments.append(forecast.fetchedAt.addingTimeInterval(refreshInterval))
                moments.append(forecast.fetchedAt.addingTimeInterval(staleAfter))
            }
            return moments
        }
    }
}
