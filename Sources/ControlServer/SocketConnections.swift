import CHeap
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Every connection the socket has admitted, and who may take a place when the table is full.
///
/// The rules (docs/protocol.md, "Limits"): at most `max_clients` connections; a user other than the
/// daemon's own and root holds at most half of them, so readers in `socket_group` can never fill the
/// table; when it is full, a newcomer takes the place of the oldest connection that has not sent a
/// request yet (of the user holding the most), and the daemon's own user or root takes the place of
/// another user's oldest connection.
///
/// A connection holds its place until everything it costs is released: its socket is closed *and*
/// the task serving it (if it was given one) has ended. So however fast clients come and go, at most
/// `max_clients` connections' worth of memory exists at once; a flood is refused on the event loop,
/// which costs nothing that stays. `status` counts only connections still open.
final class SocketConnections: Sendable {
    struct Entry {
        let channel: any Channel
        let uid: uid_t?
        /// Order of admission: lower is older.
        let order: UInt64
        /// Whether it has sent a complete request line (silent ones are the first to make room).
        var requested = false
        var watching = false
        var open = true
        /// Whether a task serves it (then its place is freed when that task ends, too).
        var served = false

        var privileged: Bool { uid == getuid() || uid == 0 }
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var nextOrder: UInt64 = 0
        /// The most places held at once since memory was last given back.
        var peak = 0

        /// Frees `key`'s place; true when so many places have been freed since the peak that the memory
        /// their connections held should go back to the system now.
        mutating func remove(_ key: ObjectIdentifier) -> Bool {
            guard entries.removeValue(forKey: key) != nil else { return false }
            guard peak >= SocketConnections.trimPeak, entries.count <= peak / 2 else { return false }
            peak = entries.count
            return true
        }
    }

    /// How many connections must have been held at once before their leaving gives memory back: below it,
    /// what glibc keeps is too little to be worth a trim.
    static let trimPeak = 32

    /// The answer to a newcomer.
    enum Admission {
        /// In, possibly by closing `evicted` (to which the caller sends the reason).
        case admitted(evicted: (any Channel)?)
        /// Not in; the message says why.
        case refused(String)
    }

    let maxClients: Int
    private let table = NIOLockedValueBox(Table())

    init(maxClients: Int) { self.maxClients = max(1, maxClients) }

    /// Most connections one user other than the daemon's own and root may hold.
    var perUserLimit: Int { max(1, maxClients / 2) }

    /// Clients connected now, and how many of them watch: open connections only.
    var counts: (connected: Int, watching: Int) {
        table.withLockedValue { table in
            let open = table.entries.values.filter(\.open)
            return (open.count, open.filter(\.watching).count)
        }
    }

    /// Connections holding a place (open, or closed with their task still ending).
    var held: Int { table.withLockedValue { $0.entries.count } }

    /// Decides whether a new connection from `uid` gets a place, and whose place it takes.
    func admit(_ channel: any Channel, uid: uid_t?) -> Admission {
        table.withLockedValue { table in
            let newcomer = Entry(channel: channel, uid: uid, order: table.nextOrder)
            var evicted: Entry?
            let held = table.entries.values.filter { $0.uid == uid }
            if !newcomer.privileged, held.count >= perUserLimit {
                // A user at its share makes room only from its own silent connections.
                guard let own = held.filter({ $0.open && !$0.requested }).min(by: { $0.order < $1.order }) else {
                    return .refused(
                        "too many connections from user \(uid.map(String.init) ?? "unknown") (the limit per user is \(perUserLimit) of \(maxClients)); try again later"
                    )
                }
                evicted = own
            } else if table.entries.count >= maxClients {
                evicted = Self.victim(in: table.entries.values.filter { $0.open && !$0.requested })
                if evicted == nil, newcomer.privileged {
                    evicted = Self.victim(in: table.entries.values.filter { $0.open && !$0.privileged })
                }
                guard evicted != nil else {
                    return .refused("too many clients (the limit is \(maxClients)); try again later")
                }
            }
            if let evicted { table.entries[ObjectIdentifier(evicted.channel)] = nil }
            table.entries[ObjectIdentifier(channel)] = newcomer
            table.nextOrder += 1
            table.peak = max(table.peak, table.entries.count)
            return .admitted(evicted: evicted?.channel)
        }
    }

    /// The oldest connection of the user holding the most among `candidates`.
    private static func victim(in candidates: [Entry]) -> Entry? {
        let byUser = Dictionary(grouping: candidates, by: \.uid)
        let user = byUser.max { left, right in
            left.value.count != right.value.count
                ? left.value.count < right.value.count
                : left.value.map(\.order).min()! > right.value.map(\.order).min()!
        }
        return user?.value.min { $0.order < $1.order }
    }

    /// Notes that a task now serves the connection: its place is held until ``taskEnded(_:)`` too.
    func served(_ channel: any Channel) {
        table.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.served = true }
    }

    /// Notes that a connection closed; frees its place unless its task is still ending.
    func closed(_ channel: any Channel) {
        let trim = table.withLockedValue { table in
            let key = ObjectIdentifier(channel)
            table.entries[key]?.open = false
            table.entries[key]?.watching = false
            return table.entries[key]?.served == false && table.remove(key)
        }
        if trim { Self.giveMemoryBack() }
    }

    /// Notes that the task serving a connection ended; frees its place once the socket is closed too.
    func taskEnded(_ channel: any Channel) {
        let trim = table.withLockedValue { table in
            let key = ObjectIdentifier(channel)
            table.entries[key]?.served = false
            return table.entries[key]?.open == false && table.remove(key)
        }
        if trim { Self.giveMemoryBack() }
    }

    /// Hands the heap's free pages back to the system. glibc keeps what many connections freed (most of it
    /// in the arena of the event loop's thread) for reuse and gives little back by itself: after 500
    /// watchers had left, nine tenths of their memory stayed (docs/performance.md, "Watchers that never
    /// read"). Called when the connections held have halved since their peak, so a burst of clients costs
    /// a few trims, each a few milliseconds.
    static func giveMemoryBack() {
        _ = heap_give_back()
    }

    /// Notes that a connection sent a complete request: it no longer makes room for newcomers first.
    func markRequested(_ channel: any Channel) {
        table.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.requested = true }
    }

    /// Notes that a connection watches (exempt from the idle timeout; counted as a watcher).
    func setWatching(_ channel: any Channel) {
        table.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.watching = true }
    }

    func isWatching(_ channel: any Channel) -> Bool {
        table.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.watching ?? false }
    }
}
