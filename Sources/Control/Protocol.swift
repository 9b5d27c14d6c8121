/// The socket protocol forecastd speaks: newline-delimited JSON, as gpsd does.
///
/// On connect the daemon sends a greeting line (``Greeting``). A client then sends request lines;
/// `report` answers with the current report as one JSON line. Failures answer with an
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

/// An error answer on the socket.
public struct ControlErrorMessage: Codable, Sendable, Hashable {
    public var `class`: String = "ERROR"
    public var message: String

    public init(message: String) { self.message = message }
}
