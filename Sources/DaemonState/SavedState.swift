import FileStore
import ForecastModel
import Foundation
import MQTTPayloads

/// What survives a restart: the last good forecast (in canonical units, so a units switch still
/// works on it) and the last known position.
public struct SavedState: VersionedState, Hashable {
    /// Bumped when the layout changes in a way older daemons cannot read.
    public static let version = 1

    public var version: Int
    public var forecast: Forecast?
    public var fix: LocationFix?
    /// The listed cities' last good forecasts, by city id (absent in files from before cities existed).
    public var cities: [String: SavedCity]?
    /// The official warnings in force at the last position, so a restart shows them at once (absent in files
    /// from before warnings were saved, and when there were none to keep).
    public var warnings: SavedWarnings?
    /// A follower's (`[mqtt] follow`) last good report from its publisher, shown at once after a restart (absent
    /// in files of a daemon that fetches its own).
    public var followed: SavedFollowed?

    /// The followed report as it arrived: the publisher's values, not this daemon's rendering of them.
    public struct SavedFollowed: Sendable, Hashable, Codable {
        /// The followed base topic: a report kept for another topic is not shown.
        public var topic: String
        public var publishedAt: Date
        public var publisher: SharedPublisher
        public var model: SharedModel

        public init(topic: String, report: SharedReport) {
            self.topic = topic
            publishedAt = report.publishedAt
            publisher = report.publisher
            model = report.model
        }

        public var report: SharedReport { SharedReport(publishedAt: publishedAt, publisher: publisher, model: model) }
    }

    /// The warnings of the report when the state was saved, and what they were judged for.
    public struct SavedWarnings: Sendable, Hashable, Codable {
        /// The source that sent them (`nws`) and the position's country (`US`).
        public var source: String
        public var country: String
        /// The position they were matched at.
        public var position: Coordinate
        /// The source's last good answer: after its interval and grace they are marked stale.
        public var fetchedAt: Date
        public var staleAt: Date
        /// As the report carried them; each leaves at its end.
        public var warnings: [WeatherWarning]
        /// How many more were in force than listed.
        public var omitted: Int

        public init(
            source: String, country: String, position: Coordinate, fetchedAt: Date, staleAt: Date,
            warnings: [WeatherWarning], omitted: Int = 0
        ) {
            self.source = source
            self.country = country
            self.position = position
            self.fetchedAt = fetchedAt
            self.staleAt = staleAt
            self.warnings = warnings
            self.omitted = omitted
        }
    }

    /// A listed city's last good forecast and the position it was asked for (a city moved in the
    /// settings since then must not show the old place's weather).
    public struct SavedCity: Sendable, Hashable, Codable {
        public var coordinate: Coordinate
        public var forecast: Forecast

        public init(coordinate: Coordinate, forecast: Forecast) {
            self.coordinate = coordinate
            self.forecast = forecast
        }
    }

    public init(
        forecast: Forecast?, fix: LocationFix?, cities: [String: SavedCity]? = nil, warnings: SavedWarnings? = nil,
        followed: SavedFollowed? = nil
    ) {
        self.version = Self.version
        self.forecast = forecast
        self.fix = fix
        self.cities = cities
        self.warnings = warnings
        self.followed = followed
    }
}
