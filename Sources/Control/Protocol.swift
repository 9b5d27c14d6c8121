import Foundation

/// The socket protocol forecastd speaks, version 1: newline-delimited JSON, as gpsd does.
///
/// See `docs/protocol.md`. On connect the daemon sends a greeting line (``Greeting``). A client then
/// sends request lines, either a plain line (`report`, `watch format=waybar`, `units imperial`) or
/// a JSON object (`{"request":"watch","format":"waybar"}`). Failures answer with an
/// `{"class":"ERROR","message":...}` line and the connection stays open.
public enum ControlProtocol {
    /// Version of the protocol the greeting announces.
    public static let version = 1
    /// Longest request line the daemon reads; a longer line is answered with an error and the
    /// connection closed, so a misbehaving client cannot make the daemon buffer without end.
    public static let maxRequestLength = 1024
}

/// The version of forecastd and forecastctl, from one place.
public enum ForecastdVersion {
    public static let current = "0.1.0"

    /// What `--version` prints: `forecastd 0.1.0 (libgps API 11.0)`, naming the libgps API the binaries were
    /// compiled against (gpsd 3.22 is API 11, 3.25 is API 14), since that is what a bug report needs to know.
    public static func versionLine(program: String, libgpsMajor: Int32, libgpsMinor: Int32) -> String {
        "\(program) \(current) (libgps API \(libgpsMajor).\(libgpsMinor))"
    }
}

/// The first line the daemon sends on a new connection.
public struct Greeting: Codable, Sendable, Hashable {
    public var `class`: String = "VERSION"
    public var release: String
    public var proto: Int

    public init(release: String = ForecastdVersion.current, proto: Int = ControlProtocol.version) {
        self.release = release
        self.proto = proto
    }
}
