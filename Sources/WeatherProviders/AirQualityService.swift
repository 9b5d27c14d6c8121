import ForecastModel
import Foundation
import Logging

/// The air quality readings and how often they may be asked for: the one owner of that cadence.
///
/// Positions are rounded as the provider chain rounds them (``ProviderChain/round(_:decimals:)``) and
/// then:
/// - **At most one request per hour per rounded position** (and scale): within ``interval`` of the
///   last attempt for it, the reading it brought is served without a request. A failed attempt counts
///   too, so a failing service is asked once an hour, not on every refresh. The data is hourly, so
///   asking more often would bring nothing new.
/// - **At most one request per ``minimumSpacing`` for any position**, so that a machine on the move
///   (a van crosses a 2-decimal cell in a minute) does not ask for every cell it passes: meanwhile the
///   most recent reading within ``nearbyKm`` is served, if there is one.
///
/// Every answer says when the next request may go out (``Outcome/nextRequest``): the daemon sets its
/// timer for it rather than asking on every refresh. The clock is injected.
public actor AirQualityService {
    /// What one call produced.
    public struct Outcome: Sendable {
        /// The reading to show: fresh, or cached within the cadence; nil when there is none.
        public var air: AirQuality?
        /// Whether this call sent a request.
        public var requested: Bool
        /// Why the request of this call failed, when it did.
        public var error: ProviderError?
        /// The earliest moment a request for this position (and scale) may go out.
        public var nextRequest: Date
    }

    private struct Key: Hashable {
        var latitude: Double
        var longitude: Double
        var scale: AQIScale
        var pollen: Bool
    }

    private struct Entry {
        var coordinate: Coordinate
        var attemptedAt: Date
        var air: AirQuality?
    }

    /// How long a position's last attempt holds: one hour.
    public let interval: TimeInterval
    /// The least time between two requests for any positions: 15 minutes.
    public let minimumSpacing: TimeInterval
    /// How far away a reading may be and still be served while ``minimumSpacing`` holds, km.
    public let nearbyKm: Double
    /// `[providers] coordinate_precision`: decimals kept of latitude and longitude (0...4).
    public let coordinatePrecision: Int
    /// How many positions are remembered (the least recently used goes first).
    public let capacity: Int

    private let provider: OpenMeteoAirQualityProvider
    private let logger: Logger
    private let now: @Sendable () -> Date
    private var entries: [Key: Entry] = [:]
    private var recency: [Key] = []
    private var lastAttempt: Date?

    public init(
        provider: OpenMeteoAirQualityProvider, coordinatePrecision: Int, interval: TimeInterval = 3600,
        minimumSpacing: TimeInterval = 15 * 60, nearbyKm: Double = 25, capacity: Int = 16, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.provider = provider
        self.coordinatePrecision = max(0, min(coordinatePrecision, 4))
        self.interval = interval
        self.minimumSpacing = minimumSpacing
        self.nearbyKm = nearbyKm
        self.capacity = max(1, capacity)
        self.logger = logger
        self.now = now
    }

    /// The air at `coordinate` with its index on `scale` and, when `pollen` is true, pollen where
    /// Open-Meteo has it: a request when the cadence allows one, otherwise what is remembered.
    public func air(at coordinate: Coordinate, scale: AQIScale, pollen: Bool = true) async -> Outcome {
        let rounded = ProviderChain.round(coordinate, decimals: coordinatePrecision)
        let key = Key(latitude: rounded.latitude, longitude: rounded.longitude, scale: scale, pollen: pollen)
        let started = now()

        // A clock that went back (a suspend, a correction) must not freeze the cadence: an attempt
        // "in the future" has expired.
        if let entry = entries[key], entry.attemptedAt <= started,
            started < entry.attemptedAt.addingTimeInterval(interval)
        {
            touch(key)
            return Outcome(
                air: entry.air ?? nearby(rounded, scale: scale, at: started), requested: false, error: nil,
                nextRequest: entry.attemptedAt.addingTimeInterval(interval))
        }
        if let lastAttempt, lastAttempt <= started, started < lastAttempt.addingTimeInterval(minimumSpacing) {
            return Outcome(
                air: nearby(rounded, scale: scale, at: started), requested: false, error: nil,
                nextRequest: lastAttempt.addingTimeInterval(minimumSpacing))
        }

        // Recorded before the request, so a call arriving while it is under way does not ask again.
        let previous = entries[key]?.air
        store(Entry(coordinate: rounded, attemptedAt: started, air: previous), for: key)
        lastAttempt = started
        let next = started.addingTimeInterval(interval)
        do {
            let air = try await provider.airQuality(for: rounded, scale: scale, pollen: pollen)
            store(Entry(coordinate: rounded, attemptedAt: started, air: air), for: key)
            if !air.notes.isEmpty {
                logger.notice(
                    "Open-Meteo's air quality answer had values that were dropped.",
                    metadata: ["provider": "\(provider.name)", "air.dropped": "\(air.notes.joined(separator: "; "))"])
            }
            return Outcome(air: air, requested: true, error: nil, nextRequest: next)
        } catch {
            logger.warning(
                "Open-Meteo's air quality could not be read; the last reading stays until the next attempt.",
                metadata: [
                    "provider": "\(provider.name)", "error": "\(error.message)",
                    "air.next_request": "\(Timestamps.rfc3339(next))",
                ])
            return Outcome(
                air: previous ?? nearby(rounded, scale: scale, at: started), requested: true, error: error,
                nextRequest: next)
        }
    }

    /// The most recent reading on `scale` within ``nearbyKm`` of `coordinate` and younger than ``interval``.
    private func nearby(_ coordinate: Coordinate, scale: AQIScale, at date: Date) -> AirQuality? {
        entries.filter { key, entry in
            key.scale == scale && entry.air != nil && date.timeIntervalSince(entry.attemptedAt) < interval
                && entry.coordinate.distanceKm(to: coordinate) <= nearbyKm
        }
        .max { $0.value.attemptedAt < $1.value.attemptedAt }?.value.air
    }

    private func store(_ entry: Entry, for key: Key) {
        entries[key] = entry
        touch(key)
        while recency.count > capacity {
            entries.removeValue(forKey: recency.removeFirst())
        }
    }

    private func touch(_ key: Key) {
        recency.removeAll { $0 == key }
        recency.append(key)
    }
}
