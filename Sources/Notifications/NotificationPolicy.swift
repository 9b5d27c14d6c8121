import DesktopNotifications
import ForecastModel
import Foundation
import Settings

/// What a notification is about: the key under which it is replaced or taken away.
public enum NotificationSubject: Sendable, Hashable, CustomStringConvertible {
    /// A warning, by ``WeatherWarning/id``.
    case warning(String)
    /// A rain episode, by its start.
    case rain(startsAt: Date)
    /// The morning summary.
    case summary
    /// The one notification for the new warnings beyond the few shown one by one ("3 more warnings").
    case moreWarnings

    public var description: String {
        switch self {
        case .warning(let id): "warning \(id)"
        case .rain(let start): "rain from \(Timestamps.rfc3339(start))"
        case .summary: "summary"
        case .moreWarnings: "more warnings"
        }
    }
}

/// One thing to do: show a notification (new, or replacing the one shown for the same subject), or take
/// one away. Once done, ``NotificationLedger/record(_:at:)`` writes it down.
public enum NotificationDecision: Sendable, Hashable {
    /// A new warning, or an upgraded one (`upgrade`: it replaces the earlier notification).
    case warning(WeatherWarning, DesktopNotification, upgrade: Bool)
    /// The new or upgraded warnings beyond the most severe few, in one notification; `warnings` are those
    /// written down as notified by it (at most the ledger's capacity, however many it counts).
    case moreWarnings([WeatherWarning], DesktopNotification)
    /// Rain about to start, once per episode.
    case rain(NotificationLedger.RainEpisode, DesktopNotification)
    /// The day's summary, for the local date `date`.
    case summary(date: String, DesktopNotification)
    /// Take away what was shown for the subject: a warning cancelled, expired, moved away or downgraded
    /// below the minimum; rain that stopped or is no longer expected.
    case withdraw(NotificationSubject)

    public var subject: NotificationSubject {
        switch self {
        case .warning(let warning, _, _): .warning(warning.id)
        case .moreWarnings: .moreWarnings
        case .rain(let episode, _): .rain(startsAt: episode.startsAt)
        case .summary: .summary
        case .withdraw(let subject): subject
        }
    }

    /// What to show; nil for a withdrawal.
    public var notification: DesktopNotification? {
        switch self {
        case .warning(_, let notification, _), .moreWarnings(_, let notification), .rain(_, let notification),
            .summary(_, let notification):
            notification
        case .withdraw: nil
        }
    }
}

/// Decides what to notify, from successive reports: pure, so every rule is tested without a bus.
///
/// - **Warnings** at or above `minimum_severity`: a new one is shown; an update
///   (another CAP message of the same chain) that raises the severity is shown again, replacing the
///   earlier notification; any other update is only written down (never twice for the same warning). One
///   that falls below the minimum, is cancelled, expires or no longer covers the position is taken away.
///   A report without `warnings` (sources off or unanswered) changes nothing.
/// - **Bounded**: of the warnings to show at once, the ``individualWarnings`` most severe are shown one by
///   one and the rest in one notification that counts them ("9,990 more warnings"), so a feed of thousands
///   gives four notifications, not thousands. Only the ``NotificationLedger/capacity`` most severe warnings in
///   force are followed (written down, upgraded, taken away); the rest are only counted.
/// - **Rain soon**: once per episode, when the nowcast says it starts within
///   `rain_soon_minutes`; a later nowcast that starts within
///   ``NotificationLedger/RainEpisode/gap`` of the episode's end is the same episode. Nothing is sent while
///   it already rains. The notification is taken away when the rain has stopped, or when a nowcast no
///   longer expects it.
/// - **Morning summary**: once a day at `morning_summary` on the machine's clock,
///   or up to three hours later (a machine that was asleep), when the report has a forecast.
/// - **Quiet hours**: only extreme warnings are shown; the rest wait for the end of the quiet hours and are
///   shown then if they still hold. Taking notifications away is never held back.
public struct NotificationPolicy: Sendable {
    /// How long after its time the morning summary may still go out.
    public static let summaryWindow: TimeInterval = 3 * 3600
    /// How many new warnings are notified one by one at a time, the most severe first; the rest go into one
    /// notification. Three: a person reads three at a glance, and more at once is a flood, not a warning.
    public static let individualWarnings = 3

    public var preferences: Settings.Notifications
    /// The zone of the machine's clock: quiet hours and the morning summary are read on it.
    public var timeZone: TimeZone
    public var phrases: Phrases

    public init(preferences: Settings.Notifications, timeZone: TimeZone = .current, phrases: Phrases = .english) {
        self.preferences = preferences
        self.timeZone = timeZone
        self.phrases = phrases
    }

    /// What to do for a report at `now`.
    public struct Plan: Sendable {
        /// In order: withdrawals and warnings first, then rain, then the summary.
        public var decisions: [NotificationDecision]
        /// The ledger with what needs no notification already written down (updates that change nothing
        /// shown, rain episodes followed, old records pruned). Each decision is recorded once done.
        public var ledger: NotificationLedger
        /// The next moment at which deciding again gives something new without a new report: rain coming
        /// within the lead time, the end of the quiet hours while something waits, the morning summary, a
        /// rain episode's end. nil: nothing until the report changes.
        public var nextCheck: Date?
    }

    public func plan(_ report: Report, now: Date, ledger: NotificationLedger) -> Plan {
        var ledger = ledger
        var decisions: [NotificationDecision] = []
        var checks: [Date] = []
        let quiet = isQuiet(at: now)
        let quietEnd = quiet ? preferences.quietHours.flatMap { next($0.end, after: now) } : nil
        if let warnings = report.warnings {
            followWarnings(
                warnings, report, now: now, quiet: quiet, quietEnd: quietEnd, ledger: &ledger,
                decisions: &decisions, checks: &checks)
        }
        if preferences.rainSoon {
            followRain(
                report, now: now, quiet: quiet, quietEnd: quietEnd, ledger: &ledger, decisions: &decisions,
                checks: &checks)
        }
        if let time = preferences.morningSummary {
            followSummary(
                at: time, report, now: now, quiet: quiet, quietEnd: quietEnd, ledger: ledger, decisions: &decisions,
                checks: &checks)
        }
        ledger.prune(now: now)
        return Plan(decisions: decisions, ledger: ledger, nextCheck: checks.filter { $0 > now }.min())
    }

    /// Whether `a` is shown before `b`: the more severe first, then the sooner in force, then by id (stable).
    static func moreSevere(_ a: WeatherWarning, _ b: WeatherWarning) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        let aStart = a.onset ?? .distantPast
        let bStart = b.onset ?? .distantPast
        if aStart != bStart { return aStart < bStart }
        return a.id < b.id
    }

    // MARK: Warnings

    /// Shows the new and upgraded warnings, takes away those no longer in force, and checks again when a
    /// notified one expires.
    private func followWarnings(
        _ all: [WeatherWarning], _ report: Report, now: Date, quiet: Bool, quietEnd: Date?,
        ledger: inout NotificationLedger, decisions: inout [NotificationDecision], checks: inout [Date]
    ) {
        // A warning whose area is not confirmed may be elsewhere in the country, and a message that only
        // announces a hazard after it expires is not in force while it is valid: listed, never notified.
        let inForce = all.filter { $0.isInForce(at: now) && $0.areaConfirmed && !$0.isAnnouncement }
        // The most severe first; only as many as the ledger keeps are followed, so that what it writes down
        // is what it will find again (a record pruned for room would make its warning new at every report).
        let ordered = inForce.sorted(by: Self.moreSevere)
        let followed = ordered.prefix(NotificationLedger.capacity)
        let shown = follow(
            followed, now: now, quiet: quiet, quietEnd: quietEnd, ledger: &ledger, decisions: &decisions,
            checks: &checks)
        // Beyond the followed ones, the qualifying warnings are counted in the notification of the rest.
        // The report lists the most severe 20 and counts the rest (`warnings_omitted`, the least severe):
        // they are counted too when every warning qualifies, so a flood says how big it is.
        let omitted = preferences.minimumSeverity <= .minor && !quiet ? report.warningsOmitted ?? 0 : 0
        let unfollowed =
            ordered.dropFirst(followed.count).count(where: {
                $0.severity >= preferences.minimumSeverity && !(quiet && $0.severity < .extreme)
            }) + omitted
        decisions += warningDecisions(shown, unfollowed: unfollowed, report, now)
        let present = Set(inForce.map(\.id))
        for (id, record) in ledger.warnings.sorted(by: { $0.key < $1.key })
        where !record.closed && !present.contains(id) {
            decisions.append(.withdraw(.warning(id)))
        }
        // A notified warning is taken away when it expires, even if no new report comes then.
        checks += ledger.warnings.values.filter { !$0.closed }.compactMap(\.expires).filter { $0 > now }
    }

    /// Goes through the followed warnings in force and returns those to show now (new, or upgraded); one
    /// that falls below the minimum is taken away, and every other one already notified is written down as
    /// seen again.
    private func follow(
        _ followed: ArraySlice<WeatherWarning>, now: Date, quiet: Bool, quietEnd: Date?,
        ledger: inout NotificationLedger, decisions: inout [NotificationDecision], checks: inout [Date]
    ) -> [(warning: WeatherWarning, upgrade: Bool)] {
        var shown: [(warning: WeatherWarning, upgrade: Bool)] = []
        for warning in followed {
            let qualifies = warning.severity >= preferences.minimumSeverity
            let held = quiet && warning.severity < .extreme
            guard var record = ledger.warnings[warning.id] else {
                guard qualifies else { continue }
                if held {
                    checks += [quietEnd].compactMap { $0 }
                } else {
                    shown.append((warning, false))
                }
                continue
            }
            let upgraded = warning.severity > record.severity
            if qualifies && upgraded {
                if held {
                    checks += [quietEnd].compactMap { $0 }
                } else {
                    shown.append((warning, true))
                    continue
                }
            } else if !qualifies && !record.closed {
                decisions.append(.withdraw(.warning(warning.id)))
            }
            // Seen again, nothing to show: keep following it.
            record.identifier = warning.identifier
            record.expires = warning.until
            record.lastSeen = now
            ledger.warnings[warning.id] = record
        }
        return shown
    }

    /// The notifications for the warnings to show now, the most severe first: the first
    /// ``individualWarnings`` one by one, the rest (and `unfollowed` more) in one.
    private func warningDecisions(
        _ shown: [(warning: WeatherWarning, upgrade: Bool)], unfollowed: Int, _ report: Report, _ now: Date
    ) -> [NotificationDecision] {
        let ordered = shown.sorted { Self.moreSevere($0.warning, $1.warning) }
        var decisions: [NotificationDecision] = ordered.prefix(Self.individualWarnings).map { item in
            .warning(item.warning, content(item.warning, upgrade: item.upgrade, report, now), upgrade: item.upgrade)
        }
        let rest = ordered.dropFirst(Self.individualWarnings).map(\.warning)
        if !rest.isEmpty || (unfollowed > 0 && !ordered.isEmpty) {
            decisions.append(
                .moreWarnings(
                    rest,
                    NotificationContent.moreWarnings(
                        rest, counting: rest.count + unfollowed, report: report, now: now, phrases: phrases)))
        }
        return decisions
    }

    // MARK: Rain

    private func followRain(
        _ report: Report, now: Date, quiet: Bool, quietEnd: Date?, ledger: inout NotificationLedger,
        decisions: inout [NotificationDecision], checks: inout [Date]
    ) {
        let shown = ledger.rain.flatMap { $0.notified && !$0.closed ? $0 : nil }
        guard let nowcast = report.nowcast, let start = Timestamps.parseUTC(nowcast.startsAt),
            let end = Timestamps.parseUTC(nowcast.stopsAt ?? nowcast.knownUntil)
        else {
            // No rain now or to come: what was announced has passed, or is no longer expected.
            if let shown { decisions.append(.withdraw(.rain(startsAt: shown.startsAt))) }
            return
        }

        var episode: NotificationLedger.RainEpisode
        if let known = ledger.rain, known.includes(start: start) {
            episode = known
            episode.endsAt = max(known.endsAt, end)
        } else {
            // A new episode: the last one's notification, if still shown, is out of date.
            if let shown { decisions.append(.withdraw(.rain(startsAt: shown.startsAt))) }
            episode = NotificationLedger.RainEpisode(startsAt: start, endsAt: end)
        }
        ledger.rain = episode

        if episode.notified {
            if !episode.closed { checks.append(episode.endsAt) }
            if !episode.closed, now >= episode.endsAt, !nowcast.rainingNow {
                decisions.append(.withdraw(.rain(startsAt: episode.startsAt)))
            }
            return
        }
        // Nothing is announced once it rains: the bar and the condition say so.
        guard !nowcast.rainingNow else { return }
        if start.timeIntervalSince(now) > preferences.rainLead {
            checks.append(start.addingTimeInterval(-preferences.rainLead))
        } else if quiet {
            checks += [quietEnd].compactMap { $0 }
        } else {
            decisions.append(.rain(episode, rain(nowcast, report, now: now)))
        }
    }

    // MARK: The morning summary

    private func followSummary(
        at time: TimeOfDay, _ report: Report, now: Date, quiet: Bool, quietEnd: Date?, ledger: NotificationLedger,
        decisions: inout [NotificationDecision], checks: inout [Date]
    ) {
        let today = localDate(now)
        let due = date(today, at: time)
        let sent = ledger.lastSummaryDate == today
        if let due, !sent, now >= due, now < due.addingTimeInterval(Self.summaryWindow), report.status == .ok {
            if quiet {
                checks += [quietEnd].compactMap { $0 }
            } else {
                decisions.append(.summary(date: today, summary(report, now: now)))
            }
        }
        let upcoming = !sent && due.map { now < $0 } == true ? due : next(time, after: now)
        checks += [upcoming].compactMap { $0 }
    }


    // MARK: The clock

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The time of day of `date` on the machine's clock.
    func timeOfDay(_ date: Date) -> TimeOfDay {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0) ?? TimeOfDay(hour: 0, minute: 0)!
    }

    /// Whether `date` falls in the quiet hours.
    func isQuiet(at date: Date) -> Bool {
        preferences.quietHours?.contains(timeOfDay(date)) ?? false
    }

    /// `2026-03-06`: the local date of `date` on the machine's clock.
    func localDate(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The moment `time` on the local date `day`.
    func date(_ day: String, at time: TimeOfDay) -> Date? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return calendar.date(
            from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: time.hour, minute: time.minute))
    }

    /// The first moment after `now` at which the clock reads `time`.
    func next(_ time: TimeOfDay, after now: Date) -> Date? {
        calendar.nextDate(
            after: now, matching: DateComponents(hour: time.hour, minute: time.minute, second: 0),
            matchingPolicy: .nextTime)
    }

    // MARK: What the notifications say

    private func content(_ warning: WeatherWarning, upgrade: Bool, _ report: Report, _ now: Date)
        -> DesktopNotification
    {
        NotificationContent.warning(
            warning, upgrade: upgrade, report: report, now: now, actions: preferences.actions, phrases: phrases)
    }

    private func rain(_ nowcast: ReportNowcast, _ report: Report, now: Date) -> DesktopNotification {
        NotificationContent.rain(nowcast, report: report, now: now, phrases: phrases)
    }

    private func summary(_ report: Report, now: Date) -> DesktopNotification {
        NotificationContent.summary(report, now: now, phrases: phrases)
    }
}
