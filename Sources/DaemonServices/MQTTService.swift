import Control
import DaemonState
import ForecastModel
import FileStore
import Foundation
import Logging
import MQTT
import MQTTPayloads
import ServiceLifecycle
import Settings
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// Publishes the report on the MQTT broker of `[mqtt]` (docs/mqtt.md): retained on `TOPIC/report` at every change,
/// `TOPIC/status` `online` once connected and `offline` as the connection's will (and said on a graceful stop),
/// and Home Assistant's discovery configs (again when the units or the language change; emptied when `discovery`
/// is off).
///
/// The broker is never needed: one that is down at start, refuses this client or goes away is tried again after a
/// backoff with jitter (``Backoff``) on an `Alarm`, logged once per outage, and the rest of the daemon carries on.
/// After a reconnect everything retained is published again (a broker without persistence forgot it).
///
/// A publisher runs in every daemon that follows no one, MQTT on or off, and takes `[mqtt]` edits live: when the
/// section changes, the connection says its goodbye (`offline`; first emptied, when the topic, the discovery prefix
/// or discovery itself changed or MQTT was turned off, the retained report and discovery configs that would
/// otherwise linger), and one with the new options starts and publishes everything retained again. While MQTT is
/// off it only waits for the next edit.
///
/// With `[mqtt] follow` (read at start) it publishes nothing and follows another forecastd instead (``Follower``):
/// the followed report and status go to the state, which renders them as this daemon's own report.
public struct MQTTService: Service, CustomStringConvertible {
    /// The wait before connection attempt `n` (0 for the first retry): `initial` doubled each time up to `maximum`,
    /// then a random part of it taken away (up to half), so a household's daemons do not all return at once
    /// after the broker restarts.
    public struct Backoff: Sendable, Hashable {
        public var initial: Duration
        public var maximum: Duration

        /// Raised to at least 100 ms, and `maximum` to at least `initial`: no busy loop from a bad value.
        public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(300)) {
            self.initial = max(initial, .milliseconds(100))
            self.maximum = max(maximum, self.initial)
        }

        /// The wait before attempt `attempt`, with `random` in 0..<1 choosing the jitter.
        public func delay(attempt: Int, random: Double) -> Duration {
            let doubled = initial * (1 << min(max(attempt, 0), 20))
            let capped = min(doubled, maximum)
            return capped * (1 - 0.5 * min(max(random, 0), 1))
        }
    }

    let state: ForecastState
    /// `[mqtt]` at start: a follower's for good, a publisher's until the first edit.
    let settings: Settings.MQTT
    let backoff: Backoff
    let logger: Logger

    public init(state: ForecastState, settings: Settings.MQTT, backoff: Backoff = Backoff(), logger: Logger) {
        self.state = state
        self.settings = settings
        self.backoff = backoff
        self.logger = logger
    }

    public var description: String { "MQTTService" }

    /// What the loop hears: the connection's events, a new report, the alarm, a connect that failed, an edit.
    enum Signal: Sendable {
        case event(MQTTEvent)
        case report(PublishedReport)
        case reconnectDue
        case connectFailed(MQTTError)
        /// `[mqtt]` changed (a publisher's only): the connection ends and one with the new options starts.
        case settings(Settings.MQTT)
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            // `follow` is read at start (a follower runs no forecast service): a follower keeps the settings it
            // started with.
            if settings.enabled, settings.follow != nil {
                _ = await session(settings)
                return
            }
            // A publisher takes every other `[mqtt]` key live: each change ends the connection (after its
            // goodbye) and starts one with the new options.
            var next: Settings.MQTT? = settings
            while let mqtt = next {
                if mqtt.enabled, let follow = mqtt.follow {
                    logger.warning(
                        """
                        MQTT was turned on with follow set, which is read at start; nothing is published, and this \
                        daemon follows once it restarts.
                        """, metadata: ["follow": "\(follow)"])
                }
                next = mqtt.enabled && mqtt.follow == nil ? await session(mqtt) : await change(from: mqtt)
            }
        }
    }

    /// The next `[mqtt]` that differs from `mqtt` (the state's settings now, then each edit applied); nil once the
    /// service stops.
    private func change(from mqtt: Settings.MQTT) async -> Settings.MQTT? {
        for await applied in state.settings.updates() where applied.mqtt != mqtt { return applied.mqtt }
        return nil
    }

    /// One connection with `mqtt`'s options, until the service stops (nil) or, for a publisher, `[mqtt]` changes:
    /// then the new value, after the goodbye (which empties what would otherwise linger under the old options).
    private func session(_ mqtt: Settings.MQTT) async -> Settings.MQTT? {
        let live = mqtt.follow == nil
        guard let setup = await setUp(mqtt) else {
            // Said why already; the rest of the daemon carries on without MQTT (a publisher until the next edit).
            return live ? await change(from: mqtt) : await stopped()
        }
        let connection: MQTTConnection
        do throws(MQTTError) {
            connection = try MQTTConnection(options: setup.options)
        } catch {
            logger.error(
                "The MQTT client cannot be set up; the report is not published on MQTT.",
                metadata: ["broker": "\(mqtt.broker.url)", "error": "\(error)"])
            return live ? await change(from: mqtt) : await stopped()
        }
        var role =
            setup.followed.map { Role.follower(Follower(service: self, connection: connection, topics: $0, setup: setup)) }
            ?? .publisher(Publisher(service: self, connection: connection, setup: setup))
        let alarm = Alarm()
        // Unbounded so that no `.connected` is ever dropped; what feeds it is bounded (the connection's events by
        // its own buffer, the reports by the state's changes, the settings by the edits) and the loop never waits
        // on the broker.
        let (signals, signal) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .unbounded)
        let next = await withDiscardingTaskGroup(returning: Settings.MQTT?.self) { group in
            group.addTask { await alarm.ring { signal.yield(.reconnectDue) } }
            group.addTask { for await event in connection.events { signal.yield(.event(event)) } }
            if setup.followed == nil {
                group.addTask { for await report in state.published.updates() { signal.yield(.report(report)) } }
                group.addTask {
                    for await applied in state.settings.updates() where applied.mqtt != mqtt {
                        signal.yield(.settings(applied.mqtt))
                    }
                }
            } else {
                // No forecast service runs in a follower: the followed report's judgements (overdue, stale)
                // fall due on the state's alarm, rung here.
                group.addTask { await state.keepTime() }
            }
            signal.yield(.reconnectDue)
            var iterator = signals.makeAsyncIterator()
            let next = await loop(&iterator, signal, role: &role, alarm: alarm, connection: connection, group: &group)
            if let next, await role.leave(for: next) {
                // The old settings' last words (what is emptied, `offline`) reach the broker before the goodbye,
                // which drops whatever libmosquitto still holds back; a broker too slow to confirm is not waited
                // for long.
                alarm.arm(Date().addingTimeInterval(Self.leavingTimeout))
                await Self.awaitDelivery(&iterator)
            }
            group.cancelAll()
            return next
        }
        // Cancelled by the stop, or ended by an edit: the goodbye still goes out (the connection's calls run on
        // the waiter whatever the task's cancellation says).
        await role.goodbye(changingTo: next)
        return next
    }

    /// How long an edit waits for the broker to confirm the old connection's last messages.
    static let leavingTimeout: TimeInterval = 5

    /// Returns once the last message of ``Role/leave(for:)`` was confirmed, the connection ended, or the alarm rang.
    private static func awaitDelivery(_ iterator: inout AsyncStream<Signal>.Iterator) async {
        while let next = await iterator.next() {
            switch next {
            case .event(.delivered), .event(.disconnected), .reconnectDue: return
            default: continue
            }
        }
    }

    /// Handles the signals until the service stops (nil) or `[mqtt]` changes (the new value).
    private func loop(
        _ signals: inout AsyncStream<Signal>.Iterator, _ signal: AsyncStream<Signal>.Continuation, role: inout Role,
        alarm: Alarm, connection: MQTTConnection, group: inout DiscardingTaskGroup
    ) async -> Settings.MQTT? {
        while let next = await signals.next() {
            switch next {
            case .settings(let mqtt):
                if mqtt.enabled {
                    logger.info(
                        "The MQTT settings changed; connecting again with the new ones.",
                        metadata: ["broker": "\(mqtt.broker.url)", "topic": "\(mqtt.topic ?? "(host name)")"])
                } else {
                    logger.info("MQTT was turned off; the report is no longer published on MQTT.")
                }
                return mqtt
            case .reconnectDue:
                // The armed wait is over: the failure of this attempt arms the next one.
                role.reconnectDue()
                group.addTask {
                    do throws(MQTTError) { try await connection.connect() } catch { signal.yield(.connectFailed(error)) }
                }
            default:
                if let wait = await role.handle(next) { alarm.arm(Date().addingTimeInterval(wait)) }
            }
        }
        return nil
    }

    /// Returns once the service stops: a follower whose settings cannot be used waits for its restart.
    private func stopped() async -> Settings.MQTT? {
        try? await gracefulShutdown()
        return nil
    }

    /// The options, topics and discovery of the settings, with the password read; nil (and said why) when the
    /// password cannot be read or a topic cannot be made.
    private func setUp(_ settings: Settings.MQTT) async -> Setup? {
        let host = Self.hostname()
        let base = settings.topic ?? ShareTopics.defaultBase(hostname: host)
        let topics: ShareTopics
        let discovery: HomeAssistantDiscovery
        let followed: ShareTopics?
        do {
            topics = try ShareTopics(base: base)
            followed = try settings.follow.map { follow throws(ShareTopicError) in try ShareTopics(base: follow) }
            discovery = try HomeAssistantDiscovery(
                prefix: settings.discoveryPrefix, topics: topics, deviceName: "forecastd \(host)",
                version: ForecastdVersion.current)
        } catch {
            logger.error("The MQTT topic cannot be used; the report is not published on MQTT.", metadata: ["error": "\(error)"])
            return nil
        }
        let password: MQTTOptions.Secret?
        do {
            password = try await Self.readPassword(settings.passwordFile, environment: ProcessInfo.processInfo.environment)
        } catch {
            logger.error(
                "The MQTT password file cannot be read; the report is not published on MQTT.",
                metadata: ["error": "\(error)"])
            return nil
        }
        let options = MQTTOptions(
            host: settings.broker.host, port: settings.broker.port,
            tls: settings.broker.tls ? (settings.caFile.map { .caFile($0) } ?? .systemStore) : nil,
            clientID: settings.clientID ?? "forecastd-\(host)", username: settings.username, password: password,
            // A follower publishes nothing, so it has no status for a will to speak for.
            will: followed == nil
                ? MQTTMessage(topic: topics.status, text: ShareStatus.offline.rawValue, retain: true, qos: 1) : nil,
            maximumMessageBytes: SharedReport.maximumBytes)
        return Setup(settings: settings, options: options, topics: topics, discovery: discovery, followed: followed)
    }

    struct Setup: Sendable {
        /// The `[mqtt]` these were made from.
        var settings: Settings.MQTT
        var options: MQTTOptions
        var topics: ShareTopics
        var discovery: HomeAssistantDiscovery
        /// `follow`'s topics: this daemon follows them instead of publishing.
        var followed: ShareTopics?
    }

    /// What this daemon does on the broker: publish its report, or follow another's.
    enum Role {
        case publisher(Publisher)
        case follower(Follower)

        mutating func handle(_ signal: Signal) async -> TimeInterval? {
            switch self {
            case .publisher(var publisher):
                let wait = await publisher.handle(signal)
                self = .publisher(publisher)
                return wait
            case .follower(var follower):
                let wait = await follower.handle(signal)
                self = .follower(follower)
                return wait
            }
        }

        /// The reconnect alarm rang: no attempt is armed any more.
        mutating func reconnectDue() {
            switch self {
            case .publisher(var publisher):
                publisher.outage.reconnectArmed = false
                self = .publisher(publisher)
            case .follower(var follower):
                follower.outage.reconnectArmed = false
                self = .follower(follower)
            }
        }

        /// Before a connection with the settings `new`: a publisher's last messages under the old ones; true when
        /// their confirmation is to be awaited.
        func leave(for new: Settings.MQTT) async -> Bool {
            guard case .publisher(let publisher) = self else { return false }
            return await publisher.leave(for: new)
        }

        /// The goodbye, on a stop (`new` nil) or before a connection with the settings `new`.
        func goodbye(changingTo new: Settings.MQTT?) async {
            switch self {
            case .publisher(let publisher): await publisher.goodbye(changingTo: new)
            case .follower(let follower): await follower.goodbye()
            }
        }
    }

    /// The password: the first line of `path`, else of systemd's credential `mqtt-password` when there is one,
    /// else none. At most 4 KiB is read; an empty first line is refused.
    static func readPassword(_ path: String?, environment: [String: String]) async throws -> MQTTOptions.Secret? {
        let credential = environment["CREDENTIALS_DIRECTORY"].map { $0 + "/mqtt-password" }
        return try await Blocking.run { () throws -> MQTTOptions.Secret? in
            guard let file = path ?? credential.flatMap({ FileManager.default.fileExists(atPath: $0) ? $0 : nil })
            else { return nil }
            let data = try BoundedFile.read(file, maximumBytes: 4096)
            let line = String(decoding: data, as: UTF8.self).prefix { $0 != "\n" && $0 != "\r" }
            guard !line.isEmpty else { throw PasswordFileError(path: file) }
            return MQTTOptions.Secret(String(line))
        }
    }

    struct PasswordFileError: Error, CustomStringConvertible {
        var path: String
        var description: String { "\(path) has no password on its first line" }
    }

    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
