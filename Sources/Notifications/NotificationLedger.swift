import FileStore
import ForecastModel
import Foundation
import Logging

/// What has been notified, so nothing is notified twice, across restarts too: kept in the state directory
/// (`notifications.json`) by ``NotificationStore``.
///
/// Bounded: a warning's record goes a day after the warning expired (a week after it was last seen when it
/// has no expiry), and at most ``capacity`` records are kept. Notification IDs are not kept: servers number
/// again from 1 when they restart, so an ID from an earlier run may name another program's notification.
public struct NotificationLedger: VersionedState, Hashable {
    /// Bumped when the layout changes in a way older daemons cannot read.
    public static let version = 1
    /// The most warning records kept; the least recently seen go first.
    public static let capacity = 500
    /// How long a record outlives its warning's expiry: a source that sends an expired warning again (a
    /// late feed) does not notify it again.
    public static let keepAfterExpiry: TimeInterval = 24 * 3600
    /// How long a record of a warning without an expiry is kept after it was last seen.
    public static let keepUnseen: TimeInterval = 7 * 24 * 3600

    public var version: Int
    /// The warnings notified, by ``WeatherWarning/id`` (the chain's first CAP identifier, which updates keep).
    public var warnings: [String: NotifiedWarning]
    /// The last rain episode seen, notified or not.
    public var rain: RainEpisode?
    /// The local date (`2026-03-06`, on the machine's clock) of the last morning summary sent.
    public var lastSummaryDate: String?

    public init(warnings: [String: NotifiedWarning] = [:], rain: RainEpisode? = nil, lastSummaryDate: String? = nil) {
        self.version = Self.version
        self.warnings = warnings
        self.rain = rain
        self.lastSummaryDate = lastSummaryDate
    }

    /// A warning as it was notified, and what has been seen of it since.
    public struct NotifiedWarning: Sendable, Hashable, Codable {
        /// The CAP identifier of the last message of the warning seen (an update has its own).
        public var identifier: String
        /// The severity last notified: an update above it is an upgrade, notified again.
        public var severity: WarningSeverity
        /// The warning's expiry as last seen, for pruning.
        public var expires: Date?
        public var notifiedAt: Date
        public var lastSeen: Date
        /// True once the notification was taken away (the warning was cancelled, expired, moved away or fell
        /// below the minimum severity).
        public var closed: Bool

        public init(
            identifier: String, severity: WarningSeverity, expires: Date?, notifiedAt: Date, lastSeen: Date,
            closed: Bool = false
        ) {
            self.identifier = identifier
            self.severity = severity
            self.expires = expires
            self.notifiedAt = notifiedAt
            self.lastSeen = lastSeen
            self.closed = closed
        }
    }

    /// One spell of rain (snow, sleet) as the nowcasts have shown it.
    public struct RainEpisode: Sendable, Hashable, Codable {
        /// Two nowcasts are of one episode when the later starts at most this long after the earlier ends:
        /// the forecast moves a start by a quarter hour from one refresh to the next, and a short break in
        /// a shower is not new rain.
        public static let gap: TimeInterval = 30 * 60

        /// When it starts (the first nowcast that showed it).
        public var startsAt: Date
        /// When it ends, as the latest nowcast says (`stops_at`, else the end of the data).
        public var endsAt: Date
        /// True once "rain in N min" went out for it.
        public var notified: Bool
        /// True once that notification was taken away (the rain stopped, or is no longer expected).
        public var closed: Bool

        public init(startsAt: Date, endsAt: Date, notified: Bool = false, closed: Bool = false) {
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.notified = notified
            self.closed = closed
        }

        /// Whether rain from `start` belongs to this episode.
        public func includes(start: Date) -> Bool { start <= endsAt.addingTimeInterval(Self.gap) }
    }

    /// Writes down what a decision did, once it is done: what was shown is not shown again.
    public mutating func record(_ decision: NotificationDecision, at now: Date) {
        switch decision {
        case .warning(let warning, _, _):
            warnings[warning.id] = NotifiedWarning(
                identifier: warning.identifier, severity: warning.severity, expires: warning.until,
                notifiedAt: now, lastSeen: now)
        case .moreWarnings(let counted, _):
            for warning in counted {
                warnings[warning.id] = NotifiedWarning(
                    identifier: warning.identifier, severity: warning.severity, expires: warning.expires,
                    notifiedAt: now, lastSeen: now)
            }
        case .rain(let episode, _):
            rain = episode
            rain?.notified = true
            rain?.closed = false
        case .summary(let date, _):
            lastSummaryDate = date
        case .withdraw(let subject):
            switch subject {
            case .warning(let id): warnings[id]?.closed = true
            case .rain(let start): if rain?.startsAt == start { rain?.closed = true }
            case .summary, .moreWarnings: break
            }
        }
    }

    /// Drops the records nothing can need any more: warnings a day past their expiry, or a week unseen
    /// without one, then the least recently seen beyond ``capacity``.
    public mutating func prune(now: Date) {
        warnings = warnings.filter { _, record in
            if let expires = record.expires { return now.timeIntervalSince(expires) < Self.keepAfterExpiry }
            return now.timeIntervalSince(record.lastSeen) < Self.keepUnseen
        }
        if warnings.count > Self.capacity {
            let kept = warnings.sorted { $0.value.lastSeen > $1.value.lastSeen }.prefix(Self.capacity)
            warnings = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        if let rain, !rain.includes(start: now), rain.closed || !rain.notified {
            self.rain = nil
        }
    }
}

/// Reads and writes the ledger in the state directory; every write is atomic (``AtomicFile``).
///
/// A file that cannot be read (not JSON, another version, larger than ``maximumFileBytes``, not a regular
/// file) is set aside (`notifications.json.corrupt-<seconds>`, the newest ``Leftovers/keptSetAsideCopies``
/// kept) and logged, never fatal; ``Loaded/wasDamaged`` then tells the ``Notifier`` to take what is due at
/// the start as already notified rather than notify it all again.
public struct NotificationStore: Sendable {
    public static let fileName = "notifications.json"
    /// The largest ledger read: ``NotificationLedger/capacity`` records of a few hundred bytes each are
    /// under 200 KB.
    public static let maximumFileBytes = 4 << 20

    /// What ``load()`` found.
    public struct Loaded: Sendable {
        /// The saved ledger; an empty one when there is none or it could not be used.
        public var ledger: NotificationLedger
        /// True when a ledger was there but could not be used: what it held is unknown.
        public var wasDamaged: Bool
    }

    let file: VersionedJSONFile<NotificationLedger>
    let logger: Logger

    public var path: String { file.path }

    public init(directory: String, logger: Logger) {
        let path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        self.file = VersionedJSONFile(path: path, dates: .secondsSince1970, maximumBytes: Self.maximumFileBytes)
        self.logger = logger
    }

    /// The saved ledger; an empty one when there is none or it cannot be used, and whether it could not.
    public func load() -> Loaded {
        switch file.load() {
        case .value(let ledger):
            return Loaded(ledger: ledger, wasDamaged: false)
        case .missing:
            return Loaded(ledger: NotificationLedger(), wasDamaged: false)
        case .unusable(let reason, let aside):
            logger.warning(
                "The record of sent notifications cannot be read; starting a new one, with what is due at the start taken as already notified.",
                metadata: ["file": "\(path)", "error": "\(reason)", "set_aside_as": "\(aside ?? "(could not rename)")"])
            return Loaded(ledger: NotificationLedger(), wasDamaged: true)
        }
    }

    /// Replaces the saved ledger (creating the state directory if needed).
    public func save(_ ledger: NotificationLedger) throws(AtomicFile.WriteError) {
        try file.save(ledger)
    }

    /// Removes what an interrupted run left: temporaries of atomic writes, old set-aside copies. At start,
    /// before the ledger is written.
    @discardableResult
    public func removeLeftovers() -> [String] { file.removeLeftovers() }
}
