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
/// With `[mqtt] follow` it publishes nothing and follows another forecastd instead (``Follower``): the followed
/// report and status go to the state, which renders them as this daemon's own report.
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

    /// What the loop hears: the connection's events, a new report, the alarm, a connect that failed.
    enum Signal: Sendable {
        case event(MQTTEvent)
        case report(PublishedReport)
        case reconnectDue
        case connectFailed(MQTTError)
    }

    public func run() async {
        guard let setup = await setUp() else {
            // Said why already; the rest of the daemon carries on without MQTT.
            try? await gracefulShutdown()
            return
        }
        let connection: MQTTConnection
        do throws(MQTTError) {
            connection = try MQTTConnection(options: setup.options)
        } catch {
            logger.error(
                "The MQTT client cannot be set up; the report is not published on MQTT.",
                metadata: ["broker": "\(settings.broker.url)", "error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        let alarm = Alarm()
        // Unbounded so that no `.connected` is ever dropped; what feeds it is bounded (the connection's events by
        // its own buffer, the reports by the state's changes) and the loop never waits on the broker.
        let (signals, signal) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .unbounded)
        await cancelWhenGracefulShutdown {
            var role =
                setup.followed.map { Role.follower(Follower(service: self, connection: connection, topics: $0, setup: setup)) }
                ?? .publisher(Publisher(service: self, connection: connection, setup: setup))
            await withDiscardingTaskGroup { group in
                group.addTask { await alarm.ring { signal.yield(.reconnectDue) } }
                group.addTask { for await event in connection.events { signal.yield(.event(event)) } }
                if setup.followed == nil {
                    group.addTask { for await report in state.published.updates() { signal.yield(.report(report)) } }
                } else {
                    // No forecast service runs in a follower: the followed report's judgements (overdue, stale)
                    // fall due on the state's alarm, rung here.
                    group.addTask { await state.keepTime() }
                }
                signal.yield(.reconnectDue)
                for await next in signals {
                    if case .reconnectDue = next {
                        // The armed wait is over: the failure of this attempt arms the next one.
                        role.reconnectDue()
                        group.addTask {
                            do throws(MQTTError) { try await connection.connect() } catch { signal.yield(.connectFailed(error)) }
                        }
                        continue
                    }
                    if let wait = await role.handle(next) {
                        alarm.arm(Date().addingTimeInterval(wait))
                    }
                }
                group.cancelAll()
            }
            // Cancelled by the stop: `offline` and the goodbye still go out (the connection's calls run on the
            // waiter whatever the task's cancellation says).
            await role.goodbye()
        }
    }

    /// The options, topics and discovery of the settings, with the password read; nil (and said why) when the
    /// password cannot be read or a topic cannot be made.
    private func setUp() async -> Setup? {
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
        return Setup(options: options, topics: topics, discovery: discovery, followed: followed)
    }

    struct Setup: Sendable {
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

        func goodbye() async {
            switch self {
            case .publisher(let publisher): await publisher.goodbye()
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
