import DBus
import ForecastModel
import Foundation
import Location
import Logging
import NetworkManager
import Waiting

#if canImport(Glibc)
    import Glibc
#endif

/// Positions from the Wi-Fi access points around: the ones NetworkManager's own scans found (read on the system bus;
/// no privileges, no scan of forecastd's own), located by an Ichnaea-compatible geolocation service.
///
/// Nothing polls. The access points are read when NetworkManager says they changed (access points added or removed,
/// a device coming or going, NetworkManager starting), and ``WiFiQueryRule`` decides whether that is worth a request:
/// a new place is asked about at once, the same place at most once in ten minutes, a place answered before not at
/// all (``WiFiAnswerCache``), and never while the service's `Retry-After` holds. The one timer is armed for the
/// moment the rule says a held-back request falls due. A system bus lost is tried again after ``reconnectDelay``;
/// one that cannot be reached at all is not (the source returns, with no timer left behind). NetworkManager leaving
/// the bus and coming back is followed through its name's owner.
///
/// Events: a ``LocationEvent/fix(_:)`` with source ``LocationSource/wifi`` and the service's accuracy; a
/// ``LocationEvent/noFix(source:)`` when too few access points can be sent or the service knows none of them; a
/// ``LocationEvent/unavailable(source:reason:)`` when NetworkManager or the bus is absent, once per outage.
public struct WiFiLocationProvider: LocationProvider {
    /// How long after the system bus could not be reached (or was lost) it is tried again.
    public static let reconnectDelay: Duration = .seconds(300)

    let geolocation: WiFiGeolocationClient
    let busAddress: String
    /// `wifi-location.json` (``WiFiLocationMemory``); nil keeps the answers in memory only.
    let memoryPath: String?
    let logger: Logger
    let clock: @Sendable () -> Date

    /// - Parameters:
    ///   - geolocation: the service to ask (``WiFiGeolocationClient``, on the daemon's HTTP client).
    ///   - busAddress: the system bus (``DBusAddress/system(environment:)``: `DBUS_SYSTEM_BUS_ADDRESS` when set).
    ///   - memoryPath: where the answers and the rule's state are kept across restarts.
    public init(
        geolocation: WiFiGeolocationClient, busAddress: String = DBusAddress.system(), memoryPath: String?,
        logger: Logger, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.geolocation = geolocation
        self.busAddress = busAddress
        self.memoryPath = memoryPath
        self.logger = logger
        self.clock = clock
    }

    /// Removes what an interrupted run left beside the memory at `path` (temporaries, old set-aside copies).
    @discardableResult
    public static func removeLeftovers(memoryPath path: String) -> [String] {
        WiFiLocationMemory.file(path).removeLeftovers()
    }

    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        // Read on the blocking thread, as it is saved: not on the event loop this task runs on.
        let memory = await Blocking.run { [memoryPath, logger] in
            WiFiLocationMemory.load(from: memoryPath, logger: logger)
        }
        var locating = WiFiLocating(rule: memory.rule, cache: memory.cache, deliver: deliver)
        var connectedOnce = false
        while !Task.isCancelled {
            let reason: String
            do {
                let bus = try await DBusConnection.connect(address: busAddress)
                connectedOnce = true
                reason = await follow(NetworkManagerClient(bus: bus), &locating)
                await bus.close()
            } catch {
                reason = "the system bus at \(busAddress) cannot be reached: \(error)"
            }
            if Task.isCancelled { return }
            locating.tell(.unavailable(source: .wifi, reason: reason))
            guard connectedOnce else {
                // No system bus at all (a container, a machine without D-Bus): it will not appear, so no timer is
                // kept for it; the source is started afresh when the daemon next wants it.
                logger.notice(
                    "Wi-Fi positioning is not available: there is no system bus.", metadata: ["error": "\(reason)"])
                return
            }
            logger.warning(
                "Wi-Fi positioning waits for the system bus.",
                metadata: ["error": "\(reason)", "retry_s": "\(Self.reconnectDelay.components.seconds)"])
            do {
                try await Alarm.sleep(for: Self.reconnectDelay)
            } catch {
                return
            }
        }
    }

    /// Follows NetworkManager on one connection until it ends (returns why) or the task is cancelled.
    private func follow(_ client: NetworkManagerClient, _ locating: inout WiFiLocating) async -> String {
        let alarm = Alarm()
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let ended = EndReason()
        let worth: NetworkManagerChanges = [.owner, .devices, .accessPoints, .missed]
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await alarm.ring { wake.yield() } }
            group.addTask {
                do {
                    try await client.followChanges(
                        ready: { wake.yield() },
                        handle: { changes in if !changes.isDisjoint(with: worth) { wake.yield() } })
                } catch {
                    ended.set("the system bus connection ended: \(error)")
                }
                wake.finish()
            }
            for await _ in wakes {
                alarm.arm(await judge(client, &locating))
            }
            group.cancelAll()
            return ended.reason ?? "the system bus connection ended"
        }
    }

    /// Reads the access points and does what the rule says; returns when to judge again, if a request is held back.
    private func judge(_ client: NetworkManagerClient, _ locating: inout WiFiLocating) async -> Date? {
        let snapshot: AccessPointSnapshot
        do {
            snapshot = try await client.accessPoints()
        } catch {
            locating.tell(.unavailable(source: .wifi, reason: "\(error)"))
            return nil
        }
        for problem in snapshot.unreadable.prefix(4) {
            logger.debug("NetworkManager described an access point that cannot be read.", metadata: ["error": "\(problem)"])
        }
        let request = WiFiGeolocationRequest(
            observations: snapshot.accessPoints.map {
                WiFiObservation(
                    hardwareAddress: $0.hardwareAddress, ssid: $0.ssid, strengthPercent: $0.strength,
                    frequencyMHz: $0.frequency, lastSeen: $0.lastSeen)
            }, bootTime: Self.bootTime())
        let now = clock()
        switch WiFiQueryRule.decide(request, state: locating.rule, cache: locating.cache, now: now) {
        case .tooFew:
            if locating.last != nil, locating.last != .noFix(source: .wifi) {
                logger.info(
                    "Too few Wi-Fi access points may be sent to locate this machine.",
                    metadata: [
                        "wifi.usable": "\(request.accessPoints.count)", "wifi.left_out": "\(request.leftOut.summary)",
                    ])
            }
            locating.tell(.noFix(source: .wifi))
            return nil
        case .known(let position):
            locating.tell(position.map { .fix(Self.fix($0, now: now)) } ?? .noFix(source: .wifi))
            return nil
        case .wait(let until):
            return until
        case .ask:
            let outcome = await geolocation.locate(request)
            let verdict = WiFiQueryRule.record(
                outcome, for: request, state: &locating.rule, cache: &locating.cache, now: now)
            let memory = WiFiLocationMemory(rule: locating.rule, cache: locating.cache)
            await Blocking.run { [memoryPath, logger] in memory.save(to: memoryPath, logger: logger) }
            if let position = verdict.position {
                locating.tell(.fix(Self.fix(position, now: now)))
                return nil
            }
            locating.tell(.noFix(source: .wifi))
            if let problem = verdict.problem {
                logger.notice("Wi-Fi positioning gave no position.", metadata: ["error": "\(problem)"])
            }
            // A failure held back: judge again when the rule lets the same place be asked about again.
            if case .wait(let until) = WiFiQueryRule.decide(
                request, state: locating.rule, cache: locating.cache, now: now)
            {
                return until
            }
            return nil
        }
    }

    static func fix(_ position: WiFiPosition, now: Date) -> LocationFix {
        LocationFix(
            coordinate: position.coordinate, source: .wifi, accuracyMeters: position.accuracyMeters, receivedAt: now)
    }

    /// Now by CLOCK_BOOTTIME, in whole seconds: the clock of NetworkManager's `LastSeen`.
    static func bootTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec)
    }
}

/// What the provider keeps across judgements and reconnections: the rule's state, the answers, the last event.
struct WiFiLocating {
    var rule = WiFiQueryRule.State()
    var cache = WiFiAnswerCache()
    var last: LocationEvent?
    let deliver: @Sendable (LocationEvent) -> Void

    /// Hands `event` on unless it says what the last one said (a fix is handed on each time: its time is new).
    mutating func tell(_ event: LocationEvent) {
        if case .fix = event {
        } else if event == last {
            return
        }
        last = event
        deliver(event)
    }
}

/// Why the signals stopped, set by the task that followed them.
private final class EndReason: @unchecked Sendable {
    // `lock` guards `text`; that is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var text: String?

    func set(_ reason: String) { lock.withLock { if text == nil { text = reason } } }
    var reason: String? { lock.withLock { text } }
}
