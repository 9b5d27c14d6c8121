import Foundation

/// Precipitation over one stretch of time, as a provider forecast it.
///
/// Providers mean different things by a step's time (Open-Meteo: the 15 minutes or the hour before it;
/// MET Norway: the hour after it), so the period carries both ends and no reader has to know which.
public struct PrecipitationPeriod: Sendable, Hashable, Codable {
    /// The first instant of the period.
    public var start: Date
    /// The instant after the period: it holds `start ..< end`.
    public var end: Date
    /// Liquid-water equivalent over the whole period, mm; nil when the provider gave none.
    public var amount: Double?
    /// The chance of any precipitation, %, when the provider gives one (for the hour that holds the
    /// period when only hourly chances exist).
    public var probability: Double?

    public init(start: Date, end: Date, amount: Double?, probability: Double? = nil) {
        self.start = start
        self.end = end
        self.amount = amount
        self.probability = probability
    }

    /// The period's length in seconds.
    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// The mean rate over the period, mm/h; nil without an amount or for an empty period.
    public var rate: Double? {
        guard let amount, duration > 0 else { return nil }
        return amount * 3600 / duration
    }

    /// Whether the period holds `date`.
    public func contains(_ date: Date) -> Bool { start <= date && date < end }
}

/// The short periods a nowcast is judged from: Open-Meteo's `minutely_15`, or MET Norway's
/// `next_1_hours` when it serves instead.
public struct ShortTermPrecipitation: Sendable, Hashable, Codable {
    /// The periods in time order, without overlaps.
    public var periods: [PrecipitationPeriod]
    /// True when the periods are not a forecast model's own output at this resolution: Open-Meteo
    /// interpolates hourly data to 15 minutes outside the areas of its 15-minute models, and MET
    /// Norway's periods are whole hours. `docs/nowcast-and-air.md` says where each holds.
    public var interpolated: Bool

    public init(periods: [PrecipitationPeriod], interpolated: Bool) {
        self.periods = periods
        self.interpolated = interpolated
    }
}
