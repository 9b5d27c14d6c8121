import Foundation

/// An access point's hardware address (BSSID), six bytes.
public struct BSSID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Reads `01:23:45:67:89:AB` (either case, colons as NetworkManager writes it); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.utf8.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    /// Lower case with colons, as the geolocation request sends it: `01:23:45:67:89:ab`.
    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: ":")
    }

    /// The "locally administered" bit of the first byte: an address the device made up rather than its maker's.
    /// Phones' hotspots and privacy features randomise theirs; such an access point moves with its owner and is no
    /// landmark, and geolocation services ask clients not to send it.
    public var isLocallyAdministered: Bool { bytes[0] & 0x02 != 0 }
    /// A group address, never an access point's own.
    public var isMulticast: Bool { bytes[0] & 0x01 != 0 }
    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    public static func < (lhs: BSSID, rhs: BSSID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let address = BSSID(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\"\(text.prefix(40))\" is not a BSSID"))
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// One access point a scan found, as the Wi-Fi source hands it over (NetworkManager's view, not yet judged).
public struct WiFiObservation: Sendable, Hashable {
    /// The hardware address as the scanner wrote it.
    public var hardwareAddress: String
    /// The network's name as broadcast; empty for a hidden network. Read only to honour `_nomap`; never sent.
    public var ssid: [UInt8]
    /// Signal quality in percent (NetworkManager's `Strength`).
    public var strengthPercent: UInt8
    /// The channel's frequency in MHz; 0 when unknown.
    public var frequencyMHz: UInt32
    /// When a scan last saw it, in seconds of CLOCK_BOOTTIME; -1 for never.
    public var lastSeen: Int32

    public init(hardwareAddress: String, ssid: [UInt8], strengthPercent: UInt8, frequencyMHz: UInt32, lastSeen: Int32) {
        self.hardwareAddress = hardwareAddress
        self.ssid = ssid
        self.strengthPercent = strengthPercent
        self.frequencyMHz = frequencyMHz
        self.lastSeen = lastSeen
    }
}

/// The body of an Ichnaea-compatible geolocation request (beaconDB's `/v1/geolocate`, Mozilla Location Service's
/// interface): the access points that may be sent, and the exact bytes sent.
///
/// What is sent, and only that: `{"considerIp": false, "wifiAccessPoints": [{"macAddress", "signalStrength",
/// "frequency", "age"}, …]}`, strongest first, at most ``maxAccessPoints``. Never the networks' names. Left out, as
/// the service's rules ask: hidden networks and networks whose name ends in `_nomap` (the owner's opt-out), locally
/// administered (randomised) addresses, group and all-zero addresses, access points no scan saw or last saw more
/// than ``maxAge`` ago. Fewer than ``minimumAccessPoints`` left is no request: the service's privacy rule, since one
/// address alone would locate that one network's owner.
public struct WiFiGeolocationRequest: Sendable, Hashable {
    /// The service refuses to locate fewer (Ichnaea: "at least two networks need to be provided").
    public static let minimumAccessPoints = 2
    /// The strongest this many are sent: more add little to the answer and give more away.
    public static let maxAccessPoints = 20
    /// An access point seen longer ago than this is taken as gone (a machine that moved since).
    public static let maxAge: Duration = .seconds(15 * 60)

    /// One access point as sent.
    public struct AccessPoint: Sendable, Hashable {
        public var bssid: BSSID
        /// dBm, from NetworkManager's percentage (see ``signalStrength(percent:)``).
        public var signalStrength: Int
        public var frequencyMHz: UInt32
        /// Milliseconds since a scan last saw it.
        public var ageMilliseconds: Int64
    }

    /// Why access points were left out, and how many: for the log and `forecastctl locate`.
    public struct LeftOut: Sendable, Hashable {
        public var hidden = 0
        public var optedOut = 0
        public var randomised = 0
        public var unreadable = 0
        public var stale = 0
        public var beyondLimit = 0

        public init(
            hidden: Int = 0, optedOut: Int = 0, randomised: Int = 0, unreadable: Int = 0, stale: Int = 0,
            beyondLimit: Int = 0
        ) {
            self.hidden = hidden
            self.optedOut = optedOut
            self.randomised = randomised
            self.unreadable = unreadable
            self.stale = stale
            self.beyondLimit = beyondLimit
        }

        public var total: Int { hidden + optedOut + randomised + unreadable + stale + beyondLimit }

        /// `2 hidden, 1 _nomap, 3 randomised`; empty when none were.
        public var summary: String {
            [
                (hidden, "hidden"), (optedOut, "_nomap"), (randomised, "randomised"), (unreadable, "unreadable"),
                (stale, "not seen lately"), (beyondLimit, "beyond the \(WiFiGeolocationRequest.maxAccessPoints) strongest"),
            ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        }
    }

    /// The access points that may be sent, strongest first, one per address.
    public var accessPoints: [AccessPoint]
    public var leftOut: LeftOut

    /// Judges a scan.
    ///
    /// - Parameter bootTime: now, in seconds of CLOCK_BOOTTIME (the clock of `lastSeen`).
    public init(observations: [WiFiObservation], bootTime: Int64) {
        var leftOut = LeftOut()
        var strongest: [BSSID: AccessPoint] = [:]
        for observation in observations {
            guard let bssid = BSSID(observation.hardwareAddress), !bssid.isMulticast, !bssid.isZero else {
                leftOut.unreadable += 1
                continue
            }
            if observation.ssid.isEmpty || observation.ssid.allSatisfy({ $0 == 0 }) {
                leftOut.hidden += 1
                continue
            }
            if Self.optsOut(observation.ssid) {
                leftOut.optedOut += 1
                continue
            }
            if bssid.isLocallyAdministered {
                leftOut.randomised += 1
                continue
            }
            let ageSeconds = bootTime - Int64(observation.lastSeen)
            guard observation.lastSeen >= 0, ageSeconds <= Int64(Self.maxAge.components.seconds) else {
                leftOut.stale += 1
                continue
            }
            let point = AccessPoint(
                bssid: bssid, signalStrength: Self.signalStrength(percent: observation.strengthPercent),
                frequencyMHz: observation.frequencyMHz, ageMilliseconds: max(0, ageSeconds) * 1000)
            // The same address on two devices (two adapters) or twice in one list: the fresher, stronger one.
            if let kept = strongest[bssid],
                (kept.ageMilliseconds, -kept.signalStrength) <= (point.ageMilliseconds, -point.signalStrength)
            {
                continue
            }
            strongest[bssid] = point
        }
        let sorted = strongest.values.sorted {
            $0.signalStrength != $1.signalStrength ? $0.signalStrength > $1.signalStrength : $0.bssid < $1.bssid
        }
        leftOut.beyondLimit = max(0, sorted.count - Self.maxAccessPoints)
        accessPoints = Array(sorted.prefix(Self.maxAccessPoints))
        self.leftOut = leftOut
    }

    /// Whether there are enough to ask.
    public var canAsk: Bool { accessPoints.count >= Self.minimumAccessPoints }

    /// The addresses, the key of the answer cache and of the "same place" rule.
    public var bssids: Set<BSSID> { Set(accessPoints.map(\.bssid)) }

    /// The exact bytes of the POST body, keys in the documented order, no white space.
    public var body: [UInt8] {
        let points = accessPoints.map { point in
            var fields = "\"macAddress\":\"\(point.bssid)\",\"signalStrength\":\(point.signalStrength)"
            if point.frequencyMHz > 0 { fields += ",\"frequency\":\(point.frequencyMHz)" }
            fields += ",\"age\":\(point.ageMilliseconds)"
            return "{" + fields + "}"
        }
        return Array("{\"considerIp\":false,\"wifiAccessPoints\":[\(points.joined(separator: ","))]}".utf8)
    }

    /// NetworkManager's signal quality back in dBm. NetworkManager makes the percentage from wpa_supplicant's dBm
    /// by a straight line from -100 dBm (0 %) to -40 dBm (100 %) (`nm_wifi_utils_level_to_quality`); this is that
    /// line read backwards, which is exact up to its rounding.
    public static func signalStrength(percent: UInt8) -> Int {
        -100 + (Int(min(percent, 100)) * 60 + 50) / 100
    }

    /// The owner's opt-out: a name ending in `_nomap` (in any case, which opts out more rather than less).
    static func optsOut(_ ssid: [UInt8]) -> Bool {
        let suffix = Array("_nomap".utf8)
        guard ssid.count >= suffix.count else { return false }
        return zip(ssid.suffix(suffix.count), suffix).allSatisfy { byte, expected in
            byte == expected || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte + 32 == expected)
        }
    }
}
