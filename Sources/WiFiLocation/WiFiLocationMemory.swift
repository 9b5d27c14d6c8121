import FileStore
import Foundation
import Location
import Logging

/// What the Wi-Fi source remembers across restarts, in `wifi-location.json` in the state directory (mode 0600): the
/// query rule's state (what was asked last, and until when asking is held) and the answers kept by access-point
/// set. Without it every boot would ask about home again; with it a laptop that goes home every evening asks about
/// home once a week (``WiFiAnswerCache/positionLifetime``), and a `Retry-After` holds across a restart.
struct WiFiLocationMemory: VersionedState, Hashable {
    static let version = 1
    /// 128 answers of 20 addresses each are about 400 KB pretty-printed; a file far larger is not one of ours.
    static let maximumFileBytes = 1 << 20

    var version: Int = Self.version
    var rule = WiFiQueryRule.State()
    var cache = WiFiAnswerCache()

    static func file(_ path: String) -> VersionedJSONFile<WiFiLocationMemory> {
        VersionedJSONFile(path: path, dates: .iso8601, pretty: true, maximumBytes: maximumFileBytes)
    }

    /// The saved memory; an empty one when there is none or it cannot be used (then it is set aside and logged).
    /// Synchronous file I/O: the provider runs it on `Blocking`.
    static func load(from path: String?, logger: Logger) -> WiFiLocationMemory {
        guard let path else { return WiFiLocationMemory() }
        switch file(path).load() {
        case .value(let memory):
            return memory
        case .missing:
            return WiFiLocationMemory()
        case .unusable(let reason, let aside):
            logger.warning(
                "The saved Wi-Fi answers cannot be read; places will be asked about again.",
                metadata: ["path": "\(path)", "set_aside_as": "\(aside ?? "(could not rename)")", "error": "\(reason)"])
            return WiFiLocationMemory()
        }
    }

    /// Writes it atomically. Synchronous file I/O: the provider runs it on `Blocking`.
    func save(to path: String?, logger: Logger) {
        guard let path else { return }
        do {
            try Self.file(path).save(self)
        } catch {
            logger.warning(
                "The Wi-Fi answers could not be saved; a restart may ask about this place again.",
                metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
