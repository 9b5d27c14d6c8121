import DesktopNotifications
import FileStore
import ForecastModel
import Foundation
import Logging
import Settings
import Waiting

/// Sends what ``NotificationPolicy`` decides through the desktop's notification server, and remembers what
/// went out in the state directory (``NotificationStore``) so that nothing goes out twice, across restarts
/// too.
///
/// - Call ``update(_:now:)`` with every new report, and again at the moment it returns (the daemon sets a
///   timer for it: nothing polls). Calls are handled one at a time, in order.
/// - Run ``followEvents()`` beside it for the actions ("Open warning" opens the warning's page through the
///   desktop portal) and to forget notifications the server closed.
/// - An update replaces the notification this run showed for the same warning (`replaces_id`); one taken
///   away is closed (`CloseNotification`). Notifications of an earlier run are never replaced or closed by
///   their IDs: the server may have restarted and given those numbers to other programs' notifications.
/// - When nobody can be notified (no session bus — the system service —, the bus unreachable, no
///   notification server) it logs that once, records nothing, and tries again with the next update; the
///   first update after a server appears sends what is still due.
public actor Notifier {
    private let client: NotificationClient
    private let store: NotificationStore
    private var policy: NotificationPolicy
    private var ledger: NotificationLedger
    private let opener: (any URLOpening)?
    private let logger: Logger

    /// The server's IDs of what this run showed, by subject.
    private var shown: [NotificationSubject: NotificationID] = [:]
    /// The page each shown warning offers to open, by notification ID.
    private var pages: [NotificationID: URL] = [:]
    /// The activation token a server sent just before an action, by notification ID.
    private var tokens: [NotificationID: String] = [:]
    private var saidUnavailable = false
    private var saidStoreFailure = false
    /// After a damaged ledger: what it would have said is unknown, so what is due at the start is written
    /// down as notified instead of sent (the warnings in force notified again at every restart would be
    /// worse than one missed). Warnings until the first report that has them (the sources answer some
    /// time after the start); rain and the morning summary for the first report only.
    private var adoptingWarnings = false
    private var adoptingOthers = false

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let deliveries: AsyncStream<Void>
    private let delivered: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - client: the notification server's client (one for the daemon's whole life).
    ///   - stateDirectory: where the record of sent notifications lives (`notifications.json`).
    ///   - timeZone: the machine's clock's zone, for quiet hours and the morning summary.
    ///   - opener: opens a warning's page when the user picks "Open warning"; nil offers no action.
    public init(
        client: NotificationClient, stateDirectory: String, preferences: Settings.Notifications,
        timeZone: TimeZone = .current, phrases: Phrases = .english, opener: (any URLOpening)? = nil, logger: Logger
    ) async {
        self.client = client
        let store = NotificationStore(directory: stateDirectory, logger: logger)
        self.store = store
        var preferences = preferences
        if opener == nil { preferences.actions = false }
        self.policy = NotificationPolicy(preferences: preferences, timeZone: timeZone, phrases: phrases)
        // Read on the blocking thread, as the ledger's saves are written: not on the caller's event loop.
        let loaded = await Blocking.run { store.load() }
        self.ledger = loaded.ledger
        self.adoptingWarnings = loaded.wasDamaged
        self.adoptingOthers = loaded.wasDamaged
        self.opener = opener
        self.logger = logger
        (deliveries, delivered) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The preferences in effect.
    public var preferences: Settings.Notifications { policy.preferences }

    /// Applies changed settings (`[notifications]` is live); they count from the next update.
    public func setPreferences(_ preferences: Settings.Notifications) {
        var preferences = preferences
        if opener == nil { preferences.actions = false }
        policy.preferences = preferences
    }

    /// Words what goes out from now on in another language (`[display] language` is live).
    public func setPhrases(_ phrases: Phrases) {
        policy.phrases = phrases
    }

    /// What has been notified, as the state directory keeps it.
    public var record: NotificationLedger { ledger }

    /// Decides what `report` calls for at `now`, sends it, and writes down what went out.
    ///
    /// - Returns: when to call again with the same report (rain entering the lead time, the morning
    ///   summary, the end of the quiet hours while something waits); nil when only a new report can change
    ///   anything.
    @discardableResult
    public func update(_ report: Report, now: Date = Date()) async -> Date? {
        await acquire()
        defer { release() }
        let plan = policy.plan(report, now: now, ledger: ledger)
        var ledger = plan.ledger
        let adopting = (warnings: adoptingWarnings, others: adoptingOthers)
        adoptingOthers = false
        if report.warnings != nil { adoptingWarnings = false }
        var adopted: [String] = []
        decisions: for decision in plan.decisions {
            let adopt =
                switch decision {
                case .warning, .moreWarnings: adopting.warnings
                case .rain, .summary: adopting.others
                case .withdraw: false
                }
            if adopt {
                ledger.record(decision, at: now)
                adopted.append("\(decision.subject)")
                continue
            }
            if case .withdraw(let subject) = decision {
                await withdraw(subject)
                ledger.record(decision, at: now)
                continue
            }
            switch await send(decision) {
            case .record: ledger.record(decision, at: now)
            case .retry: break
            // Nothing else can go through now either; the next update tries again.
            case .unavailable: break decisions
            }
        }
        logAdopted(adopted)
        if ledger != self.ledger {
            self.ledger = ledger
            await save()
        }
        return plan.nextCheck
    }

    /// What an update does with a decision it tried to send.
    private enum Attempt {
        /// Writes it down: it went out, or never can (D-Bus cannot carry it), which is better than trying forever.
        case record
        /// Leaves it for the next update to try again.
        case retry
        /// Stops: nobody can be notified now.
        case unavailable
    }

    /// Shows `decision`'s notification, replacing the one this run showed for the same subject.
    private func send(_ decision: NotificationDecision) async -> Attempt {
        guard var notification = decision.notification else { return .retry }
        let subject = decision.subject
        if let id = shown[subject] { notification.replacing = id }
        do {
            let id = try await client.send(notification)
            shown[subject] = id
            if case .warning(let warning, _, _) = decision, policy.preferences.actions,
                let page = NotificationContent.pageURL(warning)
            {
                pages[id] = page
            }
            saidUnavailable = false
            delivered.yield()
            logger.info(
                "Sent a desktop notification.",
                metadata: [
                    "notification.subject": "\(subject)", "notification.summary": "\(notification.summary)",
                    "notification.id": "\(id)",
                ])
            return .record
        } catch where error.isUnavailable {
            if !saidUnavailable {
                saidUnavailable = true
                logger.warning(
                    "Desktop notifications cannot be delivered; forecastd goes on without them and tries again with the next one.",
                    metadata: ["reason": "\(error)"])
            }
            return .unavailable
        } catch {
            logger.warning(
                "A desktop notification was not sent.",
                metadata: ["notification.subject": "\(subject)", "error": "\(error)"])
            if case .invalidNotification = error { return .record }
            return .retry
        }
    }

    /// Closes what this run showed for `subject`; a notification of an earlier run has no ID here to close.
    private func withdraw(_ subject: NotificationSubject) async {
        guard let id = shown.removeValue(forKey: subject) else { return }
        pages[id] = nil
        do {
            try await client.close(id)
        } catch where !error.isUnavailable {
            logger.warning(
                "A desktop notification could not be taken away.",
                metadata: ["notification.subject": "\(subject)", "error": "\(error)"])
        } catch {}
    }

    private func logAdopted(_ adopted: [String]) {
        guard !adopted.isEmpty else { return }
        logger.notice(
            "Taken as already notified, since the record of sent notifications was damaged.",
            metadata: [
                "notification.count": "\(adopted.count)",
                "notification.subjects": "\(adopted.prefix(5).joined(separator: ", "))\(adopted.count > 5 ? ", …" : "")",
            ])
    }

    /// Follows the server's signals until the task is cancelled: "Open warning" opens the warning's page, a
    /// notification the server closed is forgotten. While the server cannot be reached, waits for the next
    /// notification that goes through, then listens again.
    public func followEvents() async {
        var deliveries = self.deliveries.makeAsyncIterator()
        while !Task.isCancelled {
            do {
                for try await event in try await client.events() {
                    await handle(event)
                }
            } catch {
                if Task.isCancelled { return }
            }
            guard await deliveries.next() != nil else { return }
        }
    }

    private func handle(_ event: NotificationEvent) async {
        switch event {
        case .activationToken(let id, let token):
            if pages[id] != nil { tokens[id] = token }
        case .actionInvoked(let id, let action):
            guard action == NotificationAction.defaultKey || action == NotificationContent.openAction,
                let page = pages[id], let opener
            else { return }
            let token = tokens.removeValue(forKey: id)
            do {
                try await opener.open(page, activationToken: token)
                logger.info("Opened a warning's page.", metadata: ["url": "\(page)"])
            } catch {
                logger.warning(
                    "A warning's page could not be opened (is xdg-desktop-portal running?).",
                    metadata: ["url": "\(page)", "error": "\(error)"])
            }
        case .closed(let id, _):
            pages[id] = nil
            tokens[id] = nil
            for (subject, shownID) in shown where shownID == id { shown[subject] = nil }
        }
    }

    private func save() async {
        let (store, ledger) = (self.store, self.ledger)
        do {
            // Two fsyncs: on the blocking thread, never on an event loop.
            try await Blocking.run { () throws(AtomicFile.WriteError) in try store.save(ledger) }
            saidStoreFailure = false
        } catch {
            if !saidStoreFailure {
                saidStoreFailure = true
                logger.error(
                    "The record of sent notifications cannot be written; after a restart some may be sent again.",
                    metadata: ["file": "\(store.path)", "error": "\(error)"])
            }
        }
    }

    // One update at a time: an update waits at the server, and another one meanwhile would decide from
    // a record that does not yet hold what the first is sending.
    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
