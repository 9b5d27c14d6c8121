import ForecastModel
import FileStore
import Foundation
import Waiting

/// A position written by hand in GeoClue's static-source format (`/etc/geolocation`).
///
/// The format, as GeoClue reads it: latitude, longitude, altitude (metres) and accuracy radius (metres),
/// one number per line, in that order; `#` starts a comment, to the end of the line; blank lines are
/// skipped. forecastd needs only the first two, so altitude and accuracy may be left out, but a value
/// that is there must be a number in range.
public struct StaticLocationFile: Sendable, Hashable {
    public var coordinate: Coordinate
    public var altitudeMeters: Double?
    public var accuracyMeters: Double?

    /// Why a file could not be used, with its path and line.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Parses the text of a static-source file; `path` only names it in errors.
    public static func parse(_ text: String, path: String) throws(ParseError) -> StaticLocationFile {
        let fields = ["latitude", "longitude", "altitude", "accuracy"]
        var values: [(value: Double, line: Int)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            let line = index + 1
            guard values.count < fields.count else {
                throw ParseError(
                    description: "\(path):\(line): unexpected \"\(trimmed.prefix(40))\": the file holds at most "
                        + "four values (latitude, longitude, altitude, accuracy), one per line")
            }
            let field = fields[values.count]
            guard let value = Double(trimmed), value.isFinite else {
                throw ParseError(
                    description: "\(path):\(line): \(field) \"\(trimmed.prefix(40))\" is not a number "
                        + "(expected decimal degrees for latitude and longitude, metres for altitude and accuracy)")
            }
            values.append((value, line))
        }
        guard values.count >= 2 else {
            throw ParseError(
                description: "\(path): expected a latitude and a longitude, one per line (found \(values.count) values)")
        }
        let (latitude, longitude) = (values[0], values[1])
        guard (-90...90).contains(latitude.value) else {
            throw ParseError(description: "\(path):\(latitude.line): latitude \(latitude.value) is out of range (allowed: -90 to 90)")
        }
        guard (-180...180).contains(longitude.value) else {
            throw ParseError(
                description: "\(path):\(longitude.line): longitude \(longitude.value) is out of range (allowed: -180 to 180)")
        }
        let coordinate = Coordinate(latitude: latitude.value, longitude: longitude.value)
        guard coordinate.isPlausible else {
            throw ParseError(
                description: "\(path):\(latitude.line): (0, 0) is not a real position (it is what broken receivers report)")
        }
        var accuracy: Double?
        if values.count == 4 {
            guard values[3].value >= 0 else {
                throw ParseError(
                    description: "\(path):\(values[3].line): accuracy \(values[3].value) is negative (allowed: a radius in metres, 0 or more)")
            }
            accuracy = values[3].value
        }
        return StaticLocationFile(
            coordinate: coordinate, altitudeMeters: values.count >= 3 ? values[2].value : nil, accuracyMeters: accuracy)
    }

    /// The position as a fix received at `now`.
    public func fix(receivedAt now: Date) -> LocationFix {
        LocationFix(
            coordinate: coordinate, source: .staticFile, accuracyMeters: accuracyMeters, altitudeMeters: altitudeMeters,
            receivedAt: now)
    }
}

/// The static file as a position source: read at start and again whenever it changes.
///
/// A missing file is the normal case (most machines have none) and is reported as ``LocationEvent/noFix(source:)``;
/// a file that cannot be parsed is reported with its path and line, and the last good position is
/// withdrawn, because a user who edits the file means the new value, not the old one.
public struct StaticFileLocationProvider: LocationProvider {
    public var path: String
    /// How often to look for changes when inotify cannot be used (no descriptors left); otherwise
    /// every change is seen as it happens.
    public var pollInterval: Duration

    public init(path: String, pollInterval: Duration = .seconds(30)) {
        self.path = path
        self.pollInterval = pollInterval
    }

    /// The largest static file read: its few lines of JSON or `LAT,LON` are well under 1 KiB.
    public static let maximumFileBytes = 64 << 10

    /// What the file says now.
    public func read(now: Date = Date()) -> LocationEvent {
        let data: Data
        do {
            // Without blocking and bounded: a FIFO or a huge file at the path must not stall the location service.
            data = try BoundedFile.read(path, maximumBytes: Self.maximumFileBytes)
        } catch .missing {
            // No file is the usual case, not a problem: the source simply knows nothing.
            return .noFix(source: .staticFile)
        } catch .unreadable(let reason) {
            return .unavailable(source: .staticFile, reason: "\(path) exists but cannot be read (\(reason))")
        } catch {
            return .unavailable(source: .staticFile, reason: "\(path) \(error), not a location file")
        }
        do {
            return .fix(try StaticLocationFile.parse(String(decoding: data, as: UTF8.self), path: path).fix(receivedAt: now))
        } catch {
            return .unavailable(source: .staticFile, reason: error.description)
        }
    }

    public func run(_ deliver: @escaping @Sendable (LocationEvent) -> Void) async {
        // The file's identity when last read and what it said then.
        var last: (signature: FileSignature, event: LocationEvent)?
        func look() async {
            let previous = last?.signature
            // The stat and the read on the blocking thread: this task runs on an event loop, and the file may
            // be on a slow or stalled mount.
            let looked: (signature: FileSignature, event: LocationEvent)? = await Blocking.run { [self] in
                let signature = FileSignature(path: path)
                guard previous == nil || previous != signature else { return nil }
                return (signature, read())
            }
            guard let looked else { return }
            // A fix is re-sent only when the position itself changed, not because the file was touched.
            if !Self.isSame(looked.event, last?.event) { deliver(looked.event) }
            last = looked
        }
        await look()
        if let changes = FileWatcher.changes(of: [path]) {
            for await _ in changes { await look() }
        } else {
            // No inotify descriptor left: look once in a while rather than never.
            while (try? await Alarm.sleep(for: pollInterval)) != nil {
                await look()
            }
        }
    }

    private static func isSame(_ a: LocationEvent, _ b: LocationEvent?) -> Bool {
        switch (a, b) {
        case (.fix(let x), .fix(let y)?):
            x.coordinate == y.coordinate && x.accuracyMeters == y.accuracyMeters && x.altitudeMeters == y.altitudeMeters
        case (.unavailable(_, let x), .unavailable(_, let y)?): x == y
        case (.noFix, .noFix?): true
        default: false
        }
    }
}
