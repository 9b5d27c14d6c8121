import Foundation

/// How hard it rains or snows, by the rate of liquid-water equivalent.
///
/// The WMO convention (Guide to Instruments and Methods of Observation, WMO-No. 8): light below
/// 2.5 mm/h, moderate from 2.5 to 10 mm/h, heavy above 10 mm/h; WMO's "violent" (above 50 mm/h) counts
/// as heavy here. Not the Met Office's scale, which calls rain heavy from 4 mm/h. Snow uses the same
/// water-equivalent rates: an approximation, since observers grade snow by visibility.
public enum PrecipitationIntensity: String, Sendable, Hashable, Codable, CaseIterable {
    case light, moderate, heavy

    /// The lowest moderate rate, mm/h.
    public static let moderateFrom = 2.5
    /// Rates above this are heavy, mm/h.
    public static let heavyAbove = 10.0

    /// The intensity of a rate in mm/h: light below 2.5, moderate up to 10, heavy above.
    public init(rate: Double) {
        if rate > Self.heavyAbove {
            self = .heavy
        } else if rate >= Self.moderateFrom {
            self = .moderate
        } else {
            self = .light
        }
    }
}

/// What falls: the word a nowcast uses.
public enum PrecipitationKind: String, Sendable, Hashable, Codable, CaseIterable {
    case rain, snow, sleet
}

extension ConditionKind {
    /// What falls in this condition; nil for a dry one (clear, clouds, fog, haze, squalls, tornado).
    public var precipitationKind: PrecipitationKind? {
        switch self {
        case .drizzle, .freezingDrizzle, .rain, .freezingRain, .rainShowers, .thunderstorm, .thunderstormHail:
            .rain
        case .snow, .snowGrains, .snowShowers: .snow
        case .sleet, .sleetShowers: .sleet
        case .clear, .mainlyClear, .partlyCloudy, .overcast, .fog, .haze, .squall, .tornado: nil
        }
    }
}

extension Forecast {
    /// The position's time zone: the provider's IANA zone when the system knows it, else the forecast's
    /// fixed UTC offset.
    public var localTimeZone: TimeZone {
        timezone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(secondsFromGMT: utcOffsetSeconds) ?? .gmt
    }
}

/// Rain soon, or rain stopping soon: the judgement over the short-term periods of a forecast.
///
/// Pure: made by ``judge(_:now:horizon:)`` from a ``Forecast`` and the moment that is now. It never
/// contradicts the current condition: when the current condition says it is raining (or snowing), the
/// nowcast says when that stops; when it says dry, the nowcast only ever says when it starts.
public struct Nowcast: Sendable, Hashable {
    /// What falls.
    public var kind: PrecipitationKind
    /// True when it is raining now: ``startsAt`` is then in the past and ``stopsAt`` is what matters.
    public var isOngoing: Bool
    /// When it starts: the start of the first wet period, or now when that period has already begun;
    /// for ongoing rain, the start of the period holding now.
    public var startsAt: Date
    /// When it stops: the start of the first dry period after it; nil when it is still falling at the
    /// end of the data (``knownUntil``).
    public var stopsAt: Date?
    /// The end of the contiguous short-term data the judgement rests on.
    public var knownUntil: Date
    /// The intensity of the wettest period of the episode.
    public var intensity: PrecipitationIntensity
    /// The highest rate of the episode, mm/h; nil when only the current condition says it rains.
    public var peakRate: Double?
    /// The highest chance of precipitation the provider gives for the episode's periods, %.
    public var probability: Double?
    /// True when the periods are not a 15-minute model's own output (see ``ShortTermPrecipitation/interpolated``).
    public var interpolated: Bool

    public init(
        kind: PrecipitationKind, isOngoing: Bool, startsAt: Date, stopsAt: Date?, knownUntil: Date,
        intensity: PrecipitationIntensity, peakRate: Double?, probability: Double?, interpolated: Bool
    ) {
        self.kind = kind
        self.isOngoing = isOngoing
        self.startsAt = startsAt
        self.stopsAt = stopsAt
        self.knownUntil = knownUntil
        self.intensity = intensity
        self.peakRate = peakRate
        self.probability = probability
        self.interpolated = interpolated
    }

    /// Whole minutes from `now` until it starts (rounded to the nearest minute); 0 when it is falling now.
    public func minutesUntilStart(at now: Date) -> Int {
        isOngoing ? 0 : Self.minutes(from: now, to: startsAt)
    }

    /// Whole minutes from `now` until it stops, when the data shows it stopping.
    public func minutesUntilStop(at now: Date) -> Int? {
        stopsAt.map { Self.minutes(from: now, to: $0) }
    }

    static func minutes(from now: Date, to date: Date) -> Int {
        max(0, Int((date.timeIntervalSince(now) / 60).rounded()))
    }
}

extension Nowcast {
    /// How far ahead a start is looked for: 2 hours.
    public static let horizon: TimeInterval = 2 * 3600
    /// The smallest amount in a period that counts as wet, mm: the smallest amount Open-Meteo and MET
    /// Norway report (0.1 mm).
    public static let wetAmount = 0.1
    /// How long the current conditions speak for now: MET Norway's describe the hour they start.
    public static let currentValidity: TimeInterval = 3600

    /// Judges the forecast's short-term periods at `now`; nil when nothing falls within `horizon` and
    /// nothing falls now, or the forecast has no short-term data covering now.
    public static func judge(_ forecast: Forecast, now: Date, horizon: TimeInterval = horizon) -> Nowcast? {
        guard let series = forecast.shortTerm else { return nil }
        return judge(series: series, current: forecast.current, hourly: forecast.hourly, now: now, horizon: horizon)
    }

    /// Judges `series` at `now`, with the current conditions and the hourly conditions for the word
    /// (rain, snow, sleet) and for what is falling now.
    ///
    /// - The data used is the run of periods from the one holding `now` while they follow each other
    ///   without a gap and have an amount: a hole ends what is known.
    /// - A period is wet when its amount is at least ``wetAmount``.
    /// - It is raining now when the current conditions (at most ``currentValidity`` old) have a wet
    ///   condition, or, without current conditions, when the period holding `now` is wet.
    /// - Raining now: it stops at the first dry period after the one holding `now`.
    /// - Dry now: it starts with the first wet period that begins within `horizon` (now, when that
    ///   period has already begun), and stops at the first dry period after it.
    public static func judge(
        series: ShortTermPrecipitation, current: CurrentConditions?, hourly: [HourlyForecast], now: Date,
        horizon: TimeInterval = horizon
    ) -> Nowcast? {
        let known = knownPeriods(series.periods, at: now)
        guard let head = known.first, let knownUntil = known.last?.end else { return nil }

        let fresh = freshCurrent(current, at: now)
        let currentWet: Bool? = fresh.flatMap { current in
            if let condition = current.condition { return condition.precipitationKind != nil }
            return current.precipitation.map { $0 >= wetAmount - 1e-9 }
        }
        let ongoing = currentWet ?? isWet(head)

        var episode: [PrecipitationPeriod] = []
        var stopsAt: Date?
        let startsAt: Date
        let kind: PrecipitationKind
        if ongoing {
            // The period holding now counts as wet, whatever its amount says, because the current
            // condition does: the nowcast must not contradict it.
            if isWet(head) { episode.append(head) }
            for period in known.dropFirst() {
                guard isWet(period) else {
                    stopsAt = period.start
                    break
                }
                episode.append(period)
            }
            startsAt = head.start
            kind = fresh?.condition?.precipitationKind ?? hourlyKind(hourly, at: now) ?? .rain
        } else {
            let windowEnd = now.addingTimeInterval(horizon)
            guard let first = known.firstIndex(where: { isWet($0) && $0.start < windowEnd }) else { return nil }
            for period in known[first...] {
                guard isWet(period) else {
                    stopsAt = period.start
                    break
                }
                episode.append(period)
            }
            startsAt = max(known[first].start, now)
            kind = hourlyKind(hourly, at: startsAt) ?? .rain
        }

        let peak = episode.compactMap(\.rate).max()
        let probability = (episode.isEmpty ? [head] : episode).compactMap(\.probability).max()
        return Nowcast(
            kind: kind, isOngoing: ongoing, startsAt: startsAt, stopsAt: stopsAt, knownUntil: knownUntil,
            intensity: peak.map(PrecipitationIntensity.init(rate:)) ?? .light, peakRate: peak,
            probability: probability, interpolated: series.interpolated)
    }

    /// The next moment after `now` at which judging again could give another answer or another text,
    /// without new data: when the rain comes within the horizon, starts, stops, when the rounded
    /// minutes of the text change (``Phrases``), or when the current conditions grow too old to count.
    /// nil when nothing changes until new data arrives. The daemon sets its timer for it: nothing polls.
    public static func nextChange(_ forecast: Forecast, after now: Date, horizon: TimeInterval = horizon) -> Date? {
        guard let series = forecast.shortTerm else { return nil }
        var candidates: [Date] = []
        if let current = freshCurrent(forecast.current, at: now) {
            candidates.append(current.time.addingTimeInterval(currentValidity))
        }
        if let nowcast = judge(forecast, now: now, horizon: horizon) {
            let targets = (nowcast.isOngoing ? [] : [nowcast.startsAt]) + [nowcast.stopsAt].compactMap { $0 }
            for target in targets where target > now {
                candidates.append(target)
                // The text rounds to 5 minutes: it changes 2.5, 7.5, 12.5 … minutes before the target
                // (``Phrases/roundedMinutes(_:)``); the next change is the largest of these still ahead.
                let before = target.timeIntervalSince(now) / 60
                let steps = ((before - 2.5) / 5).rounded(.up) - 1
                if steps >= 0 { candidates.append(target.addingTimeInterval(-(steps * 5 + 2.5) * 60)) }
            }
        } else {
            let known = knownPeriods(series.periods, at: now)
            if let wet = known.first(where: isWet) {
                candidates.append(wet.start.addingTimeInterval(-horizon))
            }
        }
        return candidates.filter { $0 > now }.min()
    }

    // MARK: Parts

    private static func isWet(_ period: PrecipitationPeriod) -> Bool {
        (period.amount ?? 0) >= wetAmount - 1e-9
    }

    /// The periods from the one holding `now`, while they follow each other and have amounts.
    private static func knownPeriods(_ periods: [PrecipitationPeriod], at now: Date) -> [PrecipitationPeriod] {
        guard let first = periods.firstIndex(where: { $0.contains(now) }) else { return [] }
        var known: [PrecipitationPeriod] = []
        for period in periods[first...] {
            guard period.amount != nil, period.duration > 0, known.last.map({ $0.end == period.start }) ?? true
            else { break }
            known.append(period)
        }
        return known
    }

    /// The current conditions when they are recent enough to say what is falling now.
    private static func freshCurrent(_ current: CurrentConditions?, at now: Date) -> CurrentConditions? {
        guard let current, current.time <= now.addingTimeInterval(15 * 60),
            now.timeIntervalSince(current.time) < currentValidity
        else { return nil }
        return current
    }

    /// What falls around `date` by the hourly condition nearest to it (within 90 minutes).
    private static func hourlyKind(_ hourly: [HourlyForecast], at date: Date) -> PrecipitationKind? {
        let nearest = hourly.min { abs($0.time.timeIntervalSince(date)) < abs($1.time.timeIntervalSince(date)) }
        guard let nearest, abs(nearest.time.timeIntervalSince(date)) <= 90 * 60 else { return nil }
        return nearest.condition?.precipitationKind
    }
}
