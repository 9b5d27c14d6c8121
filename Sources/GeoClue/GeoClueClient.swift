import DBus
import Foundation

/// The names of GeoClue 2's D-Bus API (its interface files, `interface/org.freedesktop.GeoClue2.*.xml`).
public enum GeoClueNames {
    public static let bus = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    public static let manager = "org.freedesktop.GeoClue2.Manager"
    public static let client = "org.freedesktop.GeoClue2.Client"
    public static let location = "org.freedesktop.GeoClue2.Location"
}

/// GeoClue's accuracy levels (`GClueAccuracyLevel`).
public enum GeoClueAccuracyLevel: UInt32, Sendable, Hashable, CaseIterable {
    case country = 1
    case city = 4
    case neighborhood = 5
    case street = 6
    case exact = 8
}

/// One position GeoClue gave.
public struct GeoClueFix: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// The radius it is within, in metres.
    public var accuracyMeters: Double
    /// GeoClue's word for where it came from ("WiFi", "GPS", …), when it gave one.
    public var description: String?
    /// When GeoClue determined it, when it said.
    public var timestamp: Date?

    public init(
        latitude: Double, longitude: Double, accuracyMeters: Double, description: String? = nil,
        timestamp: Date? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.description = description
        self.timestamp = timestamp
    }
}

/// What asking GeoClue for one position came to.
public enum GeoClueOutcome: Sendable, Hashable, CustomStringConvertible {
    case fix(GeoClueFix)
    /// GeoClue is neither running on the system bus nor startable there.
    case absent
    /// GeoClue wants an agent (the desktop's location permission dialog: GNOME Shell's, KDE's) and none is running
    /// for this user: usual on a tiling window manager. GeoClue's own message.
    case noAgent(String)
    /// The agent or GeoClue's configuration refused this program; GeoClue's own message.
    case refused(String)
    /// Anything else: GeoClue failed a call, or the caller stopped waiting.
    case failed(String)

    public var description: String {
        switch self {
        case .fix(let fix): "GeoClue gave \(fix.latitude), \(fix.longitude) (±\(Int(fix.accuracyMeters)) m)"
        case .absent: "GeoClue is not available on the system bus"
        case .noAgent(let message): "GeoClue has no agent for this user (\(message))"
        case .refused(let message): "GeoClue refused the request (\(message))"
        case .failed(let reason): "GeoClue could not be asked: \(reason)"
        }
    }
}

/// Asks GeoClue 2 for one position, the way its documentation asks clients to: a client object from the manager,
/// `DesktopId` and `RequestedAccuracyLevel` set, `Start`, the first `LocationUpdated`, `Stop`. Stopping is sent
/// whatever ends the wait (a fix, a refusal, the caller's cancellation), so GeoClue turns off its sources and the
/// desktop's location icon goes out.
///
/// GeoClue refuses to start a client when an agent is required and none is registered for the user (the usual case
/// on a tiling window manager: GNOME and KDE run one); that comes back as ``GeoClueOutcome/noAgent(_:)`` after
/// GeoClue's own wait for an agent (5 s in GeoClue 2.6 and later), for the caller to skip GeoClue quietly.
///
/// The wait for the fix has no deadline here: the caller bounds it (it cancels the task), with the one timer it
/// uses for everything else.
public struct GeoClueClient: Sendable {
    public let bus: DBusConnection
    /// The `.desktop` file's name without `.desktop` (`forecastd`): what GeoClue's configuration and agents
    /// know a program by.
    public let desktopID: String
    /// How long one call may take; GeoClue answers `Start` only after asking the agent, which may ask the user.
    public static let callTimeout: Duration = .seconds(60)

    public init(bus: DBusConnection, desktopID: String) {
        self.bus = bus
        self.desktopID = desktopID
    }

    /// Asks for one position at `accuracy` (GeoClue or its agent may give less; the fix says how much).
    public func locateOnce(accuracy: GeoClueAccuracyLevel = .exact) async -> GeoClueOutcome {
        do throws(DBusError) {
            guard try await isAvailable() else { return .absent }
            let reply = try await bus.call(
                DBusMethodCall(
                    destination: GeoClueNames.bus, path: GeoClueNames.managerPath, interface: GeoClueNames.manager,
                    member: "GetClient"),
                timeout: Self.callTimeout)
            guard let client = try reply.body(signature: "o")[0].string else { return .failed("GetClient gave no path") }
            try await set("DesktopId", .string(desktopID), on: client)
            try await set("RequestedAccuracyLevel", .uint32(accuracy.rawValue), on: client)
            // Listen before starting, so the first update cannot come too early to be heard.
            let updates = try await bus.signals(
                matching: DBusSignalMatch(
                    sender: GeoClueNames.bus, path: client, interface: GeoClueNames.client, member: "LocationUpdated"),
                buffering: 4)
            defer { stop(client) }
            do throws(DBusError) {
                _ = try await bus.call(
                    DBusMethodCall(
                        destination: GeoClueNames.bus, path: client, interface: GeoClueNames.client, member: "Start"),
                    timeout: Self.callTimeout)
            } catch {
                return Self.startRefusal(error)
            }
            return await firstFix(from: updates)
        } catch {
            if error.remoteName == .serviceUnknown || error.remoteName == .nameHasNoOwner { return .absent }
            return .failed(error.description)
        }
    }

    /// GeoClue runs, or the bus can start it (it is installed; D-Bus activation starts it on the first call).
    private func isAvailable() async throws(DBusError) -> Bool {
        if try await bus.nameHasOwner(GeoClueNames.bus) { return true }
        return try await bus.isActivatable(GeoClueNames.bus)
    }

    private func set(_ name: String, _ value: DBusValue, on client: String) async throws(DBusError) {
        try await bus.setProperty(
            name, to: value, destination: GeoClueNames.bus, path: client, interface: GeoClueNames.client,
            timeout: Self.callTimeout)
    }

    /// The first update whose position can be used; updates that cannot (GeoClue never sends those, a peer in its
    /// place might) are passed over.
    private func firstFix(from updates: DBusSignals) async -> GeoClueOutcome {
        var passedOver: String?
        do {
            for try await update in updates {
                guard let body = try? update.body(signature: "oo"), let path = body[1].string else { continue }
                switch await readLocation(at: path) {
                case .success(let fix): return .fix(fix)
                case .failure(let problem): passedOver = problem.text
                }
            }
        } catch {
            return .failed("the bus connection ended while waiting for a position: \(error)")
        }
        return .failed(
            "stopped waiting for a position" + (passedOver.map { " (the last update was unusable: \($0))" } ?? ""))
    }

    /// Reads a `Location` object GeoClue made for this client.
    func readLocation(at path: String) async -> Result<GeoClueFix, Unusable> {
        let properties: [String: DBusValue]
        do throws(DBusError) {
            properties = try await bus.allProperties(
                destination: GeoClueNames.bus, path: path, interface: GeoClueNames.location, timeout: Self.callTimeout)
        } catch {
            return .failure(Unusable(text: "its Location \(path) could not be read: \(error)"))
        }
        return Self.fix(from: properties, path: path)
    }

    /// A position from a `Location`'s properties, checked: coordinates in range and not (0, 0), an accuracy that is a
    /// positive distance.
    static func fix(from properties: [String: DBusValue], path: String) -> Result<GeoClueFix, Unusable> {
        guard let latitude = properties["Latitude"]?.double, let longitude = properties["Longitude"]?.double,
            let accuracy = properties["Accuracy"]?.double
        else {
            return .failure(Unusable(text: "the Location \(path) has no Latitude, Longitude and Accuracy of type d"))
        }
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude),
            !(latitude == 0 && longitude == 0)
        else {
            return .failure(Unusable(text: "the Location \(path) is at \(latitude), \(longitude), not a real place"))
        }
        guard accuracy.isFinite, accuracy > 0 else {
            return .failure(Unusable(text: "the Location \(path) has an accuracy of \(accuracy) m"))
        }
        var timestamp: Date?
        if let fields = properties["Timestamp"]?.fields, fields.count == 2, let seconds = fields[0].uint64,
            let microseconds = fields[1].uint64, seconds > 0, seconds < 1 << 40
        {
            timestamp = Date(timeIntervalSince1970: Double(seconds) + Double(microseconds % 1_000_000) / 1e6)
        }
        let description = properties["Description"]?.string.flatMap { $0.isEmpty ? nil : String($0.prefix(128)) }
        return .success(
            GeoClueFix(
                latitude: latitude, longitude: longitude, accuracyMeters: accuracy, description: description,
                timestamp: timestamp))
    }

    /// Tells GeoClue to stop the client, even from a cancelled task (see ``DBusConnection/send(_:)``).
    private func stop(_ client: String) {
        try? bus.send(
            DBusMethodCall(destination: GeoClueNames.bus, path: client, interface: GeoClueNames.client, member: "Stop"))
    }

    /// What a failed `Start` means: GeoClue's "no agent" refusal (`'ID' disallowed, no agent for UID N`), another
    /// refusal (AccessDenied: the agent said no, the configuration disallows the program, geolocation is off), or a
    /// failure.
    static func startRefusal(_ error: DBusError) -> GeoClueOutcome {
        guard case .remote(let name, let message) = error else { return .failed(error.description) }
        guard name == .accessDenied else { return .failed(error.description) }
        return message.contains("no agent") ? .noAgent(message) : .refused(message)
    }
}

/// Why a position GeoClue gave cannot be used.
struct Unusable: Error, Hashable {
    var text: String
}
