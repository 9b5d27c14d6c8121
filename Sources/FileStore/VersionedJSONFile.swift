import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A value that survives restarts in one JSON file with a version number.
public protocol VersionedState: Codable, Sendable {
    /// Bumped when the layout changes in a way older daemons cannot read.
    static var version: Int { get }
    /// Written into the file; checked when it is read.
    var version: Int { get }
}

/// A state file (`state.json`, `notifications.json`, `ip-location.json`): read bounded (``BoundedFile``),
/// decoded, its version checked; written atomically (``AtomicFile``). A file that cannot be used is set aside
/// as `NAME.corrupt-<seconds>` (the newest ``Leftovers/keptSetAsideCopies`` kept), never fatal: the caller
/// starts without it and logs the ``Loaded/unusable(reason:setAsideAs:)`` it got once.
///
/// Synchronous: it does file I/O and fsyncs, so a caller on an event loop runs it off the loop.
public struct VersionedJSONFile<Value: VersionedState>: Sendable {
    /// How dates are written. Each file keeps the form it has always had, so a file written by an
    /// earlier daemon reads, and is written back, byte for byte.
    public enum Dates: Sendable {
        /// Seconds since 1970 as a JSON number (`state.json`, `notifications.json`).
        case secondsSince1970
        /// ISO 8601 strings (`ip-location.json`, which people read).
        case iso8601
    }

    /// What ``load(now:)`` found.
    public enum Loaded: Sendable {
        case value(Value)
        /// Nothing at the path: a first start.
        case missing
        /// It was there but could not be used (not JSON, another version, too large, not a regular file):
        /// `reason` ends a sentence that starts with the path; `setAsideAs` is nil when the rename failed.
        case unusable(reason: String, setAsideAs: String?)
    }

    public let path: String
    public let dates: Dates
    public let pretty: Bool
    /// The largest file read; a larger one is set aside unread.
    public let maximumBytes: Int
    /// The mode a new file gets (state is the user's own: 0600).
    public let mode: mode_t

    public init(path: String, dates: Dates, pretty: Bool = false, maximumBytes: Int, mode: mode_t = 0o600) {
        self.path = path
        self.dates = dates
        self.pretty = pretty
        self.maximumBytes = maximumBytes
        self.mode = mode
    }

    /// The saved value; or why there is none, with the unusable file set aside (named after `now`) and
    /// old set-aside copies pruned, so a file corrupt at every start cannot fill the disk.
    public func load(now: Date = Date()) -> Loaded {
        let reason: String
        do {
            let data = try BoundedFile.read(path, maximumBytes: maximumBytes)
            switch decode(data) {
            case .success(let value): return .value(value)
            case .failure(let problem): reason = problem.reason
            }
        } catch .missing {
            return .missing
        } catch {
            reason = error.description
        }
        let aside = path + ".corrupt-\(Int(now.timeIntervalSince1970))"
        let moved = rename(path, aside) == 0
        Leftovers.pruneSetAside(of: path)
        return .unusable(reason: reason, setAsideAs: moved ? aside : nil)
    }

    /// Replaces the file atomically, creating its directory (0700) when it is missing.
    public func save(_ value: Value) throws(AtomicFile.WriteError) {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw AtomicFile.WriteError(description: "\(path): cannot be encoded: \(error)")
        }
        try AtomicFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        try AtomicFile.write(data, to: path, mode: mode)
    }

    /// Removes what an interrupted run left (temporaries of atomic writes) and all but the newest set-aside
    /// copies. Only at start, before this file is written; returns the paths removed.
    @discardableResult
    public func removeLeftovers() -> [String] {
        Leftovers.removeTemporaries(of: path) + Leftovers.pruneSetAside(of: path)
    }

    /// Only the version, read first: a file of another version is refused as such, not as whatever field of
    /// the newer layout fails to decode.
    private struct VersionOnly: Decodable {
        var version: Int
    }

    private struct Problem: Error {
        var reason: String
    }

    /// The value, or why the bytes are not one (the end of a sentence that starts with the path).
    private func decode(_ data: Data) -> Result<Value, Problem> {
        let decoder = decoder
        let version: Int
        do {
            version = try decoder.decode(VersionOnly.self, from: data).version
        } catch {
            return .failure(Problem(reason: "is not a \(Value.self) file: \(error)"))
        }
        guard version == Value.version else {
            return .failure(Problem(reason: "is of version \(version); this forecastd reads version \(Value.version)"))
        }
        do {
            return .success(try decoder.decode(Value.self, from: data))
        } catch {
            return .failure(Problem(reason: "cannot be decoded: \(error)"))
        }
    }

    private var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        switch dates {
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        }
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return encoder
    }

    private var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        switch dates {
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .iso8601: decoder.dateDecodingStrategy = .iso8601
        }
        return decoder
    }
}
