import DBus
import Foundation

/// What changed at NetworkManager since the follower last heard: each member says what to read again. Signals are
/// gathered into one value while the follower is busy, so a burst (a scan announcing fifty access points) costs one
/// reading, and nothing queues up however long the follower takes.
public struct NetworkManagerChanges: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// NetworkManager took its name (it started or restarted) or left the bus: what it said before is void.
    public static let owner = NetworkManagerChanges(rawValue: 1 << 0)
    /// A device was added or removed (a USB Wi-Fi adapter plugged in).
    public static let devices = NetworkManagerChanges(rawValue: 1 << 1)
    /// Access points were added or removed: a scan found new ones or lost some.
    public static let accessPoints = NetworkManagerChanges(rawValue: 1 << 2)
    /// An active connection came, went or changed state (a VPN going up or down).
    public static let connections = NetworkManagerChanges(rawValue: 1 << 3)
    /// Signals came faster than they were read and some were dropped: read everything again.
    public static let missed = NetworkManagerChanges(rawValue: 1 << 4)

    /// Everything a follower reads when it cannot tell what it missed.
    public static let everything: NetworkManagerChanges = [.owner, .devices, .accessPoints, .connections, .missed]
}

extension NetworkManagerClient {
    /// The signals followed. Each is narrowed on the bus's side to what changes the answers of this client: an
    /// access point's strength changing after every scan, a link's bitrate, or another service's name never wake
    /// the process.
    static let followedSignals: [DBusSignalMatch] = [
        DBusNames.ownerChanges(of: NetworkManagerNames.bus),
        DBusSignalMatch(
            sender: NetworkManagerNames.bus, interface: NetworkManagerNames.wireless, member: "AccessPointAdded"),
        DBusSignalMatch(
            sender: NetworkManagerNames.bus, interface: NetworkManagerNames.wireless, member: "AccessPointRemoved"),
        DBusSignalMatch(
            sender: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
            interface: NetworkManagerNames.manager, member: "DeviceAdded"),
        DBusSignalMatch(
            sender: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
            interface: NetworkManagerNames.manager, member: "DeviceRemoved"),
        DBusProperties.changes(
            sender: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
            interface: NetworkManagerNames.manager),
        DBusProperties.changes(sender: NetworkManagerNames.bus, interface: NetworkManagerNames.activeConnection),
    ]

    /// Follows NetworkManager's signals until the calling task is cancelled (then returns) or the bus connection
    /// ends (then throws why).
    ///
    /// - Parameters:
    ///   - ready: called once every signal is subscribed to, before any change is handed on: read the state there,
    ///     so that nothing that changes after the reading goes unheard.
    ///   - handle: called with what changed, one call at a time; changes that come meanwhile are gathered for the
    ///     next call.
    public func followChanges(
        ready: @Sendable () async -> Void, handle: @Sendable (NetworkManagerChanges) async -> Void
    ) async throws(DBusError) {
        let drops = DBusSignalDrops()
        var subscriptions: [DBusSignals] = []
        for match in Self.followedSignals {
            subscriptions.append(try await bus.signals(matching: match, drops: drops))
        }
        let pending = PendingChanges()
        await ready()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for signals in subscriptions {
                    group.addTask {
                        do {
                            for try await signal in signals {
                                var changes = Self.changes(announcedBy: signal)
                                if drops.take() > 0 { changes.insert(.missed) }
                                pending.add(changes)
                            }
                            // The stream ends without an error when the connection is closed on this side.
                            pending.end(throwing: DBusError.closed)
                        } catch {
                            pending.end(throwing: error)
                        }
                    }
                }
                for try await changes in pending.batches {
                    await handle(changes)
                }
                group.cancelAll()
            }
        } catch {
            // Cancelled: the streams ended because the caller is done, which is no failure.
            if Task.isCancelled { return }
            throw (error as? DBusError) ?? .closed
        }
    }

    /// What a signal says changed; nothing for a signal that cannot be read or changes nothing followed.
    static func changes(announcedBy signal: DBusMessage) -> NetworkManagerChanges {
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"?):
            return .owner
        case (NetworkManagerNames.wireless?, "AccessPointAdded"?), (NetworkManagerNames.wireless?, "AccessPointRemoved"?):
            return .accessPoints
        case (NetworkManagerNames.manager?, "DeviceAdded"?), (NetworkManagerNames.manager?, "DeviceRemoved"?):
            return [.devices, .accessPoints]
        case (DBusProperties.interface?, "PropertiesChanged"?):
            guard let change = try? DBusPropertiesChange(signal) else { return [] }
            switch change.interface {
            case NetworkManagerNames.manager:
                var changes: NetworkManagerChanges = []
                if change.mentions("ActiveConnections") || change.mentions("PrimaryConnection") {
                    changes.insert(.connections)
                }
                if change.mentions("Devices") { changes.formUnion([.devices, .accessPoints]) }
                return changes
            case NetworkManagerNames.activeConnection:
                return .connections
            default:
                return []
            }
        default:
            return []
        }
    }
}

/// The changes heard and not yet handed on, and the wake-up of the one follower: at most one batch waits, however
/// many signals came.
final class PendingChanges: @unchecked Sendable {
    // `lock` guards `changes`; the continuation is Sendable. That is what makes the unchecked Sendable sound.
    private let lock = NSLock()
    private var changes: NetworkManagerChanges = []
    private let wake: AsyncThrowingStream<Void, any Error>.Continuation
    private let wakes: AsyncThrowingStream<Void, any Error>

    init() {
        (wakes, wake) = AsyncThrowingStream<Void, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func add(_ more: NetworkManagerChanges) {
        guard !more.isEmpty else { return }
        lock.withLock { changes.formUnion(more) }
        wake.yield()
    }

    func end(throwing error: any Error) {
        wake.finish(throwing: error)
    }

    /// The gathered changes, one batch per wake-up, empty batches skipped.
    var batches: some AsyncSequence<NetworkManagerChanges, any Error> {
        wakes.compactMap { [self] _ in
            let batch = lock.withLock {
                defer { changes = [] }
                return changes
            }
            return batch.isEmpty ? nil : batch
        }
    }
}
